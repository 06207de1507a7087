#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings
import Synchronization

/// A process of ours run in the harness's own process: the same shell, machine and executor as
/// the executable, on a dedicated thread, speaking the same frames over a pair of pipes, with
/// its storage on a simulated disk. It blocks at yield points exactly as a child does, so the
/// harness can hold, resume, fail or kill it the same way and the trace comes out the same.
///
/// A kill closes its pipes: the shell then sees the harness gone, every later step fails and it
/// sends nothing, so nothing happens after the point where it was killed, as with SIGKILL.
/// Freezing is the harness's business (it delivers nothing to a frozen process): no-ops here.
public final class InProcessChild: FrameEndpoint {
    private let toChild: Int32
    private let fromChild: Int32
    private var reader: FrameReader
    private let writer: FrameWriter
    private var thread: pthread_t?
    /// The shell's exit status once its thread has ended.
    private let outcome = Outcome()
    private var killed = false
    private var inputClosed = false
    /// A yield point this endpoint answers by itself and hides from the harness: only for
    /// proving that the transport-equality check notices one missing point.
    private let hiddenYield: YieldPoint?

    /// Starts `body` on its own thread with the gate it should serve frames through.
    /// `limit` caps frames read from it, as `ChildProcess`'s `replyLimit` does.
    public init(limit: Int = Framing.replyLimit, hidingYield hiddenYield: YieldPoint? = nil, _ body: @escaping @Sendable (WireGate) -> Int32) throws {
        self.hiddenYield = hiddenYield
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { throw StoreError("pipe", errno: errno) }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            throw StoreError("pipe", errno: errno)
        }
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        toChild = input[1]
        fromChild = output[0]
        reader = FrameReader(descriptor: output[0], limit: limit)
        writer = FrameWriter(descriptor: input[1])
        let childIn = input[0], childOut = output[1]
        let outcome = self.outcome
        let run = Box {
            let gate = WireGate(reader: FrameReader(descriptor: childIn, limit: Framing.requestLimit), writer: FrameWriter(descriptor: childOut))
            let status = body(gate)
            close(childIn)
            close(childOut)
            outcome.status.withLock { $0 = status }
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

    deinit {
        kill()
        close(fromChild)
    }

    public func send(_ payload: [UInt8], timeoutMilliseconds: Int?) throws(FrameError) {
        guard !inputClosed else { throw .closed }
        if let timeoutMilliseconds { try writer.write(payload, timeoutMilliseconds: timeoutMilliseconds) } else { try writer.write(payload) }
    }

    public func receive(timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]? {
        while true {
            let frame = if let timeoutMilliseconds { try reader.next(timeoutMilliseconds: timeoutMilliseconds) } else { try reader.next() }
            guard let hiddenYield, let frame, case .yield(hiddenYield, _)? = try? FromChild.decode(frame) else { return frame }
            try writer.write(JSONWriter.compact(ToChild.proceed(now: 0).json))
        }
    }

    public func closeInput() {
        guard !inputClosed else { return }
        inputClosed = true
        close(toChild)
    }

    /// Ends it at once: its input closes, the thread unwinds without touching storage, and is joined.
    public func kill() {
        guard thread != nil else { return }
        killed = true
        closeInput()
        // Drain what it still writes so it never blocks on a full pipe while unwinding.
        var scratch = [UInt8](repeating: 0, count: 65_536)
        while outcome.status.withLock({ $0 }) == nil {
            let n = scratch.withUnsafeMutableBytes { read(fromChild, $0.baseAddress, $0.count) }
            if n <= 0 { break }
        }
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
