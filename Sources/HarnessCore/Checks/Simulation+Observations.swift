import ProcessKit
import SiteSettings

/// What the run's checks watch, and what they do with it: the invariants (`InvariantMonitor`,
/// and invariant 5 here), Safari's rules stated a second time (invariant 14, `SafariRules`), the
/// liveness bounds (`LivenessChecks`), the user's edits and their answers (`EditLedger`), the
/// background's native exchanges (`NativeExchangeWatch`) and what the background was told
/// (`BackgroundKnowledge`). The shell (`Simulation+Delivery`, `Simulation+Actions`) carries out
/// Safari's effects and the processes' directives; where something a check watches happens, it
/// says so with one typed `Observation`, at that moment, and goes on. No check carries anything
/// out, and the shell decides nothing on what a check found.
extension Simulation {
    enum Observation {
        /// Safari took `input` and gave `effects`, which the shell is about to carry out.
        case safari(SafariMachine.Input, [SafariMachine.Effect])
        /// The shell carries out one of Safari's effects now (those that only tell the checks
        /// something, such as a decision sent, are carried out by nothing else).
        case effect(SafariMachine.Effect)
        /// The front profile's background process started, before Safari hears of it.
        case backgroundStarting
        /// Safari heard that `driver` started, and hands it `event`, from the storage it has now.
        case backgroundStarted(ProcessDriver, event: ExtensionWire.Event)
        /// `driver` took its start.
        case backgroundReady(ProcessDriver)
        /// The loaded `background` is handed `event` now; then it took it (`delivered`).
        case delivering(ExtensionWire.Event, to: ProcessDriver)
        case delivered(ExtensionWire.Event, to: ProcessDriver)
        /// A background finished an input with `outputs`; `current` when it is the loaded one.
        case backgroundSent([ExtensionWire.Output], current: Bool)
        /// Whether what the background holds of its storage is what storage holds.
        case backgroundCache(stored: Bool)
        /// A handler may have written the document and not told the app (it crashed or died).
        case handlerMayHaveWritten
        /// The app took the user's edit `edit`, or answered one.
        case appTook(edit: Int)
        case appAnswered(AppWire.Output)
        /// The app is gone, with the edits it took and did not answer.
        case appGone
        /// A process died (its files are read as it left them).
        case died(ProcessDriver, Role)
        /// A background is gone (killed, crashed, unloaded).
        case backgroundGone
        /// The power fails (`failing`, before the trace says so) and has failed (`failed`).
        case powerFailing
        case powerFailed
        /// No answer is owed to `tab`, or to any tab (nil): it closed, or the background that
        /// owed it is gone.
        case noAnswerOwed(TabID?)
        /// The device slept (its timers stopped with the monotonic clock).
        case deviceSlept
    }

    func observe(_ observation: Observation) {
        switch observation {
        case .safari(let input, let effects):
            if case .backgroundFinished(let incarnation, let outputs) = input, incarnation == background?.incarnation { checkAnswerFromTheCache(outputs) }
            safariRulesBroken(safariRules.observe(input, effects, now: now))
        case .effect(let effect):
            switch effect {
            case .decisionSent(let tab, _): monitor.decisionSent(to: tab.rawValue)
            case .popupAnswered(let number, let saved, let scope): edits.popupAnswered(number, saved: saved, scope: scope?.text)
            case .reconciliationPoint(let cause, let invariant): liveness.reconciliationReached(cause, invariant: invariant)
            default: break
            }
        case .backgroundStarting:
            exchanges.backgroundStarted()
        case .backgroundStarted(let driver, let event):
            startingCache = storedLocal
            told.take(event, at: now)
            monitor.backgroundStarted(driver.label, profile: profile, withCache: startingCache?.cache != nil, now: now)
            // A new background holds what it reads from storage.
            liveness.storedCache(isCurrent: true)
        case .backgroundReady(let driver):
            liveness.reconciliationReached("background#\(driver.incarnation) started", invariant: 7)
        case .delivering(let event, let driver):
            told.take(event, at: now)
            if case .tabRequestedDecision(let tab, _, _) = event { monitor.backgroundTook(requestFrom: tab.rawValue) }
            if case .nativeReplyArrived(let request, let outcome) = event {
                exchanges.replyArrives(request, outcome, incarnation: driver.incarnation, now: now)
            }
        case .delivered(let event, let driver):
            if exchanges.took(event, incarnation: driver.incarnation) {
                liveness.reconciliationReached("the first event after a native timeout", invariant: 7)
            }
        case .backgroundSent(let outputs, let current):
            if current { exchanges.sent(outputs, now: now) }
        case .backgroundCache(let stored):
            liveness.storedCache(isCurrent: stored)
        case .handlerMayHaveWritten:
            monitor.appMayMissAChange()
        case .appTook(let edit):
            edits.appTook(edit, at: now)
        case .appAnswered(let answer):
            edits.appAnswered(answer)
        case .appGone:
            edits.appGone()
        case .died(let driver, let role):
            monitor.checkWhatWasLeft("\(driver.label) died", in: self)
            // A handler that dies mid-request may have written the document and not yet told the app.
            if case .handler = role { monitor.appMayMissAChange() } else if case .legacy = role { monitor.appMayMissAChange() }
        case .backgroundGone:
            liveness.backgroundDied()
        case .powerFailing:
            // Every background dies with the power: a pending reconciliation bound is void.
            liveness.backgroundDied()
            liveness.boundEnded()
        case .powerFailed:
            monitor.checkWhatWasLeft("the power failed", in: self)
            monitor.cachesMayBeLost()
        case .noAnswerOwed(let tab):
            monitor.noAnswerOwed(by: tab?.rawValue)
        case .deviceSlept:
            liveness.boundEnded()
            liveness.deviceSlept()
        }
    }

    /// What invariant 14 found.
    func safariRulesBroken(_ messages: [String]) {
        for message in messages { monitor.caught(Violation(.invariant(14), message), now: now) }
    }

    /// Invariant 5: the first answer of a background that started with a cache is the cache's,
    /// as the rules read it (`ReferenceDecision`) for the page and the appearance as the
    /// background was told them, at one of the moments its inputs carried: not the built-in
    /// defaults', not a snapshot's. What the tab is left with by the directives that first
    /// answer it counts (a background that takes its queued events in turn may push the
    /// decision each gave, at that event's time, on the way). Not checked when a change of the
    /// popup's waited in its outbox or the popup paused the extension meanwhile (both change
    /// the decision before any storage shows it).
    private func checkAnswerFromTheCache(_ outputs: [ExtensionWire.Output]) {
        guard let local = startingCache, local.outbox.isEmpty, let cache = local.cache, let background, !told.paused else { return }
        var last: (tab: TabID, decision: Decision)?
        for case .sendDecision(let tab, let decision) in outputs where monitor.owesAnAnswerFromItsCache(to: tab.rawValue) { last = (tab, decision) }
        guard let (tab, decision) = last, let page = told.tabs[tab] else { return }
        // Read once: the pause in storage.session, for every moment tried.
        let pausedUntil = storedSession?.pausedUntil
        func differs(at moment: EpochMillis) -> (shown: String, reference: String)? {
            let context = DecisionContext(appearance: told.appearance, now: moment, utcOffsetMinutes: told.utcOffsetMinutes,
                                          pausedUntil: pausedUntil, pageIsNativelyDark: page.nativeDark)
            return cacheReference.difference(url: page.url, shown: decision, document: cache, named: "its cache", context: context)
        }
        guard let difference = differs(at: now), !told.moments.contains(where: { differs(at: $0) == nil }) else { return }
        monitor.caught(Violation(.invariant(5), "\(background.label) started with a cache and answered tab \(tab.rawValue) first with \(difference.shown); "
            + "its cache gives \(difference.reference)"), now: now)
    }
}
