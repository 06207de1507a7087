#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ProcessKit
import SiteSettings

/// One incarnation of one of our processes (`app#1`, `background#3`, `handler#12`), spoken to in
/// the frame protocol one input at a time. At each yield point a policy decides whether the
/// process goes on, fails the step, is killed there, or is held there while others run.
package final class ProcessDriver {
    /// What the harness does at a yield point.
    enum YieldChoice: Equatable, Sendable {
        case proceed
        case fail(errno: Int32)
        /// The step takes effect, then fails with the errno.
        case failAfter(errno: Int32)
        case kill
        /// Leave the process waiting at this point; `resume` lets it go on later.
        case hold
    }

    /// Where an input left the process.
    package enum Step: Equatable, Sendable {
        /// It handled the input; these are the directives the harness carries out.
        case finished(Directives)
        /// It waits at this yield point.
        case held(YieldPoint)
        /// It died (killed at a yield point, or on its own).
        case died(ChildProcess.ExitStatus)
    }

    /// The directives a process gave for an input, read by its role's codec (or handed over
    /// as they are, in process).
    package typealias Directives = ShellDirectives

    /// How long (wall time) the harness waits for any one frame before it treats the process as
    /// hung and kills it. Longer than the JavaScript runtime's watchdog, so that a script that
    /// never yields is ended, and named, by its runtime first.
    static let frameTimeout = 15_000

    /// How a process ended when the harness did not end it: the cause invariant 18 names.
    package enum Death: Equatable, Sendable, CustomStringConvertible {
        /// It exited, or a signal ended it, as the system says.
        case status(ChildProcess.ExitStatus)
        /// Its JavaScript runtime ended it: a script's turn ran past the watchdog.
        case scriptDidNotYield(milliseconds: Int)
        /// Node ran out of the heap the harness gave it.
        case outOfMemory(heapLimitMiB: Int)
        /// It sent or took no frame for the frame timeout, and the harness killed it.
        case unresponsive(milliseconds: Int)

        /// How it ended, as the trace says it: `died unexpectedly (…)`.
        var ending: String {
            switch self {
            case .status(let status): "\(status)"
            case .scriptDidNotYield(let milliseconds): "a script did not yield within \(Self.duration(milliseconds)), and its runtime ended it"
            case .outOfMemory(let limit): "ran out of memory (heap limit \(limit) MiB)"
            case .unresponsive(let milliseconds): "sent nothing for \(Self.duration(milliseconds)), and the harness killed it"
            }
        }

        /// How a process that ended with `status`, having written `stderr`, died: named by the
        /// JavaScript runtime's `limits` when it is one of its processes, else as the system says.
        init(_ status: ChildProcess.ExitStatus, stderr: String, limits: ExtensionRuntime.Limits?) {
            self = limits?.death(status, stderr: stderr) ?? .status(status)
        }

        package var description: String {
            if case .scriptDidNotYield = self { return ending }
            return "it " + ending
        }

        private static func duration(_ milliseconds: Int) -> String {
            milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
        }
    }

    let name: ProcessName
    let incarnation: Int
    let child: FrameEndpoint
    private let trace: Trace
    private let seed: UInt64
    var policy: (YieldPoint) -> YieldChoice = { _ in .proceed }
    /// Known bugs to switch on in the process, sent with every input.
    var flaws: [String] = []
    /// Told when the process breaks the protocol (no `hello`, another version, a frame that
    /// is not one): the run fails with the message, which names the process.
    var protocolBroken: (String) -> Void = { _ in }
    /// The numbers of the front profile's tabs (`tabs.Tab.id`), by name, sent with each of the
    /// background's inputs.
    var tabIds: () -> [String: Int] = { [:] }
    /// The front window's active tab, which a background's frame names too (`activeTab`).
    var activeTab: () -> String? = { nil }
    /// Safari's windows as a background's frame names them too (`windows.*`, and each tab's
    /// `windowId`).
    var windows: () -> SafariWindows? = { nil }
    /// Told of each line a process's scripts logged (a JavaScript background's `log` frames),
    /// an exception or rejection they did not catch among them, with its place, at `now`.
    var logged: (_ level: FromChild.LogLevel, _ text: String, _ at: String?, _ now: EpochMillis) -> Void = { _, _, _, _ in }
    /// Told when the process died of itself, at `now`: an exit or a signal the harness did not
    /// send, or a kill because it stopped answering (every other death the harness causes is
    /// its kill), with how it ended.
    var diedOfItself: (_ death: Death, _ now: EpochMillis) -> Void = { _, _ in }
    /// For a process of the JavaScript runtime: its watchdog and heap limit, which name its
    /// deaths by them.
    var limits: ExtensionRuntime.Limits?
    /// Safari's monotonic time at a wall-clock time, which every input carries: milliseconds
    /// since the run began, less the device's sleep. A driver outside a run (the native
    /// fuzzer's) counts from the Unix epoch.
    var uptime: (EpochMillis) -> EpochMillis = { $0 }
    /// Whether the run still counts the process as alive: from its start until the harness saw
    /// it die, killed it or finished it. Decided by what the harness did and saw, never by
    /// asking the operating system, whose answer depends on timing (a handler that has sent its
    /// reply may or may not have exited yet), so the trace does not.
    private(set) var isAlive = true
    /// Whether the harness sent the process its SIGKILL, for a cause (a step, a fault, the end
    /// of the run, a broken protocol): a SIGKILL it did not send (the system's, out of memory) is
    /// a death of its own.
    private var killedByHarness = false

    init(name: ProcessName, incarnation: Int, endpoint: FrameEndpoint, seed: UInt64, trace: Trace) {
        self.name = name
        self.incarnation = incarnation
        self.seed = seed
        self.trace = trace
        child = endpoint
        label = "\(name.rawValue)#\(incarnation)"
    }

    /// The logical name used in traces: never a pid.
    let label: String

    /// Sends the process an input; the trace writes it out only when read.
    func begin(_ input: ChildInput, now: EpochMillis) -> Step {
        let message: TraceMessage = switch input {
        case .app(let event): .appInput(event)
        case .background(let event): .event(event)
        case .handler(let event): .handlerInput(event)
        }
        trace.record(now, label, "<-", message: message)
        // A background's frame names its tabs' numbers too (`tabIds`), which the wire's names map
        // to, the active tab of the window in front (`activeTab`), which tabs.query reads, and
        // Safari's windows.
        var members: [String: JSONValue] = [:]
        if case .background = input {
            let numbered = tabIds()
            if !numbered.isEmpty { members["tabIds"] = .object(numbered.mapValues { .integer(Int64($0)) }) }
            if let active = activeTab() { members["activeTab"] = .string(active) }
            if let windows = windows() { members.merge(windows.frameMembers) { _, new in new } }
        }
        return send(.input(input, now: now, uptime: uptime(now), seed: seed, flaws: flaws), members: members, now: now)
    }

    /// Lets a held process go on.
    func resume(_ answer: YieldAnswer, now: EpochMillis) -> Step {
        switch answer {
        case .proceed: send(.proceed(now: now), now: now)
        case .fail(let errno): send(.fail(errno: errno, now: now), now: now)
        case .failAfter(let errno): send(.fail(errno: errno, now: now, after: true), now: now)
        }
    }

    /// For a process that serves one input and ends (the handler): closes its input and reaps
    /// it; one that does not end within the frame timeout is a bug, and is killed.
    @discardableResult
    func finish() -> ChildProcess.ExitStatus {
        isAlive = false
        child.closeInput()
        return child.reap().status
    }

    /// For a handler that has answered and serves no more: closes its input and lets it end.
    /// A process is reaped on another thread, so that the run does not wait for it to exit
    /// (nothing it does after its last frame counts); a shell in process ends at once.
    func letEnd() {
        guard let process = child as? ChildProcess else {
            finish()
            return
        }
        isAlive = false
        process.closeInput()
        DispatchQueue.global().async {
            if process.wait(timeoutMilliseconds: Self.frameTimeout) == nil {
                process.kill()
                _ = process.wait()
            }
        }
    }

    /// Kills the process; the trace says why (`reason`), unless the process had already ended
    /// for the run, or no reason is given because the run is over and its trace already taken.
    func kill(now: EpochMillis, reason: String?) {
        if isAlive, let reason { trace.record(now, label, reason) }
        isAlive = false
        killedByHarness = true
        child.kill()
    }

    private func send(_ frame: ToChild, members: [String: JSONValue] = [:], now: EpochMillis) -> Step {
        do {
            try child.sendMessage(frame, members: members, timeoutMilliseconds: Self.frameTimeout)
            return pump(now: now)
        } catch {
            return died(now: now, unresponsive: error.isTimeout)
        }
    }

    private func pump(now: EpochMillis) -> Step {
        while true {
            let frame: ReceivedFrame?
            do { frame = try child.receiveMessage(timeoutMilliseconds: Self.frameTimeout) } catch {
                trace.record(now, label, "unreadable output: \(error)")
                switch error {
                case .handshake, .tooLarge: protocolBroken("\(label): \(error)")
                case .truncatedHeader, .truncatedPayload, .closed, .timedOut, .io: break
                }
                // A process whose output broke is killed to be sure it is gone; one that sent
                // nothing in time is killed as hung, which is no cause (`unresponsive`).
                killedByHarness = !error.isTimeout
                child.kill()
                return died(now: now, unresponsive: error.isTimeout)
            }
            guard let frame else { return died(now: now) }
            guard case .message(let message) = frame else {
                if case .invalid(let error) = frame {
                    trace.record(now, label, "\(error)")
                    protocolBroken("\(label): \(error)")
                }
                continue
            }
            switch message {
            case .hello:
                trace.record(now, label, "invalid frame: a second hello")
                protocolBroken("\(label) sent a hello after its first frame")
            case .yield(let point, _):
                trace.record(now, label, "yield \(point.rawValue)")
                let choice = policy(point)
                switch choice {
                case .proceed:
                    do { try child.sendMessage(.proceed(now: now), timeoutMilliseconds: Self.frameTimeout) } catch {
                        return died(now: now, unresponsive: error.isTimeout)
                    }
                case .fail(let errno), .failAfter(let errno):
                    let after = choice == .failAfter(errno: errno)
                    trace.record(now, label, "fail \(point.rawValue)\(after ? " after it takes effect" : "") errno \(errno)")
                    do { try child.sendMessage(.fail(errno: errno, now: now, after: after), timeoutMilliseconds: Self.frameTimeout) } catch {
                        return died(now: now, unresponsive: error.isTimeout)
                    }
                case .kill:
                    kill(now: now, reason: "killed at \(point.rawValue)")
                    return died(now: now)
                case .hold:
                    trace.record(now, label, "held at \(point.rawValue)")
                    return .held(point)
                }
            case .done(let typed, _):
                // Written out for the trace only when it is read.
                switch typed {
                case .background(let outputs): for output in outputs { trace.record(now, label, "->", message: .background(output)) }
                case .app(let directives): for directive in directives { trace.record(now, label, "->", message: .app(directive)) }
                case .handler(let directives): for directive in directives { trace.record(now, label, "->", message: .handler(directive)) }
                }
                return .finished(typed)
            case .log(let level, let text, let at):
                // A script's console, or an exception it did not catch: the process goes on.
                trace.record(now, label, "console.\(level.rawValue) \(text)\(at.map { " (\($0))" } ?? "")")
                logged(level, text, at, now)
            case .error(let text):
                // It did nothing with what it could not read: that input is over, and the run
                // fails (the harness sends only what the protocol allows).
                trace.record(now, label, "error frame: \(text)")
                protocolBroken("\(label) could not read what the harness sent: \(text)")
                return .finished(ShellDirectives.none(for: name.wireRole))
            }
        }
    }

    /// The process's end, once its input or output failed: reaped, or killed when it does not
    /// end within the frame timeout. Unless the harness killed it for a cause (a step, a fault),
    /// the trace says how it died, and `diedOfItself` is told; `unresponsive`: the harness
    /// killed it because a frame did not come or go within the frame timeout.
    private func died(now: EpochMillis, unresponsive: Bool = false) -> Step {
        isAlive = false
        if unresponsive { child.kill() }
        let (status, killed) = child.reap()
        let hung = unresponsive || killed
        guard hung || !killedByHarness || status != .signaled(SIGKILL) else { return .died(status) }
        let stderr = child.stderrTail
        let death: Death = hung ? .unresponsive(milliseconds: Self.frameTimeout) : Death(status, stderr: stderr, limits: limits)
        // The trace says that it died and how; what it wrote to stderr (addresses, paths)
        // would make traces differ between runs, so it goes to `diagnostics` instead.
        trace.record(now, label, "died unexpectedly (\(death.ending))")
        trace.diagnostics.append("\(label) died unexpectedly (\(death.ending)); stderr: \(stderr.suffix(1000))")
        diedOfItself(death, now)
        return .died(status)
    }
}

extension FrameError {
    /// A frame did not come, or could not be written, within the time given.
    var isTimeout: Bool {
        if case .timedOut = self { return true }
        return false
    }
}

/// Safari's tabs and windows, as a background's frame names them (`PROTOCOL.md` section 14):
/// each open tab's address and window, each window's active tab, the frontmost window
/// (`windows.getLastFocused`), and the window with focus, if one has it (none while another app
/// is in front); and what the extension set on its toolbar item, which Safari holds for every
/// context (its own pages set it too).
struct SafariWindows: Equatable, Sendable {
    var tabURLs: [String: String] = [:]
    var tabWindows: [String: Int]
    var activeTabs: [Int: String]
    var front: Int
    var focused: Int?
    var action = ExtensionAction()

    /// `tabURLs`, `tabWindows`, `activeTabs` (by the window's number as text), `frontWindow`,
    /// `focusedWindow` (-1, `windows.WINDOW_ID_NONE`, for none), and `action` (as `started`
    /// gives it; left out when the extension set nothing).
    var frameMembers: [String: JSONValue] {
        var members: [String: JSONValue] = ["frontWindow": .integer(Int64(front)), "focusedWindow": .integer(Int64(focused ?? -1)),
                                            "tabURLs": .object(tabURLs.mapValues { .string($0) })]
        if !tabWindows.isEmpty { members["tabWindows"] = .object(tabWindows.mapValues { .integer(Int64($0)) }) }
        if !activeTabs.isEmpty { members["activeTabs"] = .object(Dictionary(uniqueKeysWithValues: activeTabs.map { (String($0.key), JSONValue.string($0.value)) })) }
        if action != ExtensionAction() { members["action"] = action.json }
        return members
    }
}
