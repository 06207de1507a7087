import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// Several background incarnations in one `node` host, each in a context of its own: each has
/// its own storage and realm, one held at a yield point waits while another runs, and a kill
/// drops an incarnation where it stands, with nothing more of it happening.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"))
struct ContextHostTests {
    private static let epoch = 1_772_355_600_000

    /// A folder that is removed when the test ends.
    private final class Scratch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)").path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func folder(_ name: String) throws -> String {
            try FileManager.default.createDirectory(atPath: path + "/" + name, withIntermediateDirectories: true)
            return path + "/" + name
        }
    }

    private func host(_ fixture: String, runtime: String) throws -> ContextHost {
        let folder = ExtensionRuntimeTests.fixtures + "/" + fixture
        var command = ExtensionRuntime.background(node: try #require(ExtensionRuntime.installedNode), runtime: runtime, extension: folder)
        command.arguments.append("--host")
        return ContextHost(command: command)
    }

    /// Sends `input` (its JSON) and reads frames up to its `done` or `error`, answering each
    /// yield point with `answer`; stops at a yield point `answer` holds (nil), returning what
    /// it read, that yield point last.
    private func exchange(_ context: HostedContext, _ input: String, now: Int, uptime: Int,
                          answer: (YieldPoint) -> ToChild? = { _ in .proceed(now: 0) }) throws -> [FromChild] {
        let frame = #"{"kind":"input","now":\#(now),"uptime":\#(uptime),"seed":1,"flaws":[],"input":\#(input)}"#
        try context.sendMessage(try ToChild.decode(Array(frame.utf8), role: .background), timeoutMilliseconds: 20_000)
        var frames: [FromChild] = []
        while true {
            guard case .message(let message)? = try context.receiveMessage(timeoutMilliseconds: 20_000) else {
                throw Failure(description: "the incarnation ended after \(frames)")
            }
            frames.append(message)
            switch message {
            case .done, .error: return frames
            case .yield(let point, _):
                guard let reply = answer(point) else { return frames }
                try context.sendMessage(reply, timeoutMilliseconds: 20_000)
            case .log, .hello: break
            }
        }
    }

    private struct Failure: Error, CustomStringConvertible { var description: String }

    private static let started = #"{"type":"started","appearance":"light","tabs":{}}"#
    private static func completed(_ token: Int) -> String { #"{"type":"storageCompleted","token":\#(token)}"# }

    private func logs(_ frames: [FromChild]) -> [String] {
        frames.compactMap { if case .log(_, let message, _) = $0 { message } else { nil } }
    }

    @Test func incarnationsInOneHostKeepApartAndAKillDropsOneWhereItStands() throws {
        let scratch = try Scratch()
        let host = try host("runtime-storage", runtime: try ExtensionRuntime.installed())
        defer { host.kill() }
        let first = try scratch.folder("first"), second = try scratch.folder("second")
        let a = try host.open(arguments: ["--storage", first], role: .background)
        let b = try host.open(arguments: ["--storage", second], role: .background)

        // a loads its count, then is held where it would write the next.
        #expect(logs(try exchange(a, Self.started, now: Self.epoch, uptime: 5)) == [])
        let held = try exchange(a, Self.completed(1), now: Self.epoch + 1, uptime: 6) { $0 == .storageWriteTemp ? nil : .proceed(now: 0) }
        #expect(logs(held) == ["loads 0"])
        #expect(held.last == .yield(.storageWriteTemp, seq: 2), "\(held)")

        // b runs whole meanwhile, over its own storage, with a count of its own.
        _ = try exchange(b, Self.started, now: Self.epoch + 2, uptime: 7)
        #expect(logs(try exchange(b, Self.completed(1), now: Self.epoch + 3, uptime: 8)) == ["loads 0"])
        #expect(logs(try exchange(b, Self.completed(2), now: Self.epoch + 4, uptime: 9)) == [#"changed local {"loads":{"newValue":1}}"#, "saved"])
        #expect(try String(contentsOfFile: second + "/local.json", encoding: .utf8) == #"{"loads":1}"#)

        // a is killed where it was held: it writes nothing, now or later.
        a.kill()
        #expect(a.wait() == .signaled(SIGKILL))
        #expect(throws: FrameError.closed) { try a.sendMessage(.proceed(now: 0), timeoutMilliseconds: 1_000) }
        let c = try host.open(arguments: ["--storage", second], role: .background)
        _ = try exchange(c, Self.started, now: Self.epoch + 5, uptime: 10)
        #expect(logs(try exchange(c, Self.completed(1), now: Self.epoch + 6, uptime: 11)) == ["loads 1"], "the next incarnation reads what b saved")
        #expect(!FileManager.default.fileExists(atPath: first + "/local.json"))
        #expect(!FileManager.default.fileExists(atPath: first + "/local.json.tmp"))
        #expect(host.isRunning)
    }

    /// A rejection nobody handled is said by the incarnation whose turn made it, though another
    /// is open in the same host; its place is in the extension's script.
    @Test func aRejectionIsSaidByTheIncarnationWhoseTurnMadeIt() throws {
        let scratch = try Scratch()
        let host = try host("runtime-classic", runtime: try ExtensionRuntime.installed())
        defer { host.kill() }
        let loud = try host.open(arguments: ["--storage", try scratch.folder("loud")], role: .background)
        let quiet = try host.open(arguments: ["--storage", try scratch.folder("quiet")], role: .background)
        _ = try exchange(quiet, Self.started, now: Self.epoch, uptime: 5)
        let said = try exchange(loud, Self.started, now: Self.epoch, uptime: 5)
            + (try exchange(loud, #"{"type":"timerFired","timer":{"script":1}}"#, now: Self.epoch + 1_000, uptime: 1_005))
        #expect(logs(said).contains("Uncaught (in promise) Error: nobody catches this"), "\(logs(said))")
        let other = try exchange(quiet, #"{"type":"timerFired","timer":{"script":1}}"#, now: Self.epoch + 1_000, uptime: 1_005)
        #expect(other.last == .done(.background([.listen([.message, .tabActivated, .windowFocus])])))
        #expect(!logs(other).contains { $0.hasPrefix("Uncaught") }, "\(logs(other))")
    }

    /// A host given back to the pool after a run is the next run's, its incarnations ended; one
    /// that ended is not handed out again.
    @Test func thePoolHandsOutAHostAgainOnlyWhileItRuns() throws {
        let scratch = try Scratch()
        let runtime = try ExtensionRuntime.installed()
        var command = ExtensionRuntime.background(node: try #require(ExtensionRuntime.installedNode), runtime: runtime,
                                                  extension: ExtensionRuntimeTests.fixtures + "/runtime-storage")
        command.arguments += ["--host", "--pool-test-\(UUID().uuidString)"]
        let host = ContextHostPool.take(command)
        let open = try host.open(arguments: ["--storage", try scratch.folder("s")], role: .background)
        _ = try exchange(open, Self.started, now: Self.epoch, uptime: 5)
        ContextHostPool.give(host)
        #expect(!open.isRunning, "giving the host back ends what was open in it")
        let again = ContextHostPool.take(command)
        #expect(again === host)
        again.kill()
        _ = again.wait()
        ContextHostPool.give(again)
        let fresh = ContextHostPool.take(command)
        #expect(fresh !== host)
        fresh.kill()
    }

    /// A host whose heap passes half its limit after an input asks to be replaced, and the pool
    /// does not hand it out again; one whose incarnations keep little does not ask.
    @Test func aHostWhoseHeapIsHalfFullIsReplaced() throws {
        let scratch = try Scratch()
        let runtime = try ExtensionRuntime.installed()
        func command(_ fixture: String) throws -> ProcessExecutables.Command {
            var command = ExtensionRuntime.with(watchdogMilliseconds: nil, heapLimitMiB: 40, ExtensionRuntime.background(
                node: try #require(ExtensionRuntime.installedNode), runtime: runtime, extension: ExtensionRuntimeTests.fixtures + "/" + fixture))
            command.arguments += ["--host", "--pool-test-\(UUID().uuidString)"]
            return command
        }
        for (fixture, full) in [("runtime-keeps-memory", true), ("runtime-classic", false)] {
            let host = ContextHostPool.take(try command(fixture))
            let first = try host.open(arguments: ["--storage", try scratch.folder(fixture + "1")], role: .background)
            _ = try exchange(first, Self.started, now: Self.epoch, uptime: 5)
            // Said after the input's end: read with the next incarnation's frames.
            let second = try host.open(arguments: ["--storage", try scratch.folder(fixture + "2")], role: .background)
            #expect(try second.awaitHello(timeoutMilliseconds: 20_000))
            #expect(host.retiring == full, "\(fixture)")
            ContextHostPool.give(host)
            let next = ContextHostPool.take(host.command)
            #expect((next === host) == !full, "\(fixture): a host that asked to retire is replaced, and only one")
            next.kill()
        }
    }

    /// A background page's document is jsdom's, whose objects every document in the host shares:
    /// a host in which one changed them asks to be replaced before the input that changed them
    /// ends (the next incarnation, opened ahead as the launcher opens it, is already there), and
    /// one whose pages only used their documents does not.
    @Test(.enabled(if: PageRuntime.jsdomMissing == nil, "jsdom is not installed: a background page has no document"))
    func aHostWhoseBackgroundPageChangedWhatEveryDocumentSharesIsReplaced() throws {
        let scratch = try Scratch()
        let runtime = try ExtensionRuntime.installed()
        for (fixture, changed) in [("background-document-tampering", true), ("background-document", false)] {
            let host = try host(fixture, runtime: runtime)
            defer { host.kill() }
            let first = try host.open(arguments: ["--storage", try scratch.folder(fixture + "1")], role: .background)
            let spare = try host.open(arguments: ["--storage", try scratch.folder(fixture + "2")], role: .background)
            #expect(try spare.awaitHello(timeoutMilliseconds: 20_000))
            _ = try exchange(first, Self.started, now: Self.epoch, uptime: 5)
            #expect(host.retiring == changed, "\(fixture)")
        }
    }

    /// A host that died (killed with an incarnation stuck in it) is replaced for the run's next
    /// background, as a process of its own would be started afresh.
    @Test func aRunsNextBackgroundStartsInANewHostWhenItsHostDied() throws {
        let scratch = try Scratch()
        guard case .success(let executables) = ExtensionRuntime.background(replacing: ProcessExecutables(folder: "/nowhere"),
                                                                          extension: ExtensionRuntimeTests.fixtures + "/runtime-storage", transport: .process) else {
            throw Failure(description: "the runtime could not be set up")
        }
        var launcher = ProcessLauncher(transport: .process, executables: executables, containerDirectory: scratch.path, disk: SimulatedDisk(),
                                       seed: 1, trace: Trace())
        defer { launcher.stopSpares() }
        let storage = try scratch.folder("storage")
        let first = try launcher.start(.background, storageDirectory: storage, storageFolder: "storage")
        first.policy = { _ in .hold }
        guard case .held = first.begin(.background(.started(appearance: .light, tabs: [:])), now: Int64(Self.epoch)) else {
            throw Failure(description: "background#1 did not stop at its storage read")
        }
        let dead = try #require(launcher.host)
        dead.kill()
        _ = dead.wait()
        let second = try launcher.start(.background, storageDirectory: storage, storageFolder: "storage")
        second.policy = { _ in .hold }
        #expect(launcher.host !== dead)
        guard case .held(.storageRead) = second.begin(.background(.started(appearance: .light, tabs: [:])), now: Int64(Self.epoch) + 1) else {
            throw Failure(description: "background#2 did not start in a new host")
        }
        first.kill(now: Int64(Self.epoch) + 2, reason: nil)
        second.kill(now: Int64(Self.epoch) + 2, reason: nil)
    }

    /// An incarnation in which the runtime itself fails (here its storage folder is gone) ends
    /// as a process of its own does: with status 1, and the host goes on.
    @Test func anIncarnationTheRuntimeFailsInEndsWithStatusOneAsAProcessWould() throws {
        let scratch = try Scratch()
        let runtime = try ExtensionRuntime.installed()
        let host = try host("runtime-storage", runtime: runtime)
        defer { host.kill() }
        let gone = scratch.path + "/no-such-folder"
        let context = try host.open(arguments: ["--storage", gone], role: .background)
        _ = try exchange(context, Self.started, now: Self.epoch, uptime: 5)
        #expect(throws: Failure.self) { try exchange(context, Self.completed(1), now: Self.epoch + 1, uptime: 6) }
        #expect(context.wait(timeoutMilliseconds: 5_000) == .exited(1))
        let session = try ExtensionRuntime.Session(node: try #require(ExtensionRuntime.installedNode), runtime: runtime,
                                                   extension: ExtensionRuntimeTests.fixtures + "/runtime-storage", storage: gone)
        _ = try session.exchange(.background(.started(appearance: .light, tabs: [:])), now: Int64(Self.epoch), uptime: 5)
        #expect(try session.exchange(.background(.storageCompleted(token: 1)), now: Int64(Self.epoch) + 1, uptime: 6) == nil, "a process of its own ends")
        let other = try host.open(arguments: ["--storage", try scratch.folder("other")], role: .background)
        #expect(logs(try exchange(other, Self.started, now: Self.epoch, uptime: 5)) == [])
        #expect(host.isRunning)
    }
}
