import ProcessKit
import SiteSettings

/// One of our processes as the harness speaks to it: frames in and out, kill, freeze, reap. A
/// real child process (the process transport) or a shell the harness steps itself over a
/// simulated disk (the in-process transport); the harness cannot tell them apart.
protocol FrameEndpoint: AnyObject {
    /// A child process encodes each message to a frame on its pipe, and decodes what comes
    /// back; a stepped shell takes and gives them as values.
    func sendMessage(_ message: ToChild, timeoutMilliseconds: Int?) throws(FrameError)
    /// The same, with members the frame carries beside the message's own (`tabIds`, which only
    /// an extension's JavaScript reads); a stepped shell, which reads values, takes the message.
    func sendMessage(_ message: ToChild, members: [String: JSONValue], timeoutMilliseconds: Int?) throws(FrameError)
    /// The next message, `.invalid` for a frame that is not one, nil at the end of the output.
    func receiveMessage(timeoutMilliseconds: Int?) throws(FrameError) -> ReceivedFrame?
    /// Reads the process's `hello`, unless it was read: true once it came, false when its
    /// output ended first; one that is not the role's `hello` in this version is `.handshake`.
    func awaitHello(timeoutMilliseconds: Int) throws(FrameError) -> Bool
    /// The process sees the end of its input.
    func closeInput()
    func kill()
    func freeze() throws
    func thaw()
    func wait() -> ChildProcess.ExitStatus
    func wait(timeoutMilliseconds: Int) -> ChildProcess.ExitStatus?
    var isRunning: Bool { get }
    var stderrTail: String { get }
}

extension FrameEndpoint {
    func sendMessage(_ message: ToChild, members: [String: JSONValue], timeoutMilliseconds: Int?) throws(FrameError) {
        try sendMessage(message, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A message's frame with `members` beside its own.
    static func frame(_ message: ToChild, members: [String: JSONValue]) -> [UInt8] {
        guard !members.isEmpty, case .object(let own) = message.json else { return JSONWriter.compact(message.json) }
        return JSONWriter.compact(.object(own.merging(members) { mine, _ in mine }))
    }

    /// Its status once it ends: reaped within the frame timeout, or else killed (`killed`) and
    /// reaped.
    func reap() -> (status: ChildProcess.ExitStatus, killed: Bool) {
        if let status = wait(timeoutMilliseconds: ProcessDriver.frameTimeout) { return (status, false) }
        kill()
        return (wait(), true)
    }
}

/// A frame from a process as the harness reads it.
enum ReceivedFrame: Equatable, Sendable {
    case message(FromChild)
    case invalid(WireError)
}

extension ChildProcess: FrameEndpoint {
    func awaitHello(timeoutMilliseconds: Int) throws(FrameError) -> Bool {
        try awaitHello(timeoutMilliseconds: Optional(timeoutMilliseconds))
    }

    func sendMessage(_ message: ToChild, timeoutMilliseconds: Int?) throws(FrameError) {
        try send(JSONWriter.compact(message.json), timeoutMilliseconds: timeoutMilliseconds)
    }

    func sendMessage(_ message: ToChild, members: [String: JSONValue], timeoutMilliseconds: Int?) throws(FrameError) {
        try send(Self.frame(message, members: members), timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The next frame, read with the codec of the child's role.
    func receiveMessage(timeoutMilliseconds: Int?) throws(FrameError) -> ReceivedFrame? {
        guard let frame = try receive(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        guard let role else { return .invalid(.invalid("a child started without a role has no codec")) }
        do { return .message(try FromChild.decode(frame, role: role)) } catch { return .invalid(error) }
    }
}
