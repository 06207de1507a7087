import ProcessKit
import SiteSettings

/// What explored runs reached, counted: each process's yield points, each fault that took
/// effect, each reconciliation point, each outcome of a native reply. A counter still at zero
/// after many runs names something the explorer never tried, which no passing run vouches for.
package struct Coverage: Equatable, Sendable {
    /// The counters of `keys`, by their place there (added up run after run without naming
    /// them), and any other counter by name.
    private var tally = [Int](repeating: 0, count: Coverage.keys.count)
    private var others: [String: Int] = [:]

    /// Every counter reached, by name.
    package var counts: [String: Int] {
        var counts = others
        for (slot, count) in tally.enumerated() where count > 0 { counts[Self.keys[slot], default: 0] += count }
        return counts
    }

    init(counts: [String: Int] = [:]) {
        for (key, count) in counts {
            if let slot = Self.slot[key] { tally[slot] += count } else { others[key, default: 0] += count }
        }
    }

    package static func == (a: Coverage, b: Coverage) -> Bool { a.counts == b.counts }

    /// Every counter there is, in the order the summary lists them.
    package static let keys: [String] = {
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
        // Safari's rules a run played: the device asleep, Web Inspector, an update, a handler
        // process the system kept for another request, a page's question that came back empty.
        keys += ["rule device-sleep", "rule inspector", "rule extension-update", "rule handler-reused", "rule empty-answer"]
        keys += ["reply applied", "reply unchanged", "reply refused", "reply dropped", "reply timed-out"]
        return keys
    }()

    mutating func add(_ other: Coverage) {
        for slot in tally.indices { tally[slot] += other.tally[slot] }
        for (key, count) in other.others { others[key, default: 0] += count }
    }

    /// The counters still at zero.
    package var unreached: [String] { Self.keys.indices.filter { tally[$0] == 0 }.map { Self.keys[$0] } }

    /// What one run reached: its steps that took effect, its arrivals at yield points, and its
    /// trace (reconciliation points and reply outcomes are read from the messages the
    /// background received and sent).
    init(steps: [Step], unreached: Set<Int>, outcome: ScenarioRunner.Outcome) {
        // Counted by slot (each counter's place in `keys`).
        for arrival in outcome.arrivals {
            if let slot = Self.yieldSlots[arrival.process]?[arrival.point] {
                tally[slot] += 1
            } else {
                others["yield \(arrival.process.rawValue)@\(arrival.point.rawValue)", default: 0] += 1
            }
        }
        for (index, step) in steps.enumerated() where !unreached.contains(index) {
            if let fault = Self.fault(step) { tally[Self.slot["fault " + fault]!] += 1 }
            if let rule = Self.rule(step) { tally[Self.slot["rule " + rule]!] += 1 }
        }
        var timedOut: Set<Request> = []
        var recovering: Set<String> = []
        var garbage = 0, snapshots = 0
        // Read in place: a copy of each entry would cost more than what is done with it.
        outcome.log.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                // What a process received (`<-`) or sent (`->`), or what Safari or the harness did.
                switch entries[index].rule {
                case .replyDropped?: tally[Self.replyDropped] += 1
                case .pageAsksAgain?, .pageStopsAsking?: tally[Self.emptyAnswer] += 1
                case .powerLost?: tally[Self.powerLoss] += 1
                case .handlerReused?: tally[Self.handlerReused] += 1
                case nil: break
                }
                let who = entries[index].process
                switch who.utf8.first {
                case UInt8(ascii: "h"):
                    if entries[index].what == "reply replaced by garbage", who.hasPrefix("handler#") { garbage += 1 }
                case UInt8(ascii: "b"):
                    let what = entries[index].what
                    guard what == "->" || what == "<-", who.hasPrefix("background#") else { continue }
                    if what == "->" {
                        if Self.sendsNative(entries[index].message), recovering.remove(who) != nil { tally[Self.afterTimeout] += 1 }
                        continue
                    }
                    guard let received = Self.received(entries[index].message) else { continue }
                    switch received {
                    case .timeout(let request):
                        tally[Self.timedOut] += 1
                        timedOut.insert(Request(background: who, number: request))
                        recovering.insert(who)
                    case .reply(let request, let outcome):
                        if timedOut.contains(Request(background: who, number: request)) {
                            tally[Self.replyDropped] += 1
                        } else {
                            switch outcome {
                            case .replied(.error), .rejected: tally[Self.refused] += 1
                            case .replied(.notModified), .replied(.applied(_, changed: false)): tally[Self.unchanged] += 1
                            case .replied, .unreadable, .empty: snapshots += 1
                            }
                        }
                    case .start: tally[Self.backgroundStart] += 1
                    case .foreground: tally[Self.safariForeground] += 1
                    case .activation: tally[Self.tabActivated] += 1
                    case .alarm: tally[Self.alarmFired] += 1
                    case .other: break
                    }
                default: continue
                }
            }
        }
        // A garbage reply is a snapshot the background refuses; the trace shows it replaced.
        tally[Self.refused] += garbage
        if snapshots > garbage { tally[Self.applied] += snapshots - garbage }
    }

    /// What a background took, as coverage tells inputs apart.
    private enum Received {
        case timeout(Int), reply(Int, NativeOutcome), start, foreground, activation, alarm, other
    }

    /// A background's input, as the trace keeps it (typed on both transports).
    private static func received(_ message: TraceMessage?) -> Received? {
        guard case .event(let event)? = message else { return nil }
        switch event {
        case .timerFired(.nativeTimeout(let request)): return .timeout(request)
        case .nativeReplyArrived(let request, let outcome): return .reply(request, outcome)
        case .started: return .start
        case .safariCameToForeground: return .foreground
        case .tabActivated: return .activation
        case .alarmFired: return .alarm
        default: return .other
        }
    }

    /// Whether a background's directive sends a native request.
    private static func sendsNative(_ message: TraceMessage?) -> Bool {
        if case .background(.sendNative)? = message { return true }
        return false
    }

    /// A native request of one background, by its number.
    private struct Request: Hashable {
        let background: String
        let number: Int
    }

    /// Each counter's place in `keys`.
    private static let slot: [String: Int] = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
    private static let yieldSlots: [ProcessName: [YieldPoint: Int]] = {
        var slots: [ProcessName: [YieldPoint: Int]] = [:]
        for process in ProcessName.allCases {
            for point in YieldPoint.allCases { slots[process, default: [:]][point] = slot["yield \(process.rawValue)@\(point.rawValue)"] }
        }
        return slots
    }()
    private static let replyDropped = slot["reply dropped"]!, powerLoss = slot["fault power-loss"]!, afterTimeout = slot["reconcile after-timeout"]!
    private static let timedOut = slot["reply timed-out"]!, refused = slot["reply refused"]!, unchanged = slot["reply unchanged"]!
    private static let applied = slot["reply applied"]!, backgroundStart = slot["reconcile background-start"]!
    private static let safariForeground = slot["reconcile safari-foreground"]!, tabActivated = slot["reconcile tab-activated"]!
    private static let alarmFired = slot["alarm fired"]!, handlerReused = slot["rule handler-reused"]!, emptyAnswer = slot["rule empty-answer"]!

    /// The Safari rule a step plays, if it is one of those a run may never reach.
    private static func rule(_ step: Step) -> String? {
        switch step {
        case .deviceSleep: "device-sleep"
        case .safari(.inspect(true)): "inspector"
        case .safari(.updateExtension): "extension-update"
        default: nil
        }
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
