import ProcessKit
import SiteSettings

/// What explored runs reached, counted: each process's yield points, each fault that took
/// effect, each reconciliation point, each outcome of a native reply. A counter still at zero
/// after many runs names something the explorer never tried, which no passing run vouches for.
public struct Coverage: Equatable, Sendable {
    public private(set) var counts: [String: Int] = [:]

    public init(counts: [String: Int] = [:]) { self.counts = counts }

    /// Every counter there is, in the order the summary lists them.
    public static let keys: [String] = {
        var keys: [String] = []
        for process in ["app", "handler"] {
            for point in [YieldPoint.lock, .read, .writeTemp, .rename, .unlock, .setAside] { keys.append("yield \(process)@\(point.rawValue)") }
        }
        for point in [YieldPoint.storageRead, .storageWriteTemp, .storageRename] { keys.append("yield background@\(point.rawValue)") }
        keys += ["fault hold", "fault crash", "fault fail", "fault handler-slow", "fault handler-hung", "fault handler-crashing",
                 "fault handler-garbage", "fault background-unload", "fault background-kill", "fault background-freeze",
                 "fault app-kill", "fault safari-restart", "fault power-loss"]
        keys += ["reconcile background-start", "reconcile safari-foreground", "reconcile tab-activated", "reconcile after-timeout"]
        // Not a reconciliation point (it asks for no snapshot), but what brings time-driven change.
        keys += ["alarm fired"]
        keys += ["reply applied", "reply unchanged", "reply refused", "reply dropped", "reply timed-out"]
        return keys
    }()

    public mutating func add(_ other: Coverage) {
        for (key, count) in other.counts { counts[key, default: 0] += count }
    }

    /// The counters still at zero.
    public var unreached: [String] { Self.keys.filter { (counts[$0] ?? 0) == 0 } }

    /// What one run reached: its steps that took effect, its arrivals at yield points, and its
    /// trace (reconciliation points and reply outcomes are read from the messages the
    /// background received and sent).
    public init(steps: [Step], unreached: Set<Int>, outcome: ScenarioRunner.Outcome) {
        for arrival in outcome.arrivals { counts[Self.yieldKeys[arrival.process]![arrival.point]!, default: 0] += 1 }
        for (index, step) in steps.enumerated() where !unreached.contains(index) {
            guard let fault = Self.fault(step) else { continue }
            counts["fault " + fault, default: 0] += 1
        }
        var timedOut: Set<String> = []
        var recovering: Set<String> = []
        var garbage = 0, snapshots = 0
        for entry in outcome.log.entries {
            // What a process received (`<-`) or sent (`->`), or what Safari or the harness did.
            let who = entry.process
            if who == "safari", entry.what.hasPrefix("nativeReply dropped") { counts["reply dropped", default: 0] += 1 }
            if who == "harness", entry.what.hasPrefix("power lost:") { counts["fault power-loss", default: 0] += 1 }
            if who.hasPrefix("handler#"), entry.what == "reply replaced by garbage" { garbage += 1 }
            guard who.hasPrefix("background#"), case .object(let message)? = entry.json, case .string(let type)? = message["type"] else { continue }
            if entry.what == "->" {
                if type == "sendNative", recovering.remove(who) != nil { counts["reconcile after-timeout", default: 0] += 1 }
                continue
            }
            guard entry.what == "<-" else { continue }
            switch type {
            case "nativeTimeout":
                counts["reply timed-out", default: 0] += 1
                timedOut.insert(who + Self.request(message))
                recovering.insert(who)
            case "nativeReply":
                var reply: [String: JSONValue] = [:]
                if case .object(let object)? = message["message"] { reply = object }
                if timedOut.contains(who + Self.request(message)) {
                    counts["reply dropped", default: 0] += 1
                } else if reply["type"] == .string("error") {
                    counts["reply refused", default: 0] += 1
                } else if reply["type"] == .string("notModified") || reply["changed"] == .bool(false) {
                    counts["reply unchanged", default: 0] += 1
                } else {
                    snapshots += 1
                }
            case "started": counts["reconcile background-start", default: 0] += 1
            case "safariForeground": counts["reconcile safari-foreground", default: 0] += 1
            case "tabActivated": counts["reconcile tab-activated", default: 0] += 1
            case "alarmFired": counts["alarm fired", default: 0] += 1
            default: break
            }
        }
        // A garbage reply is a snapshot the background refuses; the trace shows it replaced.
        if garbage > 0 { counts["reply refused", default: 0] += garbage }
        if snapshots > garbage { counts["reply applied", default: 0] += snapshots - garbage }
    }

    /// The counter of each process's arrivals at each yield point, written once.
    private static let yieldKeys: [ProcessName: [YieldPoint: String]] = {
        var keys: [ProcessName: [YieldPoint: String]] = [:]
        for process in ProcessName.allCases {
            for point in YieldPoint.allCases { keys[process, default: [:]][point] = "yield \(process.rawValue)@\(point.rawValue)" }
        }
        return keys
    }()

    /// A reply's or timeout's request number, as text.
    private static func request(_ message: [String: JSONValue]) -> String {
        if case .integer(let number)? = message["request"] { return "#\(number)" }
        return ""
    }

    /// The fault a step injects, if it is one.
    private static func fault(_ step: Step) -> String? {
        switch step {
        case .hold: "hold"
        case .crash: "crash"
        case .fail: "fail"
        case .handler(.slow): "handler-slow"
        case .handler(.hung): "handler-hung"
        case .handler(.crashing): "handler-crashing"
        case .handler(.garbage): "handler-garbage"
        case .background(.unload): "background-unload"
        case .background(.kill): "background-kill"
        case .background(.freeze): "background-freeze"
        case .app(.kill): "app-kill"
        case .safari(.restart): "safari-restart"
        default: nil
        }
    }
}
