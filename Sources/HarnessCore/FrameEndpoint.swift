import ProcessKit

/// One of our processes as the harness speaks to it: frames in and out, kill, freeze, reap. A
/// real child process (the process transport) or a shell running on a thread of the harness
/// over a simulated disk (the in-process transport); the harness cannot tell them apart.
public protocol FrameEndpoint: AnyObject {
    func send(_ payload: [UInt8], timeoutMilliseconds: Int?) throws(FrameError)
    func receive(timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]?
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

extension ChildProcess: FrameEndpoint {}
