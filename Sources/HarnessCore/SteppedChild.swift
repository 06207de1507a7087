#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// The app or a native handler run by the harness itself, message by message, on the
/// harness's own thread (the in-process transport): each message it is sent is answered at once
/// by its stepped shell, which keeps its place between them, so a process held at a yield point
/// simply waits there. The messages, their order and the trace are those of the process.
///
/// A kill drops the shell where it stands: nothing after that point happens, as with SIGKILL.
final class SteppedChild<Machine: ContainerMachine, Storage: ContainerStorage>: FrameEndpoint {
    private var shell: SteppedShell<Machine, Storage>
    private var answers: [FromChild] = []
    private var killed = false
    private var inputClosed = false
    /// The largest frame it may send, as `ChildProcess`'s `replyLimit`: checked on a handler's
    /// answer (a native reply is capped at 1 MiB), the only one that can come near it.
    private let limit: Int
    /// A yield point answered here and hidden from the harness: only for proving that the
    /// transport-equality check notices one missing point.
    private let hiddenYield: YieldPoint?

    init(_ shell: SteppedShell<Machine, Storage>, limit: Int, hidingYield hiddenYield: YieldPoint?) {
        self.shell = shell
        self.limit = limit
        self.hiddenYield = hiddenYield
    }

    func sendMessage(_ message: ToChild, timeoutMilliseconds: Int?) throws(FrameError) {
        guard !inputClosed, !killed, !shell.ended else { throw .closed }
        var answer = shell.take(message)
        while case .yield(let point, _) = answer, point == hiddenYield { answer = shell.take(.proceed(now: 0)) }
        answers.append(answer)
    }

    func receiveMessage(timeoutMilliseconds: Int?) throws(FrameError) -> ReceivedFrame? {
        guard !killed else { return nil }
        guard !answers.isEmpty else {
            // Every message gets its answer at once: none waiting means none is coming.
            if shell.ended || inputClosed { return nil }
            throw .timedOut(milliseconds: timeoutMilliseconds ?? 0)
        }
        let answer = answers.removeFirst()
        if limit < Framing.requestLimit, case .done = answer {
            let length = JSONWriter.compact(answer.json).count
            if length > limit { throw .tooLarge(length: length, limit: limit) }
        }
        return .message(answer)
    }

    /// The byte form, for a caller that speaks frames.
    func send(_ payload: [UInt8], timeoutMilliseconds: Int?) throws(FrameError) {
        guard let message = try? ToChild.decode(payload) else { throw .io(errno: EINVAL) }
        try sendMessage(message, timeoutMilliseconds: timeoutMilliseconds)
    }

    func receive(timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]? {
        guard case .message(let message)? = try receiveMessage(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        return JSONWriter.compact(message.json)
    }

    func closeInput() { inputClosed = true }
    func kill() { killed = true }
    func freeze() throws {}
    func thaw() {}

    /// As the process would end: killed, done after its one request (the handler), or at the
    /// end of its input.
    func wait() -> ChildProcess.ExitStatus {
        if killed { return .signaled(SIGKILL) }
        return .exited(shell.ended ? ChildExit.success : ChildExit.harnessGone)
    }

    func wait(timeoutMilliseconds: Int) -> ChildProcess.ExitStatus? { wait() }
    var isRunning: Bool { !killed && !shell.ended && !inputClosed }
    var stderrTail: String { "" }
}
