#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// One of our processes run by the harness itself, message by message, on the harness's own
/// thread (the in-process transport): each message it is sent is answered at once by its
/// stepped shell, which keeps its place between them, so a process held at a yield point simply
/// waits there. The messages, their order and the trace are those of the process.
///
/// A kill drops the shell where it stands: nothing after that point happens, as with SIGKILL.
///
/// The shell is kept behind two closures made where its type is known, so that the harness,
/// which holds any endpoint, still runs code compiled for that shell.
///
/// Its frames are handed over as values. A process on a pipe reads and gives what its role's
/// codec reads back from what was written, so a debug build (the tests) reads each input and
/// each `done` frame back from its JSON here, and one that reads back as another is an invalid
/// frame, which fails the run (by `==`, so up to the canonical equivalence of strings). A
/// release build trusts the codecs the tests hold to that.
final class SteppedChild: FrameEndpoint {
    private let take: (ToChild) -> FromChild
    private let shellEnded: () -> Bool
    private var answers: [ReceivedFrame] = []
    private let role: WireProtocol.Role
    private var killed = false
    private var inputClosed = false
    /// The largest frame it may send, as `ChildProcess`'s `replyLimit`: checked on a handler's
    /// answer (a native reply is capped at 1 MiB), the only one that can come near it.
    private let limit: Int
    /// A yield point answered here and hidden from the harness: only for proving that the
    /// transport-equality check notices one missing point.
    private let hiddenYield: YieldPoint?

    init<Shell: SteppedProcess>(_ shell: Shell, role: WireProtocol.Role, limit: Int = Framing.replyLimit, hidingYield hiddenYield: YieldPoint? = nil) {
        self.role = role
        let box = Box(shell)
        take = { box.shell.take($0) }
        shellEnded = { box.shell.ended }
        self.limit = limit
        self.hiddenYield = hiddenYield
    }

    private final class Box<Shell> {
        var shell: Shell
        init(_ shell: Shell) { self.shell = shell }
    }

    func sendMessage(_ message: ToChild, timeoutMilliseconds: Int?) throws(FrameError) {
        guard !inputClosed, !killed, !shellEnded() else { throw .closed }
        #if DEBUG
        if case .input = message, (try? ToChild.decode(JSONWriter.compact(message.json), role: role)) != message {
            answers.append(.invalid(.invalid("the input for it, written out by its codec, reads back as another: \(String(decoding: JSONWriter.compact(message.json), as: UTF8.self))")))
        }
        #endif
        var answer = take(message)
        while case .yield(let point, _) = answer, point == hiddenYield { answer = take(.proceed(now: 0)) }
        answers.append(checked(answer))
    }

    /// The frame, or in a debug build an invalid one when it does not read back as itself.
    private func checked(_ answer: FromChild) -> ReceivedFrame {
        #if DEBUG
        if answer.carriesDirectives, (try? FromChild.decode(JSONWriter.compact(answer.json), role: role)) != answer {
            return .invalid(.invalid("its directives, written out by its codec, read back as others: \(String(decoding: JSONWriter.compact(answer.json), as: UTF8.self))"))
        }
        #endif
        return .message(answer)
    }

    func receiveMessage(timeoutMilliseconds: Int?) throws(FrameError) -> ReceivedFrame? {
        guard !killed else { return nil }
        guard !answers.isEmpty else {
            // Every message gets its answer at once: none waiting means none is coming.
            if shellEnded() || inputClosed { return nil }
            throw .timedOut(milliseconds: timeoutMilliseconds ?? 0)
        }
        let received = answers.removeFirst()
        if limit < Framing.requestLimit, case .message(let answer) = received, answer.carriesDirectives {
            // As long as the frame the process would write.
            let length = JSONWriter.compactCount(answer.json)
            if length > limit { throw .tooLarge(length: length, limit: limit) }
        }
        return received
    }

    /// A shell in process has nothing to say before its first input.
    func awaitHello(timeoutMilliseconds: Int) throws(FrameError) -> Bool { true }
    func closeInput() { inputClosed = true }
    func kill() { killed = true }
    func freeze() throws {}
    func thaw() {}

    /// As the process would end: killed, done after its one request (the handler), or at the
    /// end of its input.
    func wait() -> ChildProcess.ExitStatus {
        if killed { return .signaled(SIGKILL) }
        return .exited(shellEnded() ? ChildExit.success : ChildExit.harnessGone)
    }

    func wait(timeoutMilliseconds: Int) -> ChildProcess.ExitStatus? { wait() }
    var isRunning: Bool { !killed && !shellEnded() && !inputClosed }
    var stderrTail: String { "" }
}

extension FromChild {
    /// A `done` frame, written out or not.
    var carriesDirectives: Bool {
        switch self {
        case .done: true
        case .hello, .yield, .error, .log: false
        }
    }
}
