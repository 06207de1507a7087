import ProcessKit
import SiteSettings

/// The liveness properties checked as virtual time passes (invariants 6, 7, 8, 11 and 13):
/// each page's wait for a decision, each reconciliation point's bound, and each change that
/// time brings to a page or to the open popup. The simulation tells it what
/// happened (a reconciliation point, a background's death, a new story) and, as time moves,
/// lets it check whatever falls due before the next event fires.
final class LivenessChecks {
    /// Invariants 7 and 8: a reconciliation point reached by a live background (7), or on macOS
    /// an app change arriving on its port (8), brings every visible tab to the shared document's
    /// decision (which must then be the reference's, invariant 12) within one native timeout plus the handler's delay, if nothing disturbs the run
    /// meanwhile: no step that changes the document, the handler or a background's life
    /// (`Step.keepsReconciliationBound`), no planned or pending hold, crash or failure, no
    /// death (a power cut is one), no freeze, a handler that answers within the timeout. The
    /// first pending point's bound holds while it is not void.
    struct ConvergenceWatch {
        var since: EpochMillis
        var due: EpochMillis
        var cause: String
        var invariant: Int
        var deaths: Int
        var faults: Int
    }

    /// Invariant 6: every tab that asks gets a decision within the background's native timeout,
    /// whatever the handler does (from the cache, or from the built-in defaults). A page waits
    /// for nothing while it cannot be answered for a reason the scenario chose and that lasts:
    /// iOS Safari suspended, the background frozen or held at a yield point, or every
    /// background that woke for it killed before it answered, more than `emptyAnswersExcused`
    /// times in a row (its content script may stop asking); its wait starts again when that ends.
    static var decisionTimeout: EpochMillis { BackgroundMachine.nativeTimeout }

    /// How long a page may wait for its decision: the native timeout, after the background's
    /// load (`background-load-time`), which its question may have to wait for.
    private var decisionBound: EpochMillis { Self.decisionTimeout + simulation.backgroundLoadTime }

    /// Empty answers in a row after which a page may stop asking: a content script that asks
    /// again after fewer fails invariant 6.
    static let emptyAnswersExcused = 3

    /// Invariant 11: a visible tab whose decision changes with time (a schedule boundary or a
    /// pause's end in the document its background holds, its cache) gets a decision within
    /// the alarm minimum of the change, while Safari runs in front with the device awake and
    /// nothing disturbs the run.
    struct TimeWatch {
        var tab: TabID
        var boundary: EpochMillis
        var due: EpochMillis
        var faults: Int
    }

    /// Invariant 13: an open popup that shows the pause gets a view without it within the
    /// alarm minimum of the pause's end, under the same conditions as invariant 11.
    struct PopupWatch {
        var tab: TabID
        var pauseEnd: EpochMillis
        var due: EpochMillis
        var faults: Int
    }

    private unowned let simulation: Simulation
    private(set) var timeWatches: [TimeWatch] = []
    private(set) var popupWatch: PopupWatch?
    /// The rules' own reading of a decision, over the background's cache (invariant 12 keeps
    /// another, over the shared document).
    private let reference = ReferenceCheck()
    /// The stored cache is what the loaded background holds (no storage step of it failed
    /// since it started or last saved).
    private var cacheIsCurrent = true
    private(set) var watch: ConvergenceWatch?
    /// Every death of a background so far (a power cut is one).
    private(set) var backgroundDeaths = 0

    init(_ simulation: Simulation) {
        self.simulation = simulation
    }

    // MARK: - What happened

    func backgroundDied() { backgroundDeaths += 1 }

    /// A background took a reconciliation point or an app change: its tabs are due to agree
    /// with the shared document once the handler has had time to answer.
    func reconciliationReached(_ cause: String, invariant: Int) {
        let delay: EpochMillis
        switch simulation.handlerBehaviour {
        case .healthy: delay = 0
        case .slow(let d) where d < Self.decisionTimeout: delay = d
        case .slow, .hung, .crashing, .garbage:
            watch = nil
            return
        }
        // A later point does not push back the bound of one still pending, unless that one
        // was made void by a death or a fault since.
        let faults = simulation.arbiter.faultsUsed, now = simulation.now
        if let pending = watch, pending.deaths == backgroundDeaths, pending.faults == faults { return }
        watch = ConvergenceWatch(since: now, due: now + Self.decisionTimeout + delay + 1, cause: cause, invariant: invariant, deaths: backgroundDeaths, faults: faults)
    }

    /// The scenario changed the document, the handler or a background's life: what follows is
    /// a new story, and the pending bound no longer applies.
    func boundEnded() { watch = nil }

    /// The device slept: Safari's timers stopped, so no change that time brought is held to
    /// invariant 11's bound.
    func deviceSlept() {
        timeWatches = []
        popupWatch = nil
    }

    /// Whether the stored cache is what the loaded background holds.
    func storedCache(isCurrent: Bool) { cacheIsCurrent = isCurrent }

    /// Time moved from `from` to `to` with nothing happening in between: a visible tab whose
    /// decision changed with time meanwhile, by the background's own document (its stored
    /// cache, when no storage step has failed since and no patch of the popup's is waiting)
    /// and its pause, is watched from the moment it changed (invariant 11).
    func timeMoved(from: EpochMillis, to: EpochMillis) {
        watchPopup(from: from, to: to)
        let unwatched = simulation.visibleTabs.filter { id in !timeWatches.contains { $0.tab == id } }
        guard to > from, cacheIsCurrent, !unwatched.isEmpty, let local = simulation.storedLocal, local.outbox.isEmpty,
              let cache = local.cache else { return }
        let session = simulation.storedSession
        for id in unwatched {
            guard let tab = simulation.safari.tabs[id] else { continue }
            // When the decision changes is read from the rules (`ReferenceDecision`), not from
            // the product's `Resolver`: a product that gets a boundary wrong must not set the
            // deadline it is held to.
            func decision(at time: EpochMillis) -> ReferenceDecision {
                reference.decision(url: tab.url, document: cache,
                                   context: DecisionContext(appearance: simulation.appearance, now: time, utcOffsetMinutes: 0,
                                                            pausedUntil: session?.pausedUntil, pageIsNativelyDark: tab.nativeDark))
            }
            let before = decision(at: from)
            guard decision(at: to) != before else { continue }
            // The first moment it differs.
            var low = from, high = to
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if decision(at: middle) == before { low = middle } else { high = middle }
            }
            timeWatches.append(TimeWatch(tab: id, boundary: high, due: high + simulation.safari.alarmMinimum + alarmLateness + 1, faults: simulation.arbiter.faultsUsed))
        }
    }

    /// How much later on the wall clock the background's alarm fires than it was set for:
    /// the bounds of invariants 11 and 13 count on Safari's monotonic clock, which stopped
    /// while the device slept since the alarm was set. Whichever alarm the background set for
    /// the change (an extension's may have any name), the latest of them.
    private var alarmLateness: EpochMillis {
        simulation.safari.alarms.values.map(\.sleptSinceSet).max() ?? 0
    }

    /// The open popup shows a pause that ends in (from, to]: watched from its end (invariant 13).
    private func watchPopup(from: EpochMillis, to: EpochMillis) {
        guard popupWatch == nil, to > from, let tab = simulation.popupTab, let shown = simulation.popup?.pausedUntil,
              from < shown, shown <= to else { return }
        popupWatch = PopupWatch(tab: tab, pauseEnd: shown, due: shown + simulation.safari.alarmMinimum + alarmLateness + 1,
                                faults: simulation.arbiter.faultsUsed)
    }

    // MARK: - As time moves

    /// Checks the first deadline or bound that falls due by `end` and before `event` (the
    /// next thing to fire), with time moved to it; false when none does. While waits are
    /// excused no deadline can pass: the excuse lasts until something fires, and every wait
    /// restarts then (and at the end of an advance).
    func checkDue(by end: EpochMillis, before event: EpochMillis?) -> Bool {
        if !waitsAreExcused, let deadline = nextDecisionDeadline(), deadline <= end, event.map({ deadline < $0 }) ?? true {
            simulation.clock.now = deadline
            checkDecisionDeadlines()
            return true
        }
        if let watch, watch.due <= end, event.map({ watch.due < $0 }) ?? true {
            simulation.clock.now = watch.due
            checkConvergence(watch)
            return true
        }
        if let next = timeWatches.min(by: { $0.due < $1.due }), next.due <= end, event.map({ next.due < $0 }) ?? true {
            simulation.clock.now = next.due
            checkTimeWatches()
            return true
        }
        if let watch = popupWatch, watch.due <= end, event.map({ watch.due < $0 }) ?? true {
            simulation.clock.now = watch.due
            checkPopupWatch(watch)
            return true
        }
        return false
    }

    /// Called as time moves (before an event fires, and at the end of an advance): while an
    /// excuse lasts, the wait of every page it covers starts again from now, so its deadline
    /// falls one timeout after the excuse ends, whatever ends it.
    func restartExcusedWaits() {
        for (id, tab) in simulation.safari.tabs where waitIsExcused(tab) { simulation.safari.restartWait(of: id, now: simulation.now) }
    }

    // MARK: - The checks

    private func checkConvergence(_ watch: ConvergenceWatch) {
        self.watch = nil
        let simulation = simulation, safari = simulation.safari, arbiter = simulation.arbiter, now = simulation.now
        guard simulation.background != nil, backgroundDeaths == watch.deaths, arbiter.faultsUsed == watch.faults, !arbiter.isDisturbed,
              !safari.isBackgroundFrozen, simulation.platform == .macOS || safari.safariInForeground,
              simulation.files.containerFile(FileContainer.documentName) != nil else { return }
        let views = ExpectationChecker.tabViews(simulation, steadySince: watch.since)
        for problem in views.disagreeing {
            simulation.monitor.caught(Violation(.invariant(watch.invariant), "\(problem), \(ScenarioPrinter.duration(now - watch.since)) after \(watch.cause) at \(simulation.trace.time(watch.since))"), now: now)
        }
        for problem in views.unlikeReference { simulation.monitor.caught(problem, now: now) }
    }

    /// Invariant 11 at its deadlines: each watched tab has had a decision since the change,
    /// unless the run was disturbed (Safari away or suspended, the background frozen or a
    /// process held, a fault used, a handler not answering) or the tab is out of sight.
    private func checkTimeWatches() {
        let now = simulation.now
        let disturbed = waitsAreExcused || !simulation.safari.safariInForeground || simulation.handlerBehaviour != .healthy
        for watch in timeWatches where watch.due <= now {
            guard !disturbed, watch.faults == simulation.arbiter.faultsUsed, simulation.visibleTabs.contains(watch.tab),
                  let tab = simulation.safari.tabs[watch.tab], (tab.decidedAt ?? .min) < watch.boundary else { continue }
            simulation.monitor.caught(Violation(.invariant(11), "tab \(watch.tab.rawValue)'s decision changed with time at \(simulation.trace.time(watch.boundary)) and it had no new decision \(ScenarioPrinter.duration(now - watch.boundary)) later"), now: now)
        }
        timeWatches.removeAll { $0.due <= now }
    }

    /// Invariant 13 at its deadline: the popup still open on the same tab no longer shows the
    /// pause, unless the run was disturbed as invariant 11 allows, or the loaded background does
    /// not know the popup is open (one started since the popup last spoke learns it only with
    /// the popup's next message, and the popup does not speak when its port is cut).
    private func checkPopupWatch(_ watch: PopupWatch) {
        popupWatch = nil
        let safari = simulation.safari
        let disturbed = waitsAreExcused || !safari.safariInForeground || simulation.handlerBehaviour != .healthy
        guard !disturbed, safari.loadedBackground?.knowsThePopup == true, watch.faults == simulation.arbiter.faultsUsed,
              simulation.popupTab == watch.tab, safari.tabs[watch.tab] != nil,
              let shown = simulation.popup?.pausedUntil, shown <= watch.pauseEnd else { return }
        simulation.monitor.caught(Violation(.invariant(13), "the popup on tab \(watch.tab.rawValue) still shows the pause that ended at \(simulation.trace.time(watch.pauseEnd)), \(ScenarioPrinter.duration(simulation.now - watch.pauseEnd)) later"), now: simulation.now)
    }

    private func nextDecisionDeadline() -> EpochMillis? {
        var next: EpochMillis?
        for tab in simulation.safari.tabs.values where !waitIsExcused(tab) {
            guard let since = tab.waitingSince, case let deadline = since + decisionBound + 1, deadline > simulation.now else { continue }
            next = min(next ?? deadline, deadline)
        }
        return next
    }

    /// Whether every page may wait now for a reason the scenario chose.
    private var waitsAreExcused: Bool {
        let safari = simulation.safari
        return (simulation.platform == .iOS && !safari.safariInForeground) || safari.frozenByUser
            || simulation.background.map { simulation.arbiter.isWaiting($0.label) } ?? false
    }

    /// Whether this page may wait now for a reason the scenario chose: its content script
    /// stopped asking after backgrounds died under its questions (one no listener took is the
    /// extension's own doing).
    private func waitIsExcused(_ tab: SafariTab) -> Bool {
        waitsAreExcused || (tab.emptyAnswersInARow > Self.emptyAnswersExcused && tab.unheardQuestions == 0)
    }

    private func checkDecisionDeadlines() {
        let now = simulation.now
        for (id, tab) in simulation.safari.tabs.sorted(by: { $0.key < $1.key }) {
            guard let since = tab.waitingSince, since + decisionBound < now else { continue }
            if waitIsExcused(tab) {
                simulation.safari.restartWait(of: id, now: now)
                continue
            }
            let seconds = decisionBound % 1000 == 0 ? String(decisionBound / 1000) : String(Double(decisionBound) / 1000)
            simulation.monitor.caught(Violation(.invariant(6), "tab \(id.rawValue) asked at \(simulation.trace.time(since)) and had no decision \(seconds) s later"), now: now)
            simulation.safari.endWait(of: id)
        }
    }
}
