import ProcessKit
import SiteSettings

/// One native request served by a real `NativeHandler` process, as Safari starts one per
/// `sendNativeMessage`: spawn, send the request, answer each yield point, read the directives,
/// reap. The caller decides at each yield point whether the handler goes on, fails the step, or
/// is killed there. Built on `ProcessDriver`, like the simulation's handlers.
package struct NativeHandlerRun {
    /// What the harness does at a yield point.
    package enum Decision: Equatable, Sendable {
        case proceed
        case fail(errno: Int32)
        /// SIGKILL the handler while it waits at this point (a crash there).
        case kill
    }

    package struct Result: Sendable {
        /// The handler's answer, or nil when it was killed or died first.
        package var reply: JSONValue?
        var notified: Bool
        /// The yield points reached, in order.
        var yields: [YieldPoint]
        var exit: ChildProcess.ExitStatus
        /// Error frames the handler sent (frames it could not read).
        var errors: [String]
        package var stderrTail: String
    }

    let executable: String
    let container: String

    package init(executable: String, container: String) {
        self.executable = executable
        self.container = container
    }

    /// `decide` gets each yield point and its position (1 for the first).
    package func run(_ message: JSONValue, now: EpochMillis, seed: UInt64,
                    decide: @escaping (YieldPoint, Int) -> Decision = { _, _ in .proceed }) throws -> Result {
        let trace = Trace()
        let driver = ProcessDriver(name: .handler, incarnation: 1,
                                   endpoint: try ChildProcess(executable: executable, arguments: ["--container", container], role: .handler),
                                   seed: seed, trace: trace)
        var yields: [YieldPoint] = []
        driver.policy = { point in
            yields.append(point)
            switch decide(point, yields.count) {
            case .proceed: return .proceed
            case .fail(let errno): return .fail(errno: errno)
            case .kill: return .kill
            }
        }
        var result = Result(reply: nil, notified: false, yields: [], exit: .exited(0), errors: [], stderrTail: "")
        if case .finished(.handler(let directives)) = driver.begin(.handler(.requestArrived(message)), now: now) {
            for directive in directives {
                switch directive {
                case .reply(let reply): result.reply = reply.json
                case .answer(let answer): result.reply = answer
                case .cancel, .neverCompleted, .dispatchMessage: break
                case .postChangeNotification: result.notified = true
                }
            }
        }
        result.exit = driver.finish()
        result.yields = yields
        result.errors = trace.lines.compactMap { line in line.firstRange(of: " error frame: ").map { String(line[$0.upperBound...]) } }
        result.stderrTail = driver.child.stderrTail
        return result
    }
}
