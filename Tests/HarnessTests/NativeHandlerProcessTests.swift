import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The native handler as a real process over a real container folder.
@Suite(.serialized)
struct NativeHandlerProcessTests {
    static let now: EpochMillis = 1_783_940_000_000
    static let stored = """
        {"schemaVersion": 1, "documentId": "DOC-1", "revision": 42,
         "defaults": {"mode": "auto", "theme": "gray", "nativeDarkPolicy": "respect", "schedule": {"start": "20:00", "end": "06:00"}},
         "sites": {"docs.example.com": {"theme": "sepia", "modifiedAt": 1783936800000}}, "tombstones": {}}
        """

    /// A container folder holding the stored document; removed by `cleanUp`.
    private func container(_ document: String? = stored) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("container-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let document { try document.write(toFile: folder + "/settings.json", atomically: false, encoding: .utf8) }
        return folder
    }

    private func cleanUp(_ folder: String) { try? FileManager.default.removeItem(atPath: folder) }

    private func handler(_ folder: String) -> NativeHandlerRun {
        NativeHandlerRun(executable: HarnessBinary.directory + "/NativeHandler", container: folder)
    }

    private func bytes(_ folder: String, _ name: String = "settings.json") -> Data? {
        FileManager.default.contents(atPath: folder + "/" + name)
    }

    private let patch: JSONValue = .object(["type": .string("patch"), "scope": .string("a.example"),
                                            "set": .object(["mode": .string("off")]), "at": .integer(1_783_939_999_000), "edit": .integer(1)])

    @Test func aPatchIsWrittenAtomicallyNotifiedAndAnsweredWithTheNewRevision() throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let result = try handler(folder).run(patch, now: Self.now, seed: 1)
        #expect(result.exit == .exited(0))
        #expect(result.yields == [.lock, .read, .writeTemp, .rename, .unlock])
        #expect(result.notified)
        #expect(result.reply == .object(["type": .string("applied"), "changed": .bool(true), "documentId": .string("DOC-1"), "revision": .integer(43)]))
        let document = try DocumentCodec.decode(Array(try #require(bytes(folder)))).document
        #expect(document.sites[try ScopeKey.parse("a.example")]?.values.mode == .off)
        #expect(document.sites[try ScopeKey.parse("docs.example.com")]?.values.theme == .sepia)
        #expect(bytes(folder, "settings.previous.json") == Data(Self.stored.utf8))

        let again = try handler(folder).run(patch, now: Self.now, seed: 1)
        #expect(again.reply == .object(["type": .string("applied"), "changed": .bool(false), "documentId": .string("DOC-1"), "revision": .integer(43)]))
        #expect(!again.notified)
    }

    @Test func aSnapshotRequestAnswersTheDocumentOrNotModified() throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let snapshot = try handler(folder).run(.object(["type": .string("getSnapshot")]), now: Self.now, seed: 1)
        #expect(snapshot.yields == [.read])
        guard case .object(let reply)? = snapshot.reply, case .object(let document)? = reply["document"] else {
            Issue.record("no snapshot: \(String(describing: snapshot.reply))")
            return
        }
        #expect(document["revision"] == .integer(42))
        let known = JSONValue.object(["type": .string("getSnapshot"), "known": .object(["documentId": .string("DOC-1"), "revision": .integer(42)])])
        let notModified = try handler(folder).run(known, now: Self.now, seed: 1)
        #expect(notModified.reply == .object(["type": .string("notModified"), "documentId": .string("DOC-1"), "revision": .integer(42)]))
    }

    @Test func anInvalidMessageGetsAnErrorAndLeavesTheDocumentsBytesAlone() throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let before = bytes(folder)
        let hostile: JSONValue = .object(["type": .string("patch"), "scope": .string("a.example/\u{0}"), "set": .object(["mode": .string("on")]),
                                          "at": .integer(1), "edit": .integer(1)])
        let result = try handler(folder).run(hostile, now: Self.now, seed: 1)
        #expect(result.yields.isEmpty)
        #expect(result.exit == .exited(0))
        guard case .object(let reply)? = result.reply else {
            Issue.record("no reply")
            return
        }
        #expect(reply["type"] == .string("error"))
        #expect(reply["code"] == .string("invalidMessage"))
        #expect(bytes(folder) == before)
    }

    @Test(arguments: [YieldPoint.lock, .read, .writeTemp, .rename])
    func aHandlerKilledAtAnyPointBeforeTheRenameCompletesLeavesTheOldDocument(point: YieldPoint) throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let before = bytes(folder)
        let killed = try handler(folder).run(patch, now: Self.now, seed: 1) { reached, _ in reached == point ? .kill : .proceed }
        #expect(killed.exit == .signaled(9))
        #expect(killed.reply == nil)
        #expect(bytes(folder) == before)
        // The dead handler's lock died with it: the next request goes through.
        let next = try handler(folder).run(patch, now: Self.now, seed: 1)
        #expect(next.reply?.objectValue?["revision"] == .integer(43))
    }

    @Test func aWriteErrorIsReportedAndTheDocumentStaysAsItWas() throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let before = bytes(folder)
        let result = try handler(folder).run(patch, now: Self.now, seed: 1) { point, _ in point == .writeTemp ? .fail(errno: ENOSPC) : .proceed }
        #expect(result.yields == [.lock, .read, .writeTemp, .unlock])
        #expect(result.reply?.objectValue?["code"] == .string("storageFailure"))
        #expect(result.notified, "readers are told to look again after a failed write")
        #expect(bytes(folder) == before)
    }

    @Test func aCorruptDocumentIsSetAsideAndTheLastGoodCopyRecovered() throws {
        let folder = try container("{\"sites\": {")
        defer { cleanUp(folder) }
        try Self.stored.write(toFile: folder + "/settings.previous.json", atomically: false, encoding: .utf8)
        let result = try handler(folder).run(patch, now: Self.now, seed: 1)
        #expect(result.yields == [.lock, .read, .setAside, .read, .writeTemp, .rename, .unlock])
        #expect(bytes(folder, "settings.damaged-1.json") == Data("{\"sites\": {".utf8))
        let document = try DocumentCodec.decode(Array(try #require(bytes(folder)))).document
        #expect(document.sites.count == 2)
        #expect(document.revision == 43)
    }

    @Test func framesThatAreNotMessagesGetAnErrorFrameAndChangeNothing() throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let before = bytes(folder)
        let child = try ChildProcess(executable: HarnessBinary.directory + "/NativeHandler", arguments: ["--container", folder], role: .handler)
        defer { child.kill() }
        try child.send(Array("not json".utf8))
        let first = try #require(try child.receive(timeoutMilliseconds: 10_000))
        guard case .error(let message) = try FromChild.decode(first, role: .handler) else {
            Issue.record("expected an error frame")
            return
        }
        #expect(message.contains("not JSON"))
        try child.send(JSONWriter.compact(.object(["kind": .string("input"), "now": .integer(1), "uptime": .integer(1), "input": .object(["type": .string("other")])])))
        let second = try #require(try child.receive(timeoutMilliseconds: 10_000))
        #expect(try FromChild.decode(second, role: .handler) == .error("invalid input: type: expected requestArrived"))
        child.closeInput()
        #expect(child.wait() == .exited(ChildExit.harnessGone))
        #expect(bytes(folder) == before)
    }

    @Test func anOversizedFrameIsRefusedWithoutReadingItAndTheHandlerEnds() throws {
        let folder = try container()
        defer { cleanUp(folder) }
        let before = bytes(folder)
        // A shell feeds the handler a length of 64 MiB + 1 and nothing else; the handler must
        // refuse after the 4 length bytes, answer, and end. (ChildProcess itself never sends
        // an oversized frame.)
        let handler = HarnessBinary.directory + "/NativeHandler"
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "printf '\\001\\000\\000\\004' | '\(handler)' --container '\(folder)'"], role: .handler)
        defer { child.kill() }
        let frame = try #require(try child.receive(timeoutMilliseconds: 10_000))
        guard case .error(let message) = try FromChild.decode(frame, role: .handler) else {
            Issue.record("expected an error frame")
            return
        }
        #expect(message.contains("\(Framing.requestLimit + 1)"))
        #expect(child.wait(timeoutMilliseconds: 10_000) == .exited(ChildExit.harnessGone))
        #expect(bytes(folder) == before)
    }
}


/// A child that dies on its own is reported with the tail of what it wrote to stderr.
struct ProcessDriverTests {
    @Test func aChildThatDiesUnexpectedlyIsReportedWithItsStderr() throws {
        let trace = Trace()
        let child = try ChildProcess(executable: HarnessBinary.directory + "/NativeHandler", arguments: ["--wrong"])
        let driver = ProcessDriver(name: .handler, incarnation: 1, endpoint: child, seed: 1, trace: trace)
        let step = driver.begin(.handler(.requestArrived(.object(["type": .string("getEnabled")]))), now: 5)
        #expect(step == .died(.exited(ChildExit.usage)))
        #expect(trace.lines.last == "5 handler#1 died unexpectedly (exited with code 64)")
        let report = try #require(trace.diagnostics.last)
        #expect(report.hasPrefix("handler#1 died unexpectedly (exited with code 64); stderr: usage: NativeHandler --container DIRECTORY"))
    }
}
