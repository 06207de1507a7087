#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ProcessKit
import SiteSettings
import Synchronization

/// One process that runs many incarnations of the background, each in a context of its own
/// (`PROTOCOL.md`, section 14, "Where code runs"): the JavaScript runtime's `--host` mode. Node takes about 100 ms
/// to start here and a fresh context a few, so a run, and the runs after it, start node once.
///
/// Each frame's payload begins with the number of the incarnation it is for or from (4 bytes,
/// little-endian). An incarnation is opened with the arguments a process of its own would get,
/// answers with its `hello`, and is ended by a frame with nothing after its number: a kill and a
/// close are alike to the host, which drops the incarnation where it stands. A context runs only
/// while it handles an input, so an idle one and a frozen process cannot be told apart: freezing
/// one does nothing.
///
/// Used by one run at a time: `ContextHostPool` hands it from run to run under its lock, which
/// is what makes it safe to send between threads. Its frames for incarnations other than the
/// one being read are kept until that one is read.
final class ContextHost: @unchecked Sendable {
    let command: ProcessExecutables.Command
    private let starting: StartingProcess
    /// Why the host could not be started, if it could not.
    private let spawnFailure = SpawnFailure()
    private var nextContext: UInt32 = 1
    /// Frames read for an incarnation before it was asked for them.
    private var waiting: [UInt32: [[UInt8]]] = [:]
    /// Incarnations that ended on their own (the runtime failed in them), with the status a
    /// process of its own would have ended with.
    private var endedOnTheirOwn: [UInt32: ChildProcess.ExitStatus] = [:]
    /// How the runtime says an incarnation ended on its own: `{"kind":"ended","code":N}`.
    static let endedPrefix = Array(#"{"kind":"ended","code":"#.utf8)
    private var open: Set<UInt32> = []
    /// What the host said as itself (context 0): it broke the framing, and ends.
    private(set) var problem: String?
    /// The host asked to be replaced (`{"kind":"retire"}` as itself): its heap is half full
    /// with what the incarnations it ran kept, which node never frees.
    private(set) var retiring = false
    static let retireFrame = Array(#"{"kind":"retire"}"#.utf8)

    /// The largest frame it may send: a background's, with the incarnation's number.
    static let replyLimit = Framing.requestLimit + 4

    /// Starts `command` (on another thread: the first `open` waits for it).
    init(command: ProcessExecutables.Command) {
        self.command = command
        let failure = spawnFailure
        starting = StartingProcess {
            do { return try ChildProcess(executable: command.path, arguments: command.arguments, environment: command.environment, replyLimit: ContextHost.replyLimit) } catch {
                failure.error.withLock { $0 = error as? ChildProcess.SpawnError }
                return nil
            }
        }
    }

    private final class SpawnFailure: Sendable {
        let error = Mutex<ChildProcess.SpawnError?>(nil)
    }

    private var process: ChildProcess? { starting.child }

    /// How many incarnations it has opened.
    var opened: Int { Int(nextContext) - 1 }

    /// Whether the host is still there to open incarnations in.
    var isRunning: Bool { problem == nil && process?.isRunning == true }

    /// Opens the next incarnation with `arguments`; its `hello` is its first frame. A host that
    /// could not start says why (`ChildProcess.SpawnError`, naming node).
    func open(arguments: [String], role: WireProtocol.Role) throws -> HostedContext {
        if process == nil, let error = spawnFailure.error.withLock({ $0 }) { throw error }
        let id = nextContext
        nextContext += 1
        open.insert(id)
        try send(JSONWriter.compact(.object(["kind": .string("open"), "arguments": .array(arguments.map(JSONValue.string))])), to: id)
        return HostedContext(host: self, id: id, role: role)
    }

    func send(_ json: [UInt8], to id: UInt32, timeoutMilliseconds: Int? = nil) throws(FrameError) {
        guard let process else { throw .closed }
        try process.send(Self.number(id) + json, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The next frame from incarnation `id`; nil when the host ended.
    func receive(from id: UInt32, timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]? {
        if let frame = waiting[id]?.first {
            waiting[id]!.removeFirst()
            return frame
        }
        if endedOnTheirOwn[id] != nil { return nil }
        guard let process else { return nil }
        let deadline = timeoutMilliseconds.map { DispatchTime.now().uptimeNanoseconds + UInt64($0) * 1_000_000 }
        while true {
            let left = deadline.map { Int(($0 &- min($0, DispatchTime.now().uptimeNanoseconds)) / 1_000_000) }
            guard let payload = try process.receive(timeoutMilliseconds: left) else { return nil }
            // The incarnation's number is the first 4 bytes of every frame.
            guard payload.count >= 4 else { throw .truncatedPayload(expected: 4, received: payload.count) }
            let from = UInt32(payload[0]) | UInt32(payload[1]) << 8 | UInt32(payload[2]) << 16 | UInt32(payload[3]) << 24
            let json = Array(payload[4...])
            if json.starts(with: Self.endedPrefix) {
                let code = Int32(String(decoding: json.dropFirst(Self.endedPrefix.count).prefix { $0 != UInt8(ascii: "}") }, as: UTF8.self)) ?? 1
                endedOnTheirOwn[from] = .exited(code)
                open.remove(from)
                if from == id { return nil }
                continue
            }
            if from == id { return json }
            if from == 0 {
                if json == Self.retireFrame {
                    retiring = true
                    continue
                }
                problem = String(decoding: json.prefix(1000), as: UTF8.self)
                return nil
            }
            // Another incarnation's (a spare's hello): kept for when it is read; one that has
            // ended has no reader.
            if open.contains(from) { waiting[from, default: []].append(json) }
        }
    }

    /// How incarnation `id` ended on its own, if it did.
    func endedOnItsOwn(_ id: UInt32) -> ChildProcess.ExitStatus? { endedOnTheirOwn[id] }

    /// Whether incarnation `id` is open: not ended by the harness, in a host still running.
    func isOpen(_ id: UInt32) -> Bool { open.contains(id) && isRunning }

    /// Ends incarnation `id`'s input: the host drops it where it stands.
    func end(_ id: UInt32) {
        guard open.remove(id) != nil else { return }
        waiting[id] = nil
        try? send([], to: id, timeoutMilliseconds: ProcessDriver.frameTimeout)
    }

    /// Ends every incarnation still open (a run is over).
    func endAll() {
        for id in open.sorted() { end(id) }
    }

    /// Kills the host, and with it every incarnation in it: for one that stopped answering.
    func kill() {
        process?.kill()
    }

    func wait(timeoutMilliseconds: Int? = nil) -> ChildProcess.ExitStatus? {
        guard let process else { return .unknown }
        guard let timeoutMilliseconds else { return process.wait() }
        return process.wait(timeoutMilliseconds: timeoutMilliseconds)
    }

    var stderrTail: String { process?.stderrTail ?? "the host could not be started: \(command.path)" }

    private static func number(_ id: UInt32) -> [UInt8] {
        [UInt8(id & 0xff), UInt8(id >> 8 & 0xff), UInt8(id >> 16 & 0xff), UInt8(id >> 24)]
    }
}

/// One incarnation in a `ContextHost`, spoken to as a process of its own would be.
final class HostedContext: FrameEndpoint {
    private let host: ContextHost
    private let id: UInt32
    private let role: WireProtocol.Role
    private var awaitingHello = true
    private var refusal: FrameError?
    /// How it ended for the harness: killed, or its input closed.
    private var ended: ChildProcess.ExitStatus?
    /// A read or a write timed out: the host may be stuck in a script, or its input hold part of
    /// a frame, so a kill kills the host.
    private var stuck = false

    init(host: ContextHost, id: UInt32, role: WireProtocol.Role) {
        self.host = host
        self.id = id
        self.role = role
    }

    func sendMessage(_ message: ToChild, timeoutMilliseconds: Int?) throws(FrameError) {
        try sendMessage(message, members: [:], timeoutMilliseconds: timeoutMilliseconds)
    }

    func sendMessage(_ message: ToChild, members: [String: JSONValue], timeoutMilliseconds: Int?) throws(FrameError) {
        guard ended == nil, host.isOpen(id) else { throw .closed }
        do { try host.send(Self.frame(message, members: members), to: id, timeoutMilliseconds: timeoutMilliseconds) } catch {
            // Part of the frame may be in the host's input, which every incarnation shares.
            if case .timedOut = error { stuck = true }
            throw error
        }
    }

    func awaitHello(timeoutMilliseconds: Int) throws(FrameError) -> Bool {
        try hello(timeoutMilliseconds)
    }

    private func hello(_ timeoutMilliseconds: Int?) throws(FrameError) -> Bool {
        guard ended == nil else { return false }
        if awaitingHello {
            guard let first = try read(timeoutMilliseconds) else { return false }
            awaitingHello = false
            if let problem = ChildProcess.handshakeProblem(first, role: role, executable: host.command.path) {
                refusal = .handshake(problem)
            }
        }
        if let refusal { throw refusal }
        return true
    }

    func receiveMessage(timeoutMilliseconds: Int?) throws(FrameError) -> ReceivedFrame? {
        guard try hello(timeoutMilliseconds), let frame = try read(timeoutMilliseconds) else { return nil }
        do { return .message(try FromChild.decode(frame, role: role)) } catch { return .invalid(error) }
    }

    private func read(_ timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]? {
        do { return try host.receive(from: id, timeoutMilliseconds: timeoutMilliseconds) } catch {
            if case .timedOut = error { stuck = true }
            throw error
        }
    }

    func closeInput() { end(.exited(0)) }

    func kill() {
        if stuck && ended == nil { host.kill() }
        end(.signaled(SIGKILL))
    }

    private func end(_ status: ChildProcess.ExitStatus) {
        guard ended == nil else { return }
        ended = status
        host.end(id)
    }

    func freeze() throws {}
    func thaw() {}

    /// How it ended: as the harness ended it, or as the host did.
    func wait() -> ChildProcess.ExitStatus { ended ?? host.endedOnItsOwn(id) ?? host.wait() ?? .unknown }
    func wait(timeoutMilliseconds: Int) -> ChildProcess.ExitStatus? {
        ended ?? host.endedOnItsOwn(id) ?? host.wait(timeoutMilliseconds: timeoutMilliseconds)
    }
    var isRunning: Bool { ended == nil && host.isOpen(id) }
    var stderrTail: String { host.problem ?? host.stderrTail }
}

/// Hosts kept between runs, so that a harness running scenario after scenario (or seed after
/// seed, on each worker) starts node once for many: a run takes one (`take`), and gives it back
/// when it is over (`give`), with its incarnations ended. At most `kept` wait, the oldest ended
/// first; each ends by itself when the harness does (its input closes).
///
/// A host that has opened `retiredAfter` incarnations, or asked to be replaced (`retiring`), is
/// replaced when it is given back: node 20 never collects a context that ran an ES module (its
/// `SourceTextModule` keeps it), so a host running module backgrounds grows by about 1.5 MB an
/// incarnation, and slows as its heap does, and one whose backgrounds kept much would run out of
/// memory. The replacement starts at once, so the next run finds it ready.
enum ContextHostPool {
    private static let idle = Mutex<[ContextHost]>([])
    static let kept = 4
    static let retiredAfter = 40

    /// A host running `command`: one given back, or a new one.
    static func take(_ command: ProcessExecutables.Command) -> ContextHost {
        let reused: ContextHost? = idle.withLock { hosts in
            guard let index = hosts.lastIndex(where: { $0.command == command }) else { return nil }
            return hosts.remove(at: index)
        }
        if let reused, reused.isRunning { return reused }
        reused?.kill()
        return ContextHost(command: command)
    }

    static func give(_ host: ContextHost) {
        host.endAll()
        guard host.isRunning else {
            host.kill()
            return
        }
        var next = host
        if host.opened >= retiredAfter || host.retiring {
            host.kill()
            next = ContextHost(command: host.command)
        }
        let dropped: [ContextHost] = idle.withLock { hosts in
            hosts.append(next)
            let over = max(0, hosts.count - kept)
            defer { hosts.removeFirst(over) }
            return Array(hosts.prefix(over))
        }
        for old in dropped { old.kill() }
    }
}
