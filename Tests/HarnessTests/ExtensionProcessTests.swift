import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The background as a real process, talking to a real native handler through the test, which
/// plays Safari by hand here.
@Suite(.serialized)
struct ExtensionProcessTests {
    static let now: EpochMillis = 1_783_940_000_000

    private func folder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func exchange(_ child: ChildProcess, _ input: JSONValue, now: EpochMillis) throws -> [[String: JSONValue]] {
        try HarnessBinary.exchange(child, input, now: now).compactMap(\.objectValue)
    }

    private func document(theme: Theme, revision: Int64) -> SettingsDocument {
        var document = SettingsDocument(documentId: "DOC-1", revision: revision)
        document.defaults.mode = .on
        document.defaults.theme = theme
        return document
    }

    @Test func aBackgroundWithACacheAnswersBeforeAnyNativeReplyThenTheSnapshotCorrectsIt() throws {
        let container = try folder("container"), storage = try folder("storage")
        defer {
            try? FileManager.default.removeItem(atPath: container)
            try? FileManager.default.removeItem(atPath: storage)
        }
        try Data(DocumentCodec.encode(document(theme: .gray, revision: 9))).write(to: URL(fileURLWithPath: container + "/settings.json"))
        let cache = LocalStorage(cache: document(theme: .sepia, revision: 8), snapshotVersion: DocumentVersion(documentId: "DOC-1", revision: 8))
        try Data(JSONWriter.compact(cache.json)).write(to: URL(fileURLWithPath: storage + "/local.json"))

        let background = try ChildProcess(executable: HarnessBinary.directory + "/ExtensionProcess", arguments: ["--storage", storage], role: .background)
        defer { background.kill() }
        let start = try exchange(background, .object(["type": .string("started"), "appearance": .string("light"), "tabs": .object([:])]), now: Self.now)
        // It registers its listeners first, then starts loading its storage.
        #expect(start.first?["type"] == .string("listen"), "\(start)")
        let load = try #require(start.first { $0["type"] == .string("storagePending") }, "expected a pending load: \(start)")
        guard case .integer(let token)? = load["token"] else {
            Issue.record("expected a token: \(load)")
            return
        }
        // The tab asks while storage is still loading: Safari queues it, the background answers once loaded.
        #expect(try exchange(background, .object(["type": .string("tabRequestedDecision"), "tab": .string("t1"),
                                                  "url": .string("https://docs.example.com/")]), now: Self.now + 1).isEmpty)
        let loaded = try exchange(background, .object(["type": .string("storageCompleted"), "token": .integer(token)]), now: Self.now + 2)
        let types = loaded.compactMap { $0["type"] }
        #expect(types.first == .string("sendDecision"), "the first directive answers the tab: \(types)")
        #expect(loaded.first?["decision"]?.objectValue?["theme"] == .string("sepia"))
        guard let send = loaded.first(where: { $0["type"] == .string("sendNative") }), case .integer(let request)? = send["request"],
              let message = send["message"] else {
            Issue.record("no native request: \(loaded)")
            return
        }

        let reply = try NativeHandlerRun(executable: HarnessBinary.directory + "/NativeHandler", container: container)
            .run(message, now: Self.now + 3, seed: 1)
        let corrected = try exchange(background, .object(["type": .string("nativeReplyArrived"), "request": .integer(request),
                                                          "reply": try #require(reply.reply)]), now: Self.now + 4)
        let decision = corrected.first { $0["type"] == .string("sendDecision") }
        #expect(decision?["decision"]?.objectValue?["theme"] == .string("gray"))
        #expect(corrected.contains { $0["type"] == .string("storagePending") })
        // The corrected cache was written to extension storage.
        let stored = try JSONParser.parse(Array(try #require(FileManager.default.contents(atPath: storage + "/local.json"))))
        #expect(LocalStorage.decode(stored)?.cache?.defaults.theme == .gray)
    }
}
