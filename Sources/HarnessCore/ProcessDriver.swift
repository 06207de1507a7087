import ProcessKit
import SiteSettings

/// One incarnation of one of our processes (`app#1`, `background#3`, `handler#12`), spoken to in
/// the frame protocol one input at a time. At each yield point a policy decides whether the
/// process goes on, fails the step, is killed there, or is held there while others run.
public final class ProcessDriver {
    /// What the harness does at a yield point.
    public enum YieldChoice: Equatable, Sendable {
        case proceed
        case fail(errno: Int32)
        /// The step takes effect, then fails with the errno.
        case failAfter(errno: Int32)
        case kill
        /// Leave the process waiting at this point; `resume` lets it go on later.
        case hold
    }

    /// Where an input left the process.
    public enum Step: Equatable, Sendable {
        /// It handled the input; these are the directives the harness carries out.
        case finished(Directives)
        /// It waits at this yield point.
        case held(YieldPoint)
        /// It died (killed at a yield point, or on its own).
        case died(ChildProcess.ExitStatus)
    }

    /// The directives a process gave for an input: as they travel (and as the trace shows
    /// them), and in process as its machine made them, which are what reading `json` back gives.
    public struct Directives: Equatable, Sendable {
        public let typed: ShellDirectives?
        private let written: [JSONValue]

        init(json: [JSONValue]) {
            typed = nil
            written = json
        }

        init(typed: ShellDirectives) {
            self.typed = typed
            written = []
        }

        public var json: [JSONValue] { typed?.json ?? written }

        /// Each process's directives as handed over, when they were.
        public var app: [AppMachine.Directive]? { if case .app(let directives)? = typed { directives } else { nil } }
        public var background: [ExtensionWire.Output]? { if case .background(let outputs)? = typed { outputs } else { nil } }
        public var handler: [NativeHandlerMachine.Directive]? { if case .handler(let directives)? = typed { directives } else { nil } }
    }

    /// How long (wall time) the harness waits for any one frame before it treats the process as hung.
    public static let frameTimeout = 10_000

    public let name: ProcessName
    public let incarnation: Int
    public let child: FrameEndpoint
    private let trace: Trace
    private let seed: UInt64
    public var policy: (YieldPoint) -> YieldChoice = { _ in .proceed }
    /// Known bugs to switch on in the process, sent with every input.
    public var flaws: [String] = []
    /// Whether the run still counts the process as alive: from its start until the harness saw
    /// it die, killed it or finished it. Decided by what the harness did and saw, never by
    /// asking the operating system, whose answer depends on timing (a handler that has sent its
    /// reply may or may not have exited yet), so the trace does not.
    public private(set) var isAlive = true

    public init(name: ProcessName, incarnation: Int, endpoint: FrameEndpoint, seed: UInt64, trace: Trace) {
        self.name = name
        self.incarnation = incarnation
        self.seed = seed
        self.trace = trace
        child = endpoint
        label = "\(name.rawValue)#\(incarnation)"
    }

    /// The logical name used in traces: never a pid.
    public let label: String

    public func begin(_ input: JSONValue, now: EpochMillis) -> Step {
        trace.record(now, label, "<-", input)
        return send(.input(input, now: now, seed: seed, flaws: flaws), now: now)
    }

    /// Sends the background an event as it is; the trace writes it out only when read, and a
    /// pipe carries it as the input it stands for.
    public func begin(event: ExtensionWire.Event, now: EpochMillis) -> Step {
        trace.record(now, label, "<-", message: .event(event))
        return send(.event(event, now: now, seed: seed, flaws: flaws), now: now)
    }

    /// Lets a held process go on.
    public func resume(_ answer: YieldAnswer, now: EpochMillis) -> Step {
        switch answer {
        case .proceed: send(.proceed(now: now), now: now)
        case .fail(let errno): send(.fail(errno: errno, now: now), now: now)
        case .failAfter(let errno): send(.fail(errno: errno, now: now, after: true), now: now)
        }
    }

    /// For a process that serves one input and ends (the handler): closes its input and reaps
    /// it; one that does not end within the frame timeout is a bug, and is killed.
    @discardableResult
    public func finish() -> ChildProcess.ExitStatus {
        isAlive = false
        child.closeInput()
        if let status = child.wait(timeoutMilliseconds: Self.frameTimeout) { return status }
        child.kill()
        return child.wait()
    }

    /// Kills the process; the trace says why (`reason`), unless the process had already ended
    /// for the run, or no reason is given because the run is over and its trace already taken.
    public func kill(now: EpochMillis, reason: String?) {
        if isAlive, let reason { trace.record(now, label, reason) }
        isAlive = false
        child.kill()
    }

    private func send(_ frame: ToChild, now: EpochMillis) -> Step {
        do {
            try child.sendMessage(frame, timeoutMilliseconds: Self.frameTimeout)
            return pump(now: now)
        } catch {
            return died(now: now)
        }
    }

    private func pump(now: EpochMillis) -> Step {
        while true {
            let frame: ReceivedFrame?
            do { frame = try child.receiveMessage(timeoutMilliseconds: Self.frameTimeout) } catch {
                trace.record(now, label, "unreadable output: \(error)")
                child.kill()
                return died(now: now)
            }
            guard let frame else { return died(now: now) }
            guard case .message(let message) = frame else {
                if case .invalid(let error) = frame { trace.record(now, label, "invalid frame: \(error)") }
                continue
            }
            switch message {
            case .yield(let point, _):
                trace.record(now, label, "yield \(point.rawValue)")
                let choice = policy(point)
                switch choice {
                case .proceed:
                    do { try child.sendMessage(.proceed(now: now), timeoutMilliseconds: Self.frameTimeout) } catch { return died(now: now) }
                case .fail(let errno), .failAfter(let errno):
                    let after = choice == .failAfter(errno: errno)
                    trace.record(now, label, "fail \(point.rawValue)\(after ? " after it takes effect" : "") errno \(errno)")
                    do { try child.sendMessage(.fail(errno: errno, now: now, after: after), timeoutMilliseconds: Self.frameTimeout) } catch { return died(now: now) }
                case .kill:
                    kill(now: now, reason: "killed at \(point.rawValue)")
                    return died(now: now)
                case .hold:
                    trace.record(now, label, "held at \(point.rawValue)")
                    return .held(point)
                }
            case .done(let directives, _):
                for directive in directives { trace.record(now, label, "->", directive) }
                return .finished(Directives(json: directives))
            case .directives(let typed, _):
                // Written out for the trace only when it is read.
                switch typed {
                case .background(let outputs): for output in outputs { trace.record(now, label, "->", message: .background(output)) }
                case .app(let directives): for directive in directives { trace.record(now, label, "->", message: .app(directive)) }
                case .handler(let directives): for directive in directives { trace.record(now, label, "->", message: .handler(directive)) }
                }
                return .finished(Directives(typed: typed))
            case .error(let text):
                trace.record(now, label, "error frame: \(text)")
            }
        }
    }

    private func died(now: EpochMillis) -> Step {
        isAlive = false
        let status = child.wait(timeoutMilliseconds: Self.frameTimeout) ?? {
            child.kill()
            return child.wait()
        }()
        if status != .signaled(9) {
            // The trace says that it died and how; what it wrote to stderr (addresses, paths)
            // would make traces differ between runs, so it goes to `diagnostics` instead.
            trace.record(now, label, "died unexpectedly (\(status))")
            trace.diagnostics.append("\(label) died unexpectedly (\(status)); stderr: \(child.stderrTail.suffix(1000))")
        }
        return .died(status)
    }
}

/// The run's trace: one line per event, with virtual time, logical process names and JSON with
/// sorted keys; never a pid, a path or wall time, so equal runs give equal traces. Events are
/// kept as they happened (`log`) and written out as lines only when the lines are read.
public final class Trace {
    public private(set) var log: TraceLog
    /// What helps a person but must not be compared: the stderr of a process that died.
    public var diagnostics: [String] = []
    /// The moment the run started: lines give their time from it (`+26.000s`), as people think
    /// of a run; nil gives times since the Unix epoch.
    public var epoch: EpochMillis? { log.epoch }

    public init(epoch: EpochMillis? = nil) {
        log = TraceLog(epoch: epoch)
        // Room for a typical explored run's events, so that the log is not copied as it grows.
        log.entries.reserveCapacity(1024)
    }

    /// The trace as lines.
    public var lines: [String] { log.lines }
    /// How many lines it has.
    public var count: Int { log.entries.count }

    /// A moment of the run as trace lines and failures give it: `+26.000s` from the start.
    public func time(_ now: EpochMillis) -> String { log.time(now) }

    /// `+26.000s`, `-0.500s`: milliseconds as signed seconds with three decimals.
    public static func relative(_ millis: EpochMillis) -> String {
        let magnitude = millis.magnitude
        let fraction = String(magnitude % 1000)
        return (millis < 0 ? "-" : "+") + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "s"
    }

    /// A line's time read back in milliseconds (from the start for `+26.000s`), or nil.
    public static func millis(_ word: Substring) -> EpochMillis? {
        if let plain = EpochMillis(word) { return plain }
        guard let sign = word.first, sign == "+" || sign == "-", word.hasSuffix("s") else { return nil }
        let parts = word.dropFirst().dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 3, let seconds = EpochMillis(parts[0]), let fraction = EpochMillis(parts[1]) else { return nil }
        return (seconds * 1000 + fraction) * (sign == "-" ? -1 : 1)
    }

    func record(_ now: EpochMillis, _ process: String, _ what: String, _ json: JSONValue? = nil) {
        log.entries.append(TraceEntry(time: now, process: process, what: what, message: json.map(TraceMessage.json)))
    }

    func record(_ now: EpochMillis, _ process: String, _ what: String, message: TraceMessage) {
        log.entries.append(TraceEntry(time: now, process: process, what: what, message: message))
    }
}

/// One event of a trace: when, who (`background#2`, `safari`, `harness`), what (`<-` for an
/// input the process took, `->` for a directive it gave, or words), and the message, if any.
public struct TraceEntry: Sendable {
    public let time: EpochMillis
    public let process: String
    public let what: String
    public let message: TraceMessage?
    /// The message as the trace writes it.
    public var json: JSONValue? { message?.json }
}

/// A message in the trace: JSON, or a directive as a process's machine made it in process,
/// written out (as the process would write it on its pipe) only when the trace is read.
public enum TraceMessage: Sendable {
    case json(JSONValue)
    /// An event Safari gave the background.
    case event(ExtensionWire.Event)
    case background(ExtensionWire.Output)
    case app(AppMachine.Directive)
    case handler(NativeHandlerMachine.Directive)

    public var json: JSONValue {
        switch self {
        case .json(let json): json
        case .event(let event): ExtensionWire.encode(event)
        case .background(let output): ExtensionWire.json(output) ?? .null
        case .app(let directive): AppWire.json(directive) ?? .null
        case .handler(let directive): NativeHandlerWire.json(directive) ?? .null
        }
    }
}

/// A run's trace as its events, with the moment the run started.
public struct TraceLog: Sendable {
    public let epoch: EpochMillis?
    public internal(set) var entries: [TraceEntry] = []

    public init(epoch: EpochMillis?) { self.epoch = epoch }

    public func time(_ now: EpochMillis) -> String {
        guard let epoch else { return "\(now)" }
        return Trace.relative(now - epoch)
    }

    /// `TIME WHO WHAT [JSON]`.
    public func line(_ entry: TraceEntry) -> String {
        var line = "\(time(entry.time)) \(entry.process) \(entry.what)"
        if let json = entry.json { line += " " + String(decoding: JSONWriter.compact(json), as: UTF8.self) }
        return line
    }

    public var lines: [String] { entries.map(line) }

    /// The last `count` lines.
    public func lastLines(_ count: Int) -> [String] { entries.suffix(count).map(line) }

    /// The first line whose time is earlier than the line before it, if any.
    public var firstStepBackwards: String? {
        guard entries.count > 1 else { return nil }
        for index in 1..<entries.count where entries[index].time < entries[index - 1].time { return line(entries[index]) }
        return nil
    }
}
