import ProcessKit
import SiteSettings

/// What a failure shows beside its problem, so that it says why: the state of the run at that
/// moment (which processes live, frozen, suspended or unloaded; the alarm and timers pending;
/// the handler's fault; the flaws on) and the lines of the trace that explain it, not merely
/// the last few.
enum FailureContext {
    /// One line: `background#2 running, app not running, Safari in front, alarm in 59m, ...`.
    static func state(of simulation: Simulation, flaws: Set<Flaw>) -> String {
        var parts: [String] = []
        let incarnation = simulation.backgroundIncarnation
        parts.append(incarnation == 0 ? "no background started" : "background#\(incarnation) \(simulation.backgroundState.rawValue)")
        parts.append(!simulation.appIsRunning ? "the app not running" : simulation.appInForeground ? "the app in front"
                     : simulation.appIsAwake ? "the app running behind Safari" : "the app suspended")
        let suspended = simulation.platform == .iOS && !simulation.safariInForeground
        parts.append(simulation.safariInForeground ? "Safari in front" : suspended ? "Safari in the background (suspended)" : "Safari in the background")
        if !simulation.processes.waiting.isEmpty { parts.append("waiting at yield points: " + simulation.processes.waiting.joined(separator: ", ")) }
        if let alarm = simulation.alarm {
            parts.append(alarm <= simulation.now ? "the alarm due" : "the alarm in \(ScenarioPrinter.duration(alarm - simulation.now))")
        } else {
            parts.append("no alarm")
        }
        // The loaded background's own: a dead one's go with it.
        let timeouts = simulation.backgroundState == .running || simulation.backgroundState == .frozen
            ? simulation.clock.timers.keys.count(where: { $0.incarnation == incarnation }) : 0
        if timeouts > 0 { parts.append("\(timeouts) native timeout\(timeouts == 1 ? "" : "s") pending") }
        if simulation.handlerBehaviour != .healthy { parts.append("the handler \(ScenarioPrinter.line(.handler(simulation.handlerBehaviour)).dropFirst("handler ".count))") }
        if !flaws.isEmpty { parts.append("flaws on: " + flaws.map(\.rawValue).sorted().joined(separator: ", ")) }
        return parts.joined(separator: ", ")
    }

    /// The lines of the trace that explain a failure about `tab` (or about anything, with
    /// none): Safari's notes and the checks', every background's start and end, native
    /// requests, replies and timeouts, what the user did in the popup, and every message
    /// naming the tab; the last `limit` of them, with how many lines the trace has in all.
    static func lines(of log: TraceLog, about tab: TabID?, limit: Int = 12) -> (lines: [String], total: Int) {
        var chosen: [TraceEntry] = []
        for entry in log.entries where explains(entry, about: tab) { chosen.append(entry) }
        return (chosen.suffix(limit).map(log.line), log.entries.count)
    }

    private static func explains(_ entry: TraceEntry, about tab: TabID?) -> Bool {
        if entry.process == "safari" || entry.process == "check" { return true }
        if entry.what.hasPrefix("yield ") { return false }
        // About no tab in particular: every process's lines but its storage bookkeeping.
        guard let tab else {
            if case .event(.storageCompleted)? = entry.message { return false }
            return true
        }
        let isBackground = entry.process.hasPrefix("background#")
        // A process's life: started, unloaded, killed, frozen, died.
        if entry.what != "<-" && entry.what != "->" { return isBackground || entry.process == "harness" }
        switch entry.message {
        case .event(let event)?:
            // What the user did in the popup, and anything naming the tab.
            if event.isFromThePopup || self.tab(of: event) == tab { return true }
            switch event {
            case .started, .nativeReplyArrived, .timerFired: return isBackground
            default: return false
            }
        case .background(let output)?:
            switch output {
            // The popup's view is long and says what the popup shows, not what the page does.
            case .showPopup: return false
            case .popupAnswer: return true
            case .sendDecision(let decided, _), .messageTab(let decided, _, _), .connectTab(_, let decided, _): return decided == tab
            case .answerPage, .messagePopup, .postOnPort, .closePort, .storageChanged, .tabsCall, .menusChanged, .permissionsRemoved: return false
            case .actionSet(let set, _, _): return set == tab
            case .sendNative: return isBackground
            case .storagePending, .setTimer, .cancelTimer, .setAlarm, .clearAlarm, .connectNative, .listen: return false
            }
        // The app's and the handler's messages name no tab.
        case .app?, .handler?, .appInput?, .handlerInput?, .json?, nil:
            return false
        }
    }

    /// The tab an event for the background names, if any.
    private static func tab(of event: ExtensionWire.Event) -> TabID? {
        switch event {
        case .tabRequestedDecision(let tab, _, _), .tabNativeDarkChanged(let tab, _), .tabActivated(let tab), .tabClosed(let tab),
             .popupOpened(let tab), .menuClicked(_, _, let tab, _, _, _):
            tab
        default: nil
        }
    }
}
