import ProcessKit

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
    /// trace (reconciliation points and reply outcomes are read from the lines the background
    /// received).
    public init(steps: [Step], unreached: Set<Int>, outcome: ScenarioRunner.Outcome) {
        for arrival in outcome.arrivals { counts["yield \(arrival.process.rawValue)@\(arrival.point.rawValue)", default: 0] += 1 }
        for (index, step) in steps.enumerated() where !unreached.contains(index) {
            guard let fault = Self.fault(step) else { continue }
            counts["fault " + fault, default: 0] += 1
        }
        var timedOut: Set<String> = []
        var recovering: Set<Substring> = []
        var garbage = 0, snapshots = 0
        for line in outcome.trace {
            // `TIME WHO <- {...}` (what a process received), `TIME WHO -> {...}` (what it sent),
            // or `TIME WHO words` (what Safari or the harness did).
            let words = line.split(separator: " ", maxSplits: 3)
            guard words.count == 4 else { continue }
            let who = words[1], json = words[3]
            if who == "safari", words[2] == "nativeReply", json.hasPrefix("dropped") { counts["reply dropped", default: 0] += 1 }
            if who == "harness", words[2] == "power", json.hasPrefix("lost:") { counts["fault power-loss", default: 0] += 1 }
            if who.hasPrefix("handler#"), words[2] == "reply", json.hasPrefix("replaced by garbage") { garbage += 1 }
            guard who.hasPrefix("background#") else { continue }
            if words[2] == "->" {
                if json.hasSuffix("\"type\":\"sendNative\"}"), recovering.remove(who) != nil {
                    counts["reconcile after-timeout", default: 0] += 1
                }
                continue
            }
            guard words[2] == "<-" else { continue }
            if json.hasSuffix("\"type\":\"nativeTimeout\"}") {
                counts["reply timed-out", default: 0] += 1
                timedOut.insert(who + Self.request(json))
                recovering.insert(who)
            } else if json.hasSuffix("\"type\":\"nativeReply\"}") {
                if timedOut.contains(who + Self.request(json)) {
                    counts["reply dropped", default: 0] += 1
                } else if json.contains("\"type\":\"error\"") {
                    counts["reply refused", default: 0] += 1
                } else if json.contains("\"type\":\"notModified\"") || json.contains("\"changed\":false") {
                    counts["reply unchanged", default: 0] += 1
                } else {
                    snapshots += 1
                }
            } else if json.hasSuffix("\"type\":\"started\"}") {
                counts["reconcile background-start", default: 0] += 1
            } else if json.hasSuffix("\"type\":\"safariForeground\"}") {
                counts["reconcile safari-foreground", default: 0] += 1
            } else if json.hasSuffix("\"type\":\"tabActivated\"}") {
                counts["reconcile tab-activated", default: 0] += 1
            } else if json.hasSuffix("\"type\":\"alarmFired\"}") {
                counts["alarm fired", default: 0] += 1
            }
        }
        // A garbage reply is a snapshot the background refuses; the trace shows it replaced.
        if garbage > 0 { counts["reply refused", default: 0] += garbage }
        if snapshots > garbage { counts["reply applied", default: 0] += snapshots - garbage }
    }

    /// `"request":N` of a reply or timeout, as text.
    private static func request(_ json: Substring) -> String {
        guard let range = json.firstRange(of: "\"request\":") else { return "" }
        return String(json[range.upperBound...].prefix { $0.isNumber })
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
