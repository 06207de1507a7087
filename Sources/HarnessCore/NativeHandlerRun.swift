import ProcessKit
import SiteSettings

/// One native request served by a real `NativeHandler` process, as Safari starts one per
/// `sendNativeMessage`: spawn, send the request, answer each yield point, read the directives,
/// reap. The caller decides at each yield point whether the handler goes on, fails the step, or
/// is killed there.
public struct NativeHandlerRun {
    /// What the harness does at a yield point.
    public enum Decision: Equatable, Sendable {
        case proceed
        case fail(errno: Int32)
        /// SIGKILL the handler while it waits at this point (a crash there).
        case kill
    }

    public struct Result: Sendable {
        /// The handler's answer, or nil when it was killed or died first.
        public var reply: JSONValue?
        public var notified: Bool
        /// The yield points reached, in order.
        public var yields: [YieldPoint]
        public var exit: ChildProcess.ExitStatus
        /// Error frames the handler sent (frames it could not read).
        public var errors: [String]
        public var stderrTail: String
    }

    public let executable: String
    public let container: String
    /// How long to wait for any one frame before treating the handler as hung (wall time).
    public var frameTimeoutMilliseconds = 10_000

    public init(executable: String, container: String) {
        self.executable = executable
        self.container = container
    }

    public func run(_ message: JSONValue, now: EpochMillis, seed: UInt64,
                    decide: (YieldPoint, Int) -> Decision = { _, _ in .proceed }) throws -> Result {
        let child = try ChildProcess(executable: executable, arguments: ["--container", container])
        defer { if child.isRunning { child.kill() } }
        var result = Result(reply: nil, notified: false, yields: [], exit: .exited(0), errors: [], stderrTail: "")
        try child.send(JSONWriter.compact(ToChild.input(NativeHandlerWire.input(message), now: now, seed: seed, flaws: []).json))
        reading: while let frame = try child.receive(timeoutMilliseconds: frameTimeoutMilliseconds) {
            switch try FromChild.decode(frame) {
            case .yield(let point, let seq):
                result.yields.append(point)
                switch decide(point, seq) {
                case .proceed:
                    try child.send(JSONWriter.compact(ToChild.proceed(now: now).json))
                case .fail(let errno):
                    try child.send(JSONWriter.compact(ToChild.fail(errno: errno, now: now).json))
                case .kill:
                    child.kill()
                    break reading
                }
            case .done(let directives):
                for directive in directives {
                    guard case .object(let members) = directive else { continue }
                    if members["type"] == .string("reply") { result.reply = members["message"] }
                    if members["type"] == .string("notify") { result.notified = true }
                }
            case .error(let message):
                result.errors.append(message)
            }
        }
        child.closeInput()
        // A handler that does not exit after its answer is a bug; it is killed, not waited for.
        if let status = child.wait(timeoutMilliseconds: frameTimeoutMilliseconds) {
            result.exit = status
        } else {
            child.kill()
            result.exit = child.wait()
        }
        result.stderrTail = child.stderrTail
        return result
    }
}
