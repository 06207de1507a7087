import ProcessKit
import SiteSettings
import Synchronization

/// One free-running process of a soak: started with `--free`, it never stops at a yield point,
/// so an exchange is one input frame and its `done` frame. A kill from another thread at any
/// moment ends the exchange as a death.
final class SoakChild: Sendable {
    /// How an input ended.
    enum Outcome: Sendable {
        case done(ShellDirectives)
        /// The process ended before it answered: killed, or on its own.
        case died(ChildProcess.ExitStatus)
    }

    /// How long one input may take before the process counts as hung. Free-running processes
    /// answer in milliseconds; only a lock that is never released could make them wait this long.
    static let answerTimeout = 10_000

    let label: String
    let process: ChildProcess
    private let log: SoakLog
    private let group: ChildGroup
    private let flaws: [String]
    /// The role whose codec reads its frames.
    private let role: WireProtocol.Role
    /// Whether the soak killed it (`kill`): a fault, Safari's kill, or one that hung.
    private let killedBySoak = Atomic<Bool>(false)

    /// Starts `executable` free-running; in `group` while this lives, so that the run's end
    /// kills it, and out of it afterwards, so that a long soak does not keep every pipe it opened.
    /// As in a run, it finds the container as its configuration folder (`XDG_CONFIG_HOME`).
    init(_ role: ProcessName, of executables: ProcessExecutables, _ arguments: [String], container: String, label: String, group: ChildGroup, log: SoakLog,
         flaws: [String], replyLimit: Int = Framing.requestLimit) throws(ChildProcess.SpawnError) {
        process = try executables.start(role, arguments + ["--free"], replyLimit: replyLimit, environment: ["XDG_CONFIG_HOME": container], in: group)
        self.role = role.wireRole
        self.label = label
        self.log = log
        self.group = group
        self.flaws = flaws
    }

    deinit {
        group.remove(process)
    }

    /// Kills it with SIGKILL, as the soak's own doing: a death the soak caused.
    func kill() {
        killedBySoak.store(true, ordering: .sequentiallyConsistent)
        process.kill()
    }

    /// Whether the soak killed it.
    var wasKilled: Bool { killedBySoak.load(ordering: .sequentiallyConsistent) }

    /// Sends one input and waits for its answer; reports the lock waits the process measured.
    func exchange(_ input: ChildInput, now: EpochMillis, seed: UInt64) -> Outcome {
        do {
            try process.send(JSONWriter.compact(ToChild.input(input, now: now, uptime: now - SoakClock.epoch, seed: seed, flaws: flaws).json), timeoutMilliseconds: Self.answerTimeout)
        } catch {
            return died()
        }
        while true {
            let frame: [UInt8]?
            do { frame = try process.receive(timeoutMilliseconds: Self.answerTimeout) } catch .timedOut {
                log.violation("\(label) gave no answer within \(Self.answerTimeout / 1000) s (a lock never released?)")
                kill()
                return died()
            } catch {
                kill()
                return died()
            }
            guard let frame else { return died() }
            switch try? FromChild.decode(frame, role: role) {
            case .done(let directives, let waits)?:
                log.lockWaits(waits)
                return .done(directives)
            case .yield(let point, _)?:
                log.violation("\(label) stopped at yield point \(point.rawValue) although it runs free")
                kill()
                return died()
            case .error(let message)?:
                log.violation("\(label) could not read its input: \(message)")
            case .log(let level, let message, let at)?:
                log.note("\(label) console.\(level.rawValue) \(message)\(at.map { " (\($0))" } ?? "")")
            case nil, .hello?:
                // (The hello came first, read by the process's `receive`.)
                log.violation("\(label) sent a frame that is not a protocol message or a directive the harness cannot read")
            }
        }
    }

    private func died() -> Outcome {
        .died(process.wait(timeoutMilliseconds: Self.answerTimeout) ?? {
            kill()
            return process.wait()
        }())
    }
}
