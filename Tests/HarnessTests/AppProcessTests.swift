import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The app as a real, long-running process over a real container folder.
@Suite(.serialized)
struct AppProcessTests {
    private func exchange(_ child: ChildProcess, _ input: JSONValue, now: EpochMillis) throws -> [JSONValue] {
        try HarnessBinary.exchange(child, input, now: now)
    }

    @Test func theAppMigratesOnLaunchSavesAnEditAndShowsIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"colorInvertEnabled": true}"#.write(toFile: folder + "/group-preferences.json", atomically: false, encoding: .utf8)

        let child = try ChildProcess(executable: HarnessBinary.directory + "/AppProcess", arguments: ["--container", folder], role: .app)
        defer { child.kill() }
        let launch = try exchange(child, .object(["type": .string("launched")]), now: 1_783_940_000_000)
        guard case .object(let shown)? = launch.first, case .object(let view)? = shown["view"] else {
            Issue.record("no view: \(launch)")
            return
        }
        #expect(view["revision"] == .integer(1))
        #expect(view["defaults"]?.objectValue?["mode"] == .string("on"))
        #expect(view["defaults"]?.objectValue?["theme"] == .string("invert"))

        let edit = JSONValue.object(["type": .string("userEdited"), "edit": .object([
            "kind": .string("changeSite"), "scope": .string("Docs.Example.com"), "set": .object(["theme": .string("sepia")])])])
        let saved = try exchange(child, edit, now: 1_783_940_001_000)
        #expect(saved.contains(.object(["type": .string("editSaved"), "revision": .integer(2), "changed": .bool(true)])))
        #expect(saved.contains(.object(["type": .string("messageExtension")])))
        let stored = try DocumentCodec.decode(Array(try #require(FileManager.default.contents(atPath: folder + "/settings.json")))).document
        #expect(stored.sites[try ScopeKey.parse("docs.example.com")]?.values.theme == .sepia)

        child.closeInput()
        #expect(child.wait(timeoutMilliseconds: 10_000) == .exited(ChildExit.harnessGone))
    }
}
