import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// `--app-exec`, `--background-exec` and `--handler-exec`: any executable in any role, held to
/// the protocol's `hello`.
struct ExecutableRoleTests {
    static let scenario = ScenarioTests.folder + "/transitions/06-cold-start-answers-from-the-cache.scenario"

    /// An executable script in a fresh folder; the caller removes the folder.
    private static func script(_ body: String) throws -> (path: String, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/process"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return (path, folder)
    }

    /// A process that writes one frame (`payload`) and then reads its input until it ends.
    private static func writesFirst(_ payload: String) throws -> (path: String, folder: String) {
        let bytes = Array(payload.utf8)
        let length = withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init)
        let process = try script("")
        FileManager.default.createFile(atPath: process.folder + "/frame", contents: Data(length + bytes))
        try ("#!/bin/sh\ncat '\(process.folder)/frame'\nexec cat > /dev/null\n").write(toFile: process.path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: process.path)
        return process
    }

    @Test func theBuiltInsNamedExplicitlyGiveTheSameTraces() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenarios = ScenarioTests.folder + "/transitions"
        let plain = try HarnessBinary.run(["run", scenarios, "--trace", folder + "/plain.trace"])
        let named = try HarnessBinary.run(["run", scenarios, "--trace", folder + "/named.trace",
                                           "--app-exec", HarnessBinary.directory + "/AppProcess",
                                           "--background-exec", HarnessBinary.directory + "/ExtensionProcess",
                                           "--handler-exec", HarnessBinary.directory + "/NativeHandler"])
        #expect(plain.status == 0 && named.status == 0, "\(plain.stdout)\(named.stdout)\(named.stderr)")
        // The same events; only the lines naming what played each role differ.
        func events(_ trace: String) -> [Substring] { trace.split(separator: "\n").filter { !$0.hasPrefix("# roles: ") } }
        let a = try String(contentsOfFile: folder + "/plain.trace", encoding: .utf8)
        let b = try String(contentsOfFile: folder + "/named.trace", encoding: .utf8)
        #expect(a.count > 1000 && events(a) == events(b))
        #expect(b.contains("# roles: app executable \(HarnessBinary.directory)/AppProcess, background executable \(HarnessBinary.directory)/ExtensionProcess, handler executable \(HarnessBinary.directory)/NativeHandler\n"))
    }

    @Test func itsArgumentsComeBeforeTheHarnesss() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("exec-args-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let wrapper = "echo \"$0 $*\" >> '\(log)'; exec '\(HarnessBinary.directory)/ExtensionProcess' \"$@\""
        let result = try HarnessBinary.run(["run", Self.scenario, "--background-exec", "/bin/sh",
                                            "--background-arg", "-c", "--background-arg", wrapper, "--background-arg", "marker"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("marker --storage /") }, "\(lines)")
    }

    @Test func aProcessOfAnotherVersionFailsTheRunNamingBoth() throws {
        let process = try Self.writesFirst(#"{"kind":"hello","protocol":2,"role":"background"}"#)
        defer { try? FileManager.default.removeItem(atPath: process.folder) }
        let result = try HarnessBinary.run(["run", Self.scenario, "--background-exec", process.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("background#1: the background executable \(process.path) speaks protocol 2; this harness speaks protocol 1"),
                "\(result.stdout)")
    }

    @Test func aProcessThatSaysAnotherRoleOrNoHelloFailsTheRunSayingWhatCame() throws {
        let app = try Self.writesFirst(#"{"kind":"hello","protocol":1,"role":"app"}"#)
        defer { try? FileManager.default.removeItem(atPath: app.folder) }
        let wrongRole = try HarnessBinary.run(["run", Self.scenario, "--handler-exec", app.path])
        #expect(wrongRole.status == 1)
        #expect(wrongRole.stdout.contains("handler#1: the handler executable \(app.path) says it plays the role 'app'"), "\(wrongRole.stdout)")

        let done = try Self.writesFirst(#"{"directives":[],"kind":"done"}"#)
        defer { try? FileManager.default.removeItem(atPath: done.folder) }
        let background = try HarnessBinary.run(["run", Self.scenario, "--background-exec", done.path])
        #expect(background.status == 1)
        #expect(background.stdout.contains(#"the background executable \#(done.path) did not open with a hello frame: its first frame was {"directives":[],"kind":"done"}"#),
                "\(background.stdout)")
    }

    /// An `error` frame ends the input it answers (the process did nothing with it), and fails
    /// the run, naming what the process said.
    @Test func aProcessThatCannotReadItsInputFailsTheRunSayingSo() throws {
        let node = try #require(ConformTests.node, "node is on every machine of this project; it is not on PATH")
        let result = try HarnessBinary.run(["run", Self.scenario, "--background-exec", node, "--background-arg", ConformTests.tamper,
                                            "--background-arg", "refuse-inputs", "--background-arg", HarnessBinary.directory + "/ExtensionProcess"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("after this step: background#1 could not read what the harness sent: refused"), "\(result.stdout)")
    }

    @Test func namedExecutablesNeedTheProcessTransportAndAPathThatRuns() throws {
        let inProcess = try HarnessBinary.run(["run", Self.scenario, "--transport", "in-process", "--handler-exec", "/bin/true"])
        #expect(inProcess.status == 2 && inProcess.stderr.contains("'--handler-exec' starts a process of its own: it needs '--transport process'"))
        let missing = try HarnessBinary.run(["run", Self.scenario, "--app-exec", "/nonexistent/app"])
        #expect(missing.status == 1 && missing.stderr.contains("--app-exec /nonexistent/app: No such file or directory"), "\(missing.stderr)")
        let loose = try HarnessBinary.run(["explore", "--runs", "1", "--handler-arg", "x"])
        #expect(loose.status == 2 && loose.stderr.contains("'--handler-arg' gives arguments to the executable '--handler-exec' names"))
    }
}
