import ProcessKit
import SiteSettings

extension RunTimeline {
    /// Reads the trace's events (and the revisions read after each step, when the run kept
    /// them), its times counted from `epoch`.
    init(log: TraceLog, marks: RunMarks, epoch: EpochMillis) {
        var reader = TraceReader(profile: marks.profile, epoch: epoch)
        for (index, entry) in log.entries.enumerated() { reader.read(entry, at: index) }
        self = reader.finish()
        for sample in marks.revisions {
            let at = min(sample.traceIndex, max(count - 1, 0))
            shared.append(.shared(at: at, revision: sample.shared, note: "read after the step"))
            let outbox = sample.outbox == 0 ? "" : ", \(sample.outbox) waiting in the outbox"
            cache.append(Revision(at: at, revision: sample.cache, note: "read after the step" + outbox, profile: sample.profile))
        }
        // In order of the trace, and in the order they were read at one line.
        shared = shared.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }
}

/// Builds a `RunTimeline` event by event.
private struct TraceReader {
    var timeline = RunTimeline()
    var laneIndex: [String: Int] = [:]
    var tabIndex: [String: Int] = [:]
    var profile: String
    /// Requests sent and not yet taken by a handler: (background, request, message, index).
    var sent: [(background: String, request: Int, message: NativeRequest, at: Int)] = []
    /// What each handler was asked: (background, request), or nil for the first version's messages.
    var asked: [String: (background: String, request: Int)] = [:]
    /// Replies on their way: (background, request) → (handler, index).
    var replies: [String: (handler: String, at: Int)] = [:]
    /// Requests that timed out, by background and request.
    var timedOut: Set<String> = []
    var appMessages: [(from: String, at: Int)] = []
    var notifications: [(from: String, at: Int)] = []
    /// A page's messages by the page host's number (the page and when it sent it), the
    /// background's answers to them, and the background's messages to tabs, on their way.
    var pageMessages: [Int: (page: String, at: Int)] = [:]
    var pageAnswers: [Int: (background: String, at: Int)] = [:]
    var tabMessages: [Int: (background: String, at: Int)] = [:]
    /// Native replies the backgrounds took, in all: a tab's first decision counts those since its load.
    var repliesTaken = 0
    var repliesAtLoad: [String: Int] = [:]

    let epoch: EpochMillis

    init(profile: String, epoch: EpochMillis) {
        self.profile = profile
        self.epoch = epoch
    }

    /// Messages that only keep timers, listeners and storage tokens: they take no room on the timeline.
    static func isBookkeeping(_ message: TraceMessage) -> Bool {
        switch message {
        case .event(.storageCompleted): true
        case .background(let output):
            switch output {
            case .setTimer, .cancelTimer, .storagePending, .listen, .connectNative, .setAlarm, .clearAlarm: true
            case .sendNative, .sendDecision, .showPopup, .popupAnswer, .answerPage, .messageTab, .messagePopup, .postOnPort, .closePort, .connectTab,
                 .storageChanged, .tabsCall, .actionSet, .menusChanged, .permissionsRemoved: false
            }
        default: false
        }
    }

    mutating func read(_ entry: TraceEntry, at index: Int) {
        timeline.times.append(entry.time - epoch)
        let label = entry.process
        let rest = entry.what
        switch label {
        case "safari":
            safari(rest, at: index)
            safariState(rest, at: index)
        case "pages":
            // `tab t1 page: style.filter=invert(1), data.theme=dark`: what the extension's own page shows.
            if rest.hasPrefix("tab "), let colon = rest.range(of: " page: ") {
                showPage(String(rest[rest.index(rest.startIndex, offsetBy: 4)..<colon.lowerBound]), String(rest[colon.upperBound...]), at: index)
            }
            pageTraffic(rest, at: index)
        case "harness":
            if rest.hasPrefix("the device sleeps") { enter(.asleep, at: index) }
            if rest == "the device wakes" {
                // Safari's timers stopped with its monotonic clock: a pending alarm falls due that much later.
                if let asleep = timeline.safari.last(where: { $0.state == .asleep }), let alarm = pendingAlarm {
                    timeline.alarms[alarm].dueAt += timeline.times[index] - timeline.times[asleep.from]
                }
                enter(timeline.safari.last(where: { $0.state != .asleep })?.state ?? .front, at: index)
            }
            if rest.hasPrefix("power lost") {
                // Safari's queue and every process went with the power: nothing on its way arrives.
                sent = []
                replies = [:]
                appMessages = []
                notifications = []
            }
            if rest.hasPrefix("power lost") || rest == "heal" { timeline.events.append((index, rest == "heal" ? "healed" : rest)) }
            if rest.hasPrefix("power lost") { endAlarm(.dropped, at: index) }
        case "check": timeline.checks.append((index, rest))
        default: process(label, rest, entry.message, at: index)
        }
    }

    // MARK: Processes

    mutating func process(_ label: String, _ rest: String, _ message: TraceMessage?, at index: Int) {
        guard let kind = RunTimeline.ProcessLane.Kind(rawValue: String(label.prefix { $0 != "#" })) else { return }
        if laneIndex[label] == nil {
            laneIndex[label] = timeline.processes.count
            timeline.processes.append(RunTimeline.ProcessLane(label: label, kind: kind, from: index, to: index))
        }
        let lane = laneIndex[label]!
        timeline.processes[lane].to = index
        if let message {
            if Self.isBookkeeping(message) { timeline.quiet.insert(index) }
            if rest == "<-" { input(label, message, at: index) } else { output(label, message, at: index) }
            return
        }
        switch rest {
        case "frozen": open(.frozen, lane, at: index, note: "frozen: takes nothing, its timers stop")
        case "thawed": close(.frozen, lane, at: index)
        case "suspended": open(.suspended, lane, at: index, note: "suspended: misses notifications")
        case "unloaded", "safari restart":
            end(lane, .unloaded(rest), at: index)
        case "killed", "power lost":
            end(lane, .killed(rest), at: index)
        default:
            if rest.hasPrefix("yield ") {
                timeline.processes[lane].marks.append(.init(kind: .yield, at: index, note: rest))
            } else if rest.hasPrefix("held at ") {
                open(.held, lane, at: index, note: rest)
            } else if rest.hasPrefix("resumed at ") {
                close(.held, lane, at: index)
            } else if rest.hasPrefix("fail ") {
                timeline.processes[lane].marks.append(.init(kind: .fault, at: index, note: rest))
            } else if rest.hasPrefix("killed at ") || rest.hasPrefix("died unexpectedly") || rest.hasPrefix("crashed") {
                end(lane, .killed(rest), at: index)
            } else if rest.hasPrefix("profile ") {
                end(lane, .unloaded(rest), at: index)
            } else {
                // A withheld or garbled reply, an unreadable frame: shown where it happened.
                timeline.processes[lane].marks.append(.init(kind: .problem, at: index, note: rest))
                if rest.hasPrefix("reply withheld"), let (background, request) = asked[label] {
                    replies["\(background) \(request)"] = nil
                }
                if rest.hasPrefix("message to the extension failed"), let last = appMessages.lastIndex(where: { $0.from == label }) {
                    appMessages.remove(at: last)
                }
            }
        }
    }

    mutating func open(_ state: RunTimeline.ProcessLane.Span.State, _ lane: Int, at index: Int, note: String) {
        timeline.processes[lane].spans.append(.init(state: state, from: index, to: -1, note: note))
    }

    mutating func close(_ state: RunTimeline.ProcessLane.Span.State, _ lane: Int, at index: Int) {
        if let open = timeline.processes[lane].spans.lastIndex(where: { $0.state == state && $0.to < 0 }) {
            timeline.processes[lane].spans[open].to = index
        }
    }

    mutating func end(_ lane: Int, _ end: RunTimeline.ProcessLane.End, at index: Int) {
        timeline.processes[lane].end = end
        // A handler that dies before its reply still ends its request: Safari answers for it.
        let label = timeline.processes[lane].label
        if let (background, request) = asked[label], replies["\(background) \(request)"] == nil {
            replies["\(background) \(request)"] = (label, index)
        }
        for span in timeline.processes[lane].spans.indices where timeline.processes[lane].spans[span].to < 0 {
            timeline.processes[lane].spans[span].to = index
        }
    }

    mutating func input(_ label: String, _ message: TraceMessage, at index: Int) {
        if case .event(let event) = message, let lane = laneIndex[label], timeline.processes[lane].kind == .background,
           timeline.processes[lane].startedFor == nil {
            timeline.processes[lane].startedFor = Self.wakes(event)
        }
        switch message {
        case .event(.pageMessage(let id, _, _, _, _)):
            if let sent = pageMessages[id] {
                timeline.arrows.append(.init(from: sent.page, fromIndex: sent.at, to: label, toIndex: index, outcome: .page, note: "message \(id)"))
            }
        case .handlerInput(.requestArrived(let json, _)):
            // Read as the background's codec reads what it sends (the first version's messages,
            // which no background sent, match nothing).
            let message = NativeRequest.decode(json)
            guard let match = sent.firstIndex(where: { $0.message == message }) else { return }
            let request = sent.remove(at: match)
            asked[label] = (request.background, request.request)
            timeline.arrows.append(.init(from: request.background, fromIndex: request.at, to: label, toIndex: index, outcome: .request,
                                         note: "request \(request.request): \(Self.summary(request.message))"))
        case .event(.nativeReplyArrived(let request, let outcome)):
            repliesTaken += 1
            let key = "\(label) \(request)"
            guard let reply = replies.removeValue(forKey: key) else { return }
            // What arrived, not what the handler wrote: a crash or garbage changes it on the way.
            timeline.arrows.append(.init(from: reply.handler, fromIndex: reply.at, to: label, toIndex: index,
                                         outcome: timedOut.contains(key) ? .timedOut : Self.outcome(of: outcome),
                                         note: "reply to request \(request): \(Self.summary(outcome))"))
        case .event(.timerFired(.nativeTimeout(let request))):
            guard let lane = laneIndex[label] else { return }
            timedOut.insert("\(label) \(request)")
            timeline.processes[lane].marks.append(.init(kind: .timeout, at: index, note: "request \(request) timed out"))
        case .event(.appMessageArrived):
            if let message = next(&appMessages, for: label) {
                timeline.arrows.append(.init(from: message.from, fromIndex: message.at, to: label, toIndex: index, outcome: .message,
                                             note: "the app's message"))
            }
        case .appInput(.changeNotificationArrived):
            if let notification = next(&notifications, for: label) {
                timeline.arrows.append(.init(from: notification.from, fromIndex: notification.at, to: label, toIndex: index, outcome: .message,
                                             note: "settings changed"))
            }
        case .appInput(.cameToForeground):
            if let lane = laneIndex[label] { close(.suspended, lane, at: index) }
        case .event(.alarmFired):
            endAlarm(.fired, at: index)
        default: break
        }
    }

    mutating func output(_ label: String, _ message: TraceMessage, at index: Int) {
        switch message {
        case .background(.sendNative(let request, let native)):
            sent.append((label, request, native, index))
        case .handler(.reply(let reply)):
            revision(reported: reply, at: index, by: label)
            if let (background, request) = asked[label] { replies["\(background) \(request)"] = (label, index) }
        case .handler(.postChangeNotification):
            notifications.append((label, index))
        case .app(.messageExtension):
            appMessages.append((label, index))
        case .app(.editSaved(let revision, _)):
            timeline.shared.append(.shared(at: index, revision: Int(revision), note: "written by \(label)"))
        case .app(.showView(let view)):
            timeline.shared.append(.shared(at: index, revision: Int(view.revision), note: "read by \(label)"))
        case .background(.setAlarm(let at, _, _)):
            endAlarm(.replaced, at: index)
            timeline.alarms.append(.init(from: index, dueAt: at - epoch, due: nil, to: -1, end: .pending))
        case .background(.answerPage(let id, _)):
            pageAnswers[id] = (label, index)
        case .background(.messageTab(_, let id, _)):
            tabMessages[id] = (label, index)
        case .handler(.answer):
            if let (background, request) = asked[label] { replies["\(background) \(request)"] = (label, index) }
        case .handler(.dispatchMessage):
            appMessages.append((label, index))
        case .background(.sendDecision(let tab, let decision)):
            show(tab.rawValue, RunTimeline.TabLane.Shown(enabled: decision.enabled, theme: decision.theme.rawValue, reason: decision.reason.rawValue), at: index)
        default: break
        }
    }

    /// Why a background started, from its first event: Safari's reason when it loaded it for
    /// its launch, the install or an update, else the event that woke it; nil while only its
    /// start and storage have come.
    static func wakes(_ event: ExtensionWire.Event) -> String? {
        switch event {
        case .started(_, _, _, _, _, let reason?, _, _, _, _):
            switch reason {
            case .startup: "Safari's launch"
            case .install: "the install"
            case .update: "the update"
            }
        case .started, .storageCompleted: nil
        case .tabRequestedDecision(let tab, _, _): "tab \(tab.rawValue)'s question"
        case .pageMessage(_, .tab(let tab, _), _, _, _): "tab \(tab.rawValue)'s message"
        case .pageMessage(_, .popup, _, _, _): "the popup's message"
        case .portOpened: "a page's port"
        case .alarmFired(let name): "alarm \(name.isEmpty ? "(unnamed)" : name)"
        default: ExtensionWire.name(event)
        }
    }

    /// A page's line that is part of a message between a page and the background: a tab's
    /// message sent (`tab t1 sends message 3 {...}`), an answer it got (`message 3 answered
    /// ...`), a background's message a tab heard (`tab t1 hears message 2 ...`).
    mutating func pageTraffic(_ rest: String, at index: Int) {
        func number(after marker: String, in text: Substring) -> Int? {
            guard let range = text.range(of: marker) else { return nil }
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
        let text = rest[...]
        if rest.hasPrefix("tab "), let id = number(after: " sends message ", in: text) {
            pageMessages[id] = (laneName(page: String(text[..<text.range(of: " sends message ")!.lowerBound])), index)
        } else if rest.hasPrefix("message "), !rest.contains(" to a page "), let id = number(after: "message ", in: text),
                  let answer = pageAnswers.removeValue(forKey: id), let sent = pageMessages.removeValue(forKey: id) {
            timeline.arrows.append(.init(from: answer.background, fromIndex: answer.at, to: sent.page, toIndex: index, outcome: .page, note: "the answer to message \(id)"))
        } else if rest.hasPrefix("tab "), let id = number(after: " hears message ", in: text), let sent = tabMessages.removeValue(forKey: id) {
            let page = laneName(page: String(text[..<text.range(of: " hears message ")!.lowerBound]))
            timeline.arrows.append(.init(from: sent.background, fromIndex: sent.at, to: page, toIndex: index, outcome: .page, note: "message \(id) to the tab"))
        }
    }

    /// A tab's page as the page host names it (`tab work/t1`) as its lane is named (`tab t1
    /// (work)`; the default profile's by the tab alone).
    func laneName(page: String) -> String {
        let key = page.dropFirst("tab ".count)
        guard let slash = key.firstIndex(of: "/") else { return page }
        let profile = String(key[..<slash]), tab = String(key[key.index(after: slash)...])
        return profile == RunMarks().profile ? "tab " + tab : "tab \(tab) (\(profile))"
    }

    /// A handler's reply says which revision it read or wrote.
    mutating func revision(reported reply: NativeReply, at index: Int, by label: String) {
        switch reply {
        case .applied(let version?, _):
            timeline.shared.append(.shared(at: index, revision: Int(version.revision), note: "written by \(label)"))
        case .notModified(let version):
            timeline.shared.append(.shared(at: index, revision: Int(version.revision), note: "read by \(label)"))
        case .snapshot(let document):
            timeline.shared.append(.shared(at: index, revision: Int(document.revision), note: "read by \(label)"))
        case .applied(nil, _), .enabled, .error: break
        }
    }

    /// The oldest message still on its way, skipping those sent before `receiver` started.
    func next(_ queue: inout [(from: String, at: Int)], for receiver: String) -> (from: String, at: Int)? {
        let start = laneIndex[receiver].map { timeline.processes[$0].from } ?? 0
        queue.removeAll { $0.at < start }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    static func outcome(of outcome: NativeOutcome) -> RunTimeline.Arrow.Outcome {
        switch outcome {
        case .replied(.applied(_, let changed)): changed ? .applied : .unchanged
        case .replied(.notModified): .unchanged
        case .replied(.snapshot), .replied(.enabled): .applied
        case .replied(.error), .rejected, .unreadable: .refused
        case .empty: .unchanged
        }
    }

    /// A request's name and what it concerns, short enough for a tooltip.
    static func summary(_ request: NativeRequest) -> String {
        switch request {
        case .getSnapshot, .getEnabled, .toggleEnabled, .other: request.name
        case .patch(let scope, let set, _, _):
            // The fields set, by name.
            ([request.name, scope.text] + [set.mode.map { "mode=\($0.rawValue)" }, set.nativeDarkPolicy.map { "nativeDarkPolicy=\($0.rawValue)" },
                                           set.theme.map { "theme=\($0.rawValue)" }].compactMap { $0 }).joined(separator: " ")
        case .deleteSite(let scope, _): "\(request.name) \(scope.text)"
        case .putDocument(let document): "\(request.name) revision \(document.revision)"
        }
    }

    /// How a request ended, short enough for a tooltip.
    static func summary(_ outcome: NativeOutcome) -> String {
        switch outcome {
        case .replied(let reply):
            switch reply {
            case .snapshot(let document): "\(reply.name) revision \(document.revision)"
            case .notModified(let version), .applied(let version?, _): "\(reply.name) revision \(version.revision)"
            case .applied(nil, _), .enabled: reply.name
            case .error(let code, _): "\(reply.name) \(code.rawValue)"
            }
        case .rejected(let reason): "rejected \(reason.rawValue)"
        case .unreadable: "unreadable"
        case .empty: "no message"
        }
    }

    // MARK: Safari's side

    mutating func safari(_ rest: String, at index: Int) {
        let words = rest.split(separator: " ").map(String.init)
        if words.count >= 3, words[0] == "tab" {
            let tab = words[1]
            switch words[2] {
            case "opened":
                // `tab t1 opened in profile P, window W: URL`
                let owner = words.count > 5 ? String(words[5].dropLast()) : profile
                load(tab, profile: owner, at: index)
            case "loads": load(tab, profile: profile, at: index)
            case "closed": cut(tabIndex["\(profile) \(tab)"], at: index)
            default: break
            }
        } else if words.count >= 4, words[0] == "profile", words.last == "front" {
            let next = words[1]
            for lane in timeline.tabs.indices where timeline.tabs[lane].profile == profile { hide(lane, at: index) }
            for lane in timeline.tabs.indices where timeline.tabs[lane].profile == next { unhide(lane, at: index) }
            profile = next
        } else if rest.hasPrefix("dropped reply for ") {
            // One reply per line, the oldest on its way to that background.
            let background = String(rest.dropFirst("dropped reply for ".count))
            if let (key, reply) = replies.filter({ $0.key.hasPrefix(background + " ") }).min(by: { ($0.value.at, $0.key) < ($1.value.at, $1.key) }) {
                replies[key] = nil
                timeline.arrows.append(.init(from: reply.handler, fromIndex: reply.at, to: background, toIndex: index, outcome: .dropped,
                                             note: "reply dropped: \(background) is gone"))
            }
        } else if rest.hasPrefix("refused a native request") {
            // Safari serves requests in order: the oldest not yet taken is the one refused.
            if !sent.isEmpty, let lane = laneIndex[sent[0].background] {
                let refused = sent.removeFirst()
                timeline.processes[lane].marks.append(.init(kind: .problem, at: index, note: "request \(refused.request) refused by Safari (\(rest.dropFirst("refused a native request: ".count)))"))
            }
        } else if rest.hasPrefix("the app's message dropped") {
            if !appMessages.isEmpty { appMessages.removeFirst() }
        }
    }

    /// Safari's own state, from its notes: in front or not, and the alarms it dropped.
    mutating func safariState(_ rest: String, at index: Int) {
        if rest == "Safari comes to the front" { enter(.front, at: index) }
        if rest.hasPrefix("Safari goes to the background") { enter(rest.contains("suspends") ? .suspended : .background, at: index) }
        if rest.hasPrefix("alarms dropped") { endAlarm(.dropped, at: index) }
        // Another profile's extension keeps its alarms out of sight: this lane is the front one's.
        if rest.hasPrefix("profile ") && rest.hasSuffix(" in front") { endAlarm(.putAway, at: index) }
        // `alarm raised to the minimum delay, 30 s`: Safari moved the alarm just set.
        if rest.hasPrefix("alarm raised to the minimum delay, "), let alarm = pendingAlarm,
           let seconds = Int64(rest.dropFirst("alarm raised to the minimum delay, ".count).prefix { $0.isNumber }) {
            timeline.alarms[alarm].dueAt = max(timeline.alarms[alarm].dueAt, timeline.times[index] + seconds * 1000)
        }
    }

    /// The alarm still set, if one is.
    var pendingAlarm: Int? {
        timeline.alarms.indices.last.flatMap { timeline.alarms[$0].to < 0 ? $0 : nil }
    }

    mutating func enter(_ state: RunTimeline.SafariSpan.State, at index: Int) {
        if let last = timeline.safari.indices.last {
            guard timeline.safari[last].state != state else { return }
            timeline.safari[last].to = index
        }
        timeline.safari.append(.init(state: state, from: index, to: -1))
    }

    /// The alarm still set, if any, ends here.
    mutating func endAlarm(_ end: RunTimeline.Alarm.End, at index: Int) {
        guard let alarm = pendingAlarm else { return }
        timeline.alarms[alarm].to = index
        timeline.alarms[alarm].end = end
    }

    mutating func lane(_ tab: String, profile owner: String) -> Int {
        let key = "\(owner) \(tab)"
        if let lane = tabIndex[key] { return lane }
        tabIndex[key] = timeline.tabs.count
        timeline.tabs.append(RunTimeline.TabLane(profile: owner, tab: tab))
        return timeline.tabs.count - 1
    }

    /// The page (re)loads: nothing applied until its first decision.
    mutating func load(_ tab: String, profile owner: String, at index: Int) {
        let lane = lane(tab, profile: owner)
        cut(lane, at: index)
        timeline.tabs[lane].segments.append(.init(decision: nil, from: index, to: -1))
        repliesAtLoad["\(owner) \(tab)"] = repliesTaken
    }

    mutating func show(_ tab: String, _ shown: RunTimeline.TabLane.Shown, at index: Int) {
        let key = "\(profile) \(tab)"
        guard let lane = tabIndex[key], timeline.tabs[lane].segments.last?.to ?? 0 < 0 else { return }
        let firstSinceLoad = timeline.tabs[lane].segments.last?.decision == nil
        cut(lane, at: index)
        timeline.tabs[lane].segments.append(.init(decision: shown, from: index, to: -1))
        if firstSinceLoad {
            timeline.tabs[lane].firsts.append(.init(at: index, repliesBefore: repliesTaken - (repliesAtLoad[key] ?? 0)))
        }
    }

    /// What the extension's own page shows now.
    mutating func showPage(_ tab: String, _ summary: String, at index: Int) {
        guard let lane = tabIndex["\(profile) \(tab)"], timeline.tabs[lane].segments.last?.to ?? 0 < 0 else { return }
        cut(lane, at: index)
        timeline.tabs[lane].segments.append(.init(decision: nil, from: index, to: -1, page: summary))
    }

    /// Ends the open segment of a tab (closed, reloaded, or a new decision).
    mutating func cut(_ lane: Int?, at index: Int) {
        guard let lane, let last = timeline.tabs[lane].segments.indices.last, timeline.tabs[lane].segments[last].to < 0 else { return }
        timeline.tabs[lane].segments[last].to = index
    }

    mutating func hide(_ lane: Int, at index: Int) {
        timeline.tabs[lane].hidden.append(index...Int.max)
    }

    mutating func unhide(_ lane: Int, at index: Int) {
        guard let last = timeline.tabs[lane].hidden.indices.last, timeline.tabs[lane].hidden[last].upperBound == Int.max else { return }
        timeline.tabs[lane].hidden[last] = timeline.tabs[lane].hidden[last].lowerBound...index
    }

    mutating func finish() -> RunTimeline {
        let end = max(timeline.count - 1, 0)
        if timeline.safari.isEmpty { timeline.safari = [.init(state: .front, from: 0, to: end)] }
        if timeline.safari[0].from > 0 { timeline.safari.insert(.init(state: .front, from: 0, to: timeline.safari[0].from), at: 0) }
        if let last = timeline.safari.indices.last, timeline.safari[last].to < 0 { timeline.safari[last].to = end }
        for alarm in timeline.alarms.indices {
            if timeline.alarms[alarm].to < 0 { timeline.alarms[alarm].to = end }
            let (from, to, dueAt) = (timeline.alarms[alarm].from, timeline.alarms[alarm].to, timeline.alarms[alarm].dueAt)
            timeline.alarms[alarm].due = (from...to).first { timeline.times[$0] >= dueAt }
        }
        for lane in timeline.processes.indices {
            if timeline.processes[lane].kind == .handler && timeline.processes[lane].end == .running { timeline.processes[lane].end = .exited }
            if timeline.processes[lane].end == .running { timeline.processes[lane].to = end }
            for span in timeline.processes[lane].spans.indices where timeline.processes[lane].spans[span].to < 0 {
                timeline.processes[lane].spans[span].to = timeline.processes[lane].to
            }
        }
        for lane in timeline.tabs.indices {
            cut(lane, at: end)
            timeline.tabs[lane].hidden = timeline.tabs[lane].hidden.map { $0.lowerBound...min($0.upperBound, end) }
        }
        // A reply still on its way when the trace ends gets no arrow: only what arrived, or what
        // Safari said it dropped, is drawn.
        if timeline.runsOwnPages {
            // An extension of another design: a reply that is not one of the design's messages is
            // its handler's own answer, not a refusal.
            for arrow in timeline.arrows.indices where timeline.arrows[arrow].note.hasSuffix(": " + Self.summary(.unreadable(.null))) {
                timeline.arrows[arrow].outcome = .unchanged
                timeline.arrows[arrow].note = String(timeline.arrows[arrow].note.dropLast(Self.summary(.unreadable(.null)).count)) + "an answer of its own"
            }
        }
        return timeline
    }
}
