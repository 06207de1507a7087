import ProcessKit
import SiteSettings

/// The liveness properties checked as virtual time passes (invariants 6, 7 and 8): each page's
/// wait for a decision, and each reconciliation point's bound.
extension Simulation {
    /// Invariants 7 and 8: a reconciliation point reached by a live background (7), or on macOS
    /// an app change arriving on its port (8), brings every visible tab to the shared document's
    /// decision within one native timeout plus the handler's delay, if nothing disturbs the run
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

    /// A background took a reconciliation point or an app change: its tabs are due to agree
    /// with the shared document once the handler has had time to answer.
    func reconciliationReached(_ cause: String, invariant: Int) {
        let delay: EpochMillis
        switch handlerBehaviour {
        case .healthy: delay = 0
        case .slow(let d) where d < decisionTimeout: delay = d
        case .slow, .hung, .crashing, .garbage:
            convergenceWatch = nil
            return
        }
        // A later point does not push back the bound of one still pending, unless that one
        // was made void by a death or a fault since.
        if let pending = convergenceWatch, pending.deaths == backgroundDeaths, pending.faults == arbiter.faultsUsed { return }
        convergenceWatch = ConvergenceWatch(since: now, due: now + decisionTimeout + delay + 1, cause: cause, invariant: invariant, deaths: backgroundDeaths, faults: arbiter.faultsUsed)
    }

    /// The scenario changed the document, the handler or a background's life: what follows is
    /// a new story, and the pending bound no longer applies.
    package func reconciliationBoundEnded() { convergenceWatch = nil }

    func checkConvergence(_ watch: ConvergenceWatch) {
        convergenceWatch = nil
        guard background != nil, backgroundDeaths == watch.deaths, arbiter.faultsUsed == watch.faults, !arbiter.isDisturbed, !safari.isBackgroundFrozen,
              platform == .macOS || safari.safariInForeground, files.containerFile(FileContainer.documentName) != nil else { return }
        for problem in ExpectationChecker.tabsDisagreeing(self, steadySince: watch.since) {
            monitor.caught("\(problem), \(ScenarioPrinter.duration(now - watch.since)) after \(watch.cause) at \(trace.time(watch.since)) (invariant \(watch.invariant))", now: now)
        }
    }

    /// Invariant 6, liveness: every tab that asks gets a decision within the background's native timeout,
    /// whatever the handler does (from the cache, or from the built-in defaults). A page waits
    /// for nothing while it cannot be answered for a reason the scenario chose and that lasts:
    /// iOS Safari suspended, the background frozen or held at a yield point, or every
    /// background that woke for it killed before it answered, more than `emptyAnswersExcused`
    /// times in a row (its content script may stop asking); its wait starts again when that ends.
    var decisionTimeout: EpochMillis { BackgroundMachine.nativeTimeout }

    /// Empty answers in a row after which a page may stop asking: a content script that asks
    /// again after fewer fails invariant 6.
    static let emptyAnswersExcused = 3

    func nextDecisionDeadline() -> EpochMillis? {
        var next: EpochMillis?
        for tab in safari.tabs.values where !waitIsExcused(tab) {
            guard let since = tab.waitingSince, case let deadline = since + decisionTimeout + 1, deadline > now else { continue }
            next = min(next ?? deadline, deadline)
        }
        return next
    }

    /// Whether every page may wait now for a reason the scenario chose.
    var waitsAreExcused: Bool {
        (platform == .iOS && !safari.safariInForeground) || safari.frozenByUser || background.map { arbiter.isWaiting($0.label) } ?? false
    }

    /// Whether this page may wait now for a reason the scenario chose.
    func waitIsExcused(_ tab: SafariTab) -> Bool {
        waitsAreExcused || tab.emptyAnswersInARow > Self.emptyAnswersExcused
    }

    /// Called as time moves (before an event fires, and at the end of an advance): while an
    /// excuse lasts, the wait of every page it covers starts again from now, so its deadline
    /// falls one timeout after the excuse ends, whatever ends it.
    func restartExcusedWaits() {
        for (id, tab) in safari.tabs where waitIsExcused(tab) { safari.restartWait(of: id, now: now) }
    }

    func checkDecisionDeadlines() {
        for (id, tab) in safari.tabs.sorted(by: { $0.key < $1.key }) {
            guard let since = tab.waitingSince, since + decisionTimeout < now else { continue }
            if waitIsExcused(tab) {
                safari.restartWait(of: id, now: now)
                continue
            }
            monitor.caught("tab \(id.rawValue) asked at \(trace.time(since)) and had no decision \(decisionTimeout / 1000) s later (invariant 6)", now: now)
            safari.endWait(of: id)
        }
    }
}
