#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings
import Synchronization

/// A process of ours run in the harness's own process: the same shell, machine and executor as
/// the executable, on a dedicated thread, with its storage on a simulated disk. It takes the
/// same messages as a child in the same order, passed as values over a `MessageChannel` rather
/// than encoded into frames on a pipe, and it blocks at yield points exactly as a child does, so
/// the harness can hold, resume, fail or kill it the same way and the trace comes out the same.
///
/// A kill closes the channel: the shell then sees the harness gone, every later step fails and
/// it sends nothing, so nothing happens after the point where it was killed, as with SIGKILL.
/// Freezing is the harness's business (it delivers nothing to a frozen process): no-ops here.
public final class InProcessChild: FrameEndpoint {
    private let channel = MessageChannel()
    private var thread: pthread_t?
    /// The shell's exit status once its thread has ended.
    private let outcome = Outcome()
    private var killed = false
    private var inputClosed = false
    /// The largest frame it may send, as `ChildProcess`'s `replyLimit`: checked on a handler's
    /// answer (a native reply is capped at 1 MiB), the only one that can come near it.
    private let limit: Int
    /// A yield point this endpoint answers by itself and hides from the harness: only for
    /// proving that the transport-equality check notices one missing point.
    private let hiddenYield: YieldPoint?

    /// Starts `body` on its own thread with the gate it should serve messages through.
    public init(limit: Int = Framing.replyLimit, hidingYield hiddenYield: YieldPoint? = nil, _ body: @escaping @Sendable (WireGate) -> Int32) throws {
        self.limit = limit
        self.hiddenYield = hiddenYield
        let channel = self.channel
        let outcome = self.outcome
        let run = Box {
            let status = body(WireGate(channel: channel))
            outcome.status.withLock { $0 = status }
            channel.shellEnded()
        }
        var handle = pthread_t()
        let context = Unmanaged.passRetained(run).toOpaque()
        let created = pthread_create(&handle, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            throw StoreError("pthread_create", errno: created)
        }
        thread = handle
    }

    deinit { kill() }

    public func sendMessage(_ message: ToChild, timeoutMilliseconds: Int?) throws(FrameError) {
        guard !inputClosed, channel.send(message) else { throw .closed }
    }

    public func receiveMessage(timeoutMilliseconds: Int?) throws(FrameError) -> ReceivedFrame? {
        while true {
            switch channel.receive(waitingUpTo: timeoutMilliseconds) {
            case .ended:
                return nil
            case .timedOut:
                throw .timedOut(milliseconds: timeoutMilliseconds ?? 0)
            case .message(.yield(let point, _)) where point == hiddenYield:
                _ = channel.send(.proceed(now: 0))
            case .message(let message):
                if limit < Framing.requestLimit, case .done = message {
                    let length = JSONWriter.compact(message.json).count
                    if length > limit { throw .tooLarge(length: length, limit: limit) }
                }
                return .message(message)
            }
        }
    }

    /// The byte form, for a caller that speaks frames: decoded and encoded around the messages.
    /// Bytes that are no message cannot be passed as one: an error, as a pipe's would be.
    public func send(_ payload: [UInt8], timeoutMilliseconds: Int?) throws(FrameError) {
        guard let message = try? ToChild.decode(payload) else { throw .io(errno: EINVAL) }
        try sendMessage(message, timeoutMilliseconds: timeoutMilliseconds)
    }

    public func receive(timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]? {
        guard case .message(let message)? = try receiveMessage(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        return JSONWriter.compact(message.json)
    }

    public func closeInput() {
        guard !inputClosed else { return }
        inputClosed = true
        channel.closeInput()
    }

    /// Ends it at once: the channel closes, the thread unwinds without touching storage, and is joined.
    public func kill() {
        guard thread != nil else { return }
        killed = true
        inputClosed = true
        channel.close()
        join()
    }

    public func freeze() throws {}
    public func thaw() {}

    public func wait() -> ChildProcess.ExitStatus {
        join()
        if killed { return .signaled(SIGKILL) }
        return .exited(outcome.status.withLock { $0 } ?? 0)
    }

    public func wait(timeoutMilliseconds: Int) -> ChildProcess.ExitStatus? {
        var waited = 0
        while outcome.status.withLock({ $0 }) == nil && !killed {
            if waited >= timeoutMilliseconds { return nil }
            usleep(1000)
            waited += 1
        }
        return wait()
    }

    public var isRunning: Bool { thread != nil && outcome.status.withLock { $0 } == nil }
    public var stderrTail: String { "" }

    private func join() {
        guard let handle = thread else { return }
        pthread_join(handle, nil)
        thread = nil
    }

    private final class Outcome: Sendable {
        let status = Mutex<Int32?>(nil)
    }

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
