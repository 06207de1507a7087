import ProcessKit
import SiteSettings

/// What one run reached, as a set of features, for guided search: a run whose signature holds
/// a feature no earlier run had reached a combination nobody tried, and its schedule is worth
/// mutating. A feature is one of:
///
/// - **a background transition**: two inputs one incarnation of the background took in a row
///   (its first input follows "start"), each named by its kind, and the virtual time between
///   them in buckets (none, under 1 s, under 5 s, under 30 s, under 2 min, more); a native
///   reply is named by its outcome (a snapshot applied, unchanged, an error, rejected because
///   the handler ended or too many requests were in flight, unreadable) or as late when its
///   request had already timed out. These pairs stand for the machine's states and its
///   deadlines: what it was waiting for, what came instead, and how much later (a request's
///   timeout firing at the very moment of the input that sent it is a new feature).
/// - **a background reaction**: an input kind and the kind of one directive the background gave
///   for it (a native request sent, a timer set, a decision pushed, a popup change saved,
///   refused or left unsure).
/// - **an app transition**: two inputs one incarnation of the app took in a row.
/// - **an interleaving**: two arrivals at yield points in a row, each a process and a point
///   (the first follows none).
/// - **a fault**: a fault step that took effect, with its process and point, or the handler's
///   behaviour with its delay.
/// - **a rule or loss**: Safari dropping a reply for an earlier incarnation, a page asking again
///   or giving up, a power cut carried out, a handler process reused.
/// - **a count**: how often the background took an input of one kind in the run, in buckets
///   (1, 2, 3, 4-7, 8 and more), so that a run with more timeouts than any before is new.
///
/// Each feature is a number (`tag`, then two or three small codes) made without strings, and
/// `name(_:)` reads one back for people. The set depends only on the run's steps and trace, so
/// the same schedule gives the same signature on every machine.
package struct CoverageSignature: Equatable, Sendable {
    /// The features, sorted, each once.
    let features: [UInt64]

    init(features: [UInt64]) { self.features = Array(Set(features)).sorted() }

    /// The features a run reached.
    init(steps: [Step], unreached: Set<Int>, outcome: ScenarioRunner.Outcome) {
        // Gathered in an array, then sorted and made unique: cheaper than a set per run.
        var found: [UInt64] = []
        found.reserveCapacity(512)
        var previous = Self.none
        for arrival in outcome.arrivals {
            let here = Self.code(arrival.process) << 4 | Self.code(arrival.point)
            found.append(Self.feature(.interleaving, previous, here))
            previous = here
        }
        for (index, step) in steps.enumerated() where !unreached.contains(index) {
            if let fault = Self.fault(step) { found.append(Self.feature(.fault, fault.0, fault.1)) }
        }
        // Each incarnation's last input and its time; a run has few, so a list is searched.
        var incarnations: [(who: String, input: UInt64, time: EpochMillis)] = []
        func last(_ who: String) -> Int? { incarnations.lastIndex { $0.who == who } }
        var counts = [Int](repeating: 0, count: Self.inputNames.count)
        var timedOut: Set<Request> = []
        outcome.log.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                if let rule = entries[index].rule {
                    found.append(Self.feature(.rule, UInt64(rule.rawValue), 0))
                    continue
                }
                let who = entries[index].process
                let what = entries[index].what
                switch who.utf8.first {
                case UInt8(ascii: "b"):
                    guard what == "->" || what == "<-", who.hasPrefix("background#") else { continue }
                    let known = last(who)
                    if what == "->" {
                        if let known, let directive = Self.directive(entries[index].message) {
                            found.append(Self.feature(.reaction, incarnations[known].input, directive))
                        }
                        continue
                    }
                    guard let event = Self.event(entries[index].message) else { continue }
                    var input = Self.code(event)
                    switch event {
                    case .timerFired(.nativeTimeout(let request)): timedOut.insert(Request(background: who, number: request))
                    case .nativeReplyArrived(let request, _) where timedOut.contains(Request(background: who, number: request)): input = Self.lateReply
                    default: break
                    }
                    let time = entries[index].time
                    if let known {
                        found.append(Self.feature(.background, incarnations[known].input, input, Self.gap(time - incarnations[known].time)))
                        incarnations[known].input = input
                        incarnations[known].time = time
                    } else {
                        found.append(Self.feature(.background, Self.none, input, 0))
                        incarnations.append((who, input, time))
                    }
                    counts[Int(input)] += 1
                case UInt8(ascii: "a"):
                    guard what == "<-", who.hasPrefix("app#"), let input = Self.appInput(entries[index].message) else { continue }
                    if let known = last(who) {
                        found.append(Self.feature(.app, incarnations[known].input, input))
                        incarnations[known].input = input
                    } else {
                        found.append(Self.feature(.app, Self.none, input))
                        incarnations.append((who, input, 0))
                    }
                default: continue
                }
            }
        }
        for (input, count) in counts.enumerated() where count > 0 { found.append(Self.feature(.count, UInt64(input), Self.bucket(count))) }
        found.sort()
        var unique: [UInt64] = []
        unique.reserveCapacity(found.count)
        for feature in found where feature != unique.last { unique.append(feature) }
        features = unique
    }

    // MARK: - Features

    /// What a feature is about: its top byte.
    enum Tag: UInt64, CaseIterable, Sendable {
        case background = 1, reaction, app, interleaving, fault, rule, count
    }

    static func feature(_ tag: Tag, _ a: UInt64, _ b: UInt64, _ c: UInt64 = 0) -> UInt64 {
        tag.rawValue << 56 | a << 32 | b << 16 | c
    }

    /// The code for "nothing before" (a first input, a first arrival).
    private static let none: UInt64 = 0xFF

    /// A feature in words: `background: tab-activated -> reply-late`, `interleaving: app@lock -> handler@lock`.
    package static func name(_ feature: UInt64) -> String {
        let a = feature >> 32 & 0xFFFF, b = feature >> 16 & 0xFFFF, c = feature & 0xFFFF
        guard let tag = Tag(rawValue: feature >> 56) else { return "unknown \(ExploreSession.hex(feature))" }
        func input(_ code: UInt64) -> String { code == none ? "start" : code < UInt64(inputNames.count) ? inputNames[Int(code)] : "?" }
        func arrival(_ code: UInt64) -> String {
            guard code != none else { return "start" }
            let process = Int(code >> 4), point = Int(code & 0xF)
            guard process < ProcessName.allCases.count, point < YieldPoint.allCases.count else { return "?" }
            return "\(ProcessName.allCases[process].rawValue)@\(YieldPoint.allCases[point].rawValue)"
        }
        switch tag {
        case .background: return "background: \(input(a)) -> \(input(b)) \(["at once", "within 1s", "within 5s", "within 30s", "within 2m", "later"][Int(min(c, 5))])"
        case .reaction: return "reaction: \(input(a)) => \(b < UInt64(directiveNames.count) ? directiveNames[Int(b)] : "?")"
        case .app: return "app: \(a == none ? "start" : appNames[Int(min(a, 3))]) -> \(appNames[Int(min(b, 3))])"
        case .interleaving: return "interleaving: \(arrival(a)) -> \(arrival(b))"
        case .fault: return "fault: \(faultName(a, b))"
        case .rule: return "rule: \(RuleEvent(rawValue: Int(a))?.name ?? "?")"
        case .count: return "count: \(input(a)) x\(["1", "2", "3", "4-7", "8+"][Int(min(b, 4))])"
        }
    }

    /// The time between two inputs, in buckets around the native timeout, the idle unload
    /// and the port's keep-alive.
    private static func gap(_ millis: EpochMillis) -> UInt64 {
        switch millis {
        case ...0: 0
        case ..<1_000: 1
        case ..<5_000: 2
        case ..<30_000: 3
        case ..<120_000: 4
        default: 5
        }
    }

    private static func bucket(_ count: Int) -> UInt64 {
        switch count {
        case 1: 0
        case 2: 1
        case 3: 2
        case 4...7: 3
        default: 4
        }
    }

    // MARK: - Codes

    private static let inputNames = ["started", "storage-completed", "tab-requested-decision", "tab-native-dark-changed", "tab-activated",
                                     "tab-closed", "safari-foreground", "app-message", "appearance-changed", "popup-opened", "popup-closed",
                                     "popup-chose-scope", "popup-edited", "popup-forgot-site", "popup-paused", "reply-snapshot",
                                     "reply-unchanged", "reply-error", "reply-handler-ended", "reply-too-many", "reply-unreadable",
                                     "reply-late", "native-timeout", "alarm", "reply-enabled", "script-timer", "page-message",
                                     "page-answered", "port-opened", "port-message", "port-closed", "alarms-changed", "reply-empty",
                                     "reply-canceled", "storage-changed", "tab-created", "tab-updated", "tabs-answered", "safari-background", "menu-clicked", "command-pressed", "web-navigation", "action-clicked", "permissions-changed", "menus-changed"]
    private static let lateReply: UInt64 = 21

    private static func code(_ event: ExtensionWire.Event) -> UInt64 {
        switch event {
        case .started: 0
        case .storageCompleted: 1
        case .tabRequestedDecision: 2
        case .tabNativeDarkChanged: 3
        case .tabActivated: 4
        case .tabClosed: 5
        case .safariCameToForeground: 6
        case .appMessageArrived: 7
        case .appearanceChanged: 8
        case .popupOpened: 9
        case .popupClosed: 10
        case .popupChoseScope: 11
        case .popupEdited: 12
        case .popupForgotSite: 13
        case .popupPaused: 14
        case .nativeReplyArrived(_, .replied(.snapshot)): 15
        case .nativeReplyArrived(_, .replied(.notModified)), .nativeReplyArrived(_, .replied(.applied(_, changed: false))): 16
        case .nativeReplyArrived(_, .replied(.applied)): 15
        case .nativeReplyArrived(_, .replied(.error)): 17
        case .nativeReplyArrived(_, .rejected(.handlerEnded)): 18
        case .nativeReplyArrived(_, .rejected(.tooManyRequests)): 19
        case .nativeReplyArrived(_, .unreadable): 20
        case .nativeReplyArrived(_, .replied(.enabled)): 24
        case .timerFired(.nativeTimeout): 22
        case .timerFired(.script): 25
        case .alarmFired: 23
        case .pageMessage: 26
        case .pageAnswered: 27
        case .portOpened: 28
        case .portMessage: 29
        case .portClosed: 30
        case .alarmsChanged: 31
        case .nativeReplyArrived(_, .empty): 32
        case .nativeReplyArrived(_, .rejected(.canceled)): 33
        case .storageChanged: 34
        case .tabCreated: 35
        case .tabUpdated: 36
        case .tabsAnswered: 37
        case .safariWentToBackground: 38
        case .menuClicked: 39
        case .commandPressed: 40
        case .navigated: 41
        case .actionClicked: 42
        case .permissionsChanged: 43
        case .menusChanged: 44
        }
    }

    private static let directiveNames = ["load-storage", "save-local", "save-session", "send-native", "set-timer", "cancel-timer",
                                         "set-alarm", "connect-native", "listen", "send-decision", "show-popup", "popup-saved",
                                         "popup-not-saved", "popup-unsure", "storage-pending", "answer-page", "message-tab",
                                         "message-popup", "port-post", "port-close", "storage-changed", "tabs-call", "action-set", "menus-changed",
                                         "connect-tab", "permissions-removed"]

    private static func directive(_ message: TraceMessage?) -> UInt64? {
        guard case .background(let output)? = message else { return nil }
        // Numbered as `directiveNames` names them; extension storage (0 to 2) never leaves the process.
        switch output {
        case .storagePending: return 14
        case .sendNative: return 3
        case .setTimer: return 4
        case .cancelTimer: return 5
        case .setAlarm, .clearAlarm: return 6
        case .connectNative: return 7
        case .listen: return 8
        case .sendDecision: return 9
        case .showPopup: return 10
        case .popupAnswer(_, saved: true, _): return 11
        case .popupAnswer(_, saved: false, _): return 12
        case .popupAnswer(_, saved: nil, _): return 13
        case .answerPage: return 15
        case .messageTab: return 16
        case .messagePopup: return 17
        case .postOnPort: return 18
        case .closePort: return 19
        case .storageChanged: return 20
        case .tabsCall: return 21
        case .actionSet: return 22
        case .menusChanged: return 23
        case .connectTab: return 24
        case .permissionsRemoved: return 25
        }
    }

    private static func event(_ message: TraceMessage?) -> ExtensionWire.Event? {
        if case .event(let event)? = message { return event }
        return nil
    }

    private static let appNames = ["launched", "foreground", "change-notification", "user-edit"]

    private static func appInput(_ message: TraceMessage?) -> UInt64? {
        guard case .appInput(let event)? = message else { return nil }
        switch event {
        case .launched: return 0
        case .cameToForeground: return 1
        case .changeNotificationArrived: return 2
        case .userEdited: return 3
        }
    }

    private static func code(_ process: ProcessName) -> UInt64 {
        switch process {
        case .app: 0
        case .background: 1
        case .handler: 2
        }
    }

    /// A point's place in `YieldPoint.allCases`.
    private static func code(_ point: YieldPoint) -> UInt64 { UInt64(point.position) }

    /// A fault step that took effect, as two codes: its kind, and its process and point (or a
    /// handler's delay in tenths of a second).
    private static func fault(_ step: Step) -> (UInt64, UInt64)? {
        switch step {
        case .hold(let process, let point): (0, code(process) << 4 | code(point))
        case .crash(let process, let point): (1, code(process) << 4 | code(point))
        case .fail(let process, let point, _, let after): (after ? 3 : 2, code(process) << 4 | code(point))
        case .handler(.slow(let delay)): (4, UInt64(min(delay / 100, 0xFFFF)))
        case .handler(.hung): (5, 0)
        case .handler(.crashing(let afterWrite)): (6, afterWrite ? 1 : 0)
        case .handler(.garbage): (7, 0)
        case .background(.unload): (8, 0)
        case .background(.kill): (9, 0)
        case .background(.freeze): (10, 0)
        case .app(.kill): (11, 0)
        case .safari(.restart): (12, 0)
        default: nil
        }
    }

    private static func faultName(_ kind: UInt64, _ detail: UInt64) -> String {
        func at(_ code: UInt64) -> String {
            let process = Int(code >> 4), point = Int(code & 0xF)
            guard process < ProcessName.allCases.count, point < YieldPoint.allCases.count else { return "?" }
            return "\(ProcessName.allCases[process].rawValue) at \(YieldPoint.allCases[point].rawValue)"
        }
        switch kind {
        case 0: return "hold \(at(detail))"
        case 1: return "crash \(at(detail))"
        case 2: return "fail \(at(detail))"
        case 3: return "fail \(at(detail)) after"
        case 4: return "handler slow \(detail * 100)ms"
        case 5: return "handler hung"
        case 6: return detail == 1 ? "handler crashing after write" : "handler crashing"
        case 7: return "handler garbage"
        case 8: return "background unload"
        case 9: return "background kill"
        case 10: return "background freeze"
        case 11: return "app kill"
        case 12: return "safari restart"
        default: return "?"
        }
    }

    /// A native request of one background, by its number.
    private struct Request: Hashable {
        let background: String
        let number: Int
    }
}
