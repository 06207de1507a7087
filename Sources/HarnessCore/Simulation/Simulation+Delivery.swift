import ProcessKit
import SiteSettings

/// How the simulation carries out Safari's effects on the processes (starting the background,
/// handing it events, a handler per native request, kills and freezes) and feeds back what came
/// of them: the directives each process gave, its death, a power failure (`ProcessTable` says
/// where each input left a process).
extension Simulation {
    // MARK: - Safari's effects

    /// Tells Safari what happened now and carries out what it does.
    func handle(_ input: SafariMachine.Input) {
        let effects = safari.handle(input, now: now)
        observe(.safari(input, effects))
        perform(effects)
        refreshPageTabs()
    }

    /// Carries out Safari's effects in order; some end the list early (a background that did
    /// not start, a popup announcement cut short).
    func perform(_ effects: [SafariMachine.Effect]) {
        var started: ProcessDriver?
        for effect in effects {
            observe(.effect(effect))
            guard perform(effect, started: &started) else { return }
        }
    }

    /// Carries out one effect; false when the effects after it no longer apply. `started` is
    /// the background an earlier effect of the list started.
    private func perform(_ effect: SafariMachine.Effect, started: inout ProcessDriver?) -> Bool {
        switch effect {
        case .note(let note):
            if let rule = note.rule { trace.record(now, "safari", note.text, rule: rule) } else { trace.record(now, "safari", note.text) }
        case .dispatch(let input):
            event(input)
        case .dispatchFirst(let events):
            for event in events.reversed() { clock.queue.pushFront(.backgroundInput(event)) }
        case .startBackground(let event):
            started = startBackground(event)
            return started != nil
        case .redispatch(let event):
            // The background that started for it, not one a power cut during that start put in
            // its place (that one's device restarted, and the event died with the old one).
            guard let background, background === started else {
                trace.record(now, "safari", "background did not start; event dropped", ExtensionWire.encode(event))
                handle(.eventDropped(event))
                return false
            }
            // The start itself stopped at a yield point: the event waits for it.
            if arbiter.isWaiting(background.label) { clock.queue.pushFront(.backgroundInput(event)) } else { handle(.eventDue(event)) }
        case .announcePopup(let announcement, let then):
            guard let background else { return false }
            processes.complete(reader.begin(background, announcement, now: now), driver: background, role: .background)
            guard let current = self.background, current === background, !arbiter.isWaiting(background.label) else {
                clock.queue.pushFront(.backgroundInput(then))
                handle(.popupAnnouncementInterrupted)
                return false
            }
        case .deliver(let event):
            guard let background else { return false }
            deliver(event, to: background)
        case .killBackground(let reason, let stop):
            if let background { processes.kill(background, reason: reason, stop: stop) }
        case .freezeBackground(let traced):
            if traced, let background { trace.record(now, background.label, "frozen") }
            try? background?.child.freeze()
        case .thawBackground(let traced, let held):
            if traced, let background { trace.record(now, background.label, "thawed") }
            background?.child.thaw()
            clock.queue += held.map { .backgroundInput($0.event, for: $0.incarnation) }
            // A hold released while it was frozen lets it go on now.
            processes.wakeWaiters()
        case .fireOverdueTimers:
            fireOverdue()
            handle(.overdueTimersFired)
        case .queuePortMessage(let incarnation, let message):
            clock.queue.append(.portMessage(incarnation: incarnation, message: message))
        case .appMessageNotConnected:
            // The design's app sees its send fail; the team's app, played by the harness, too.
            trace.record(now, app?.label ?? "harness", "message to the extension failed: no native port is open (NotConnected)")
        case .suspendApp:
            // An iOS app out of sight is suspended; a Mac app goes on running behind Safari.
            if let app { trace.record(now, app.label, platform == .iOS ? "suspended" : "in the background, still running") }
        case .dropSessionStorage:
            files.dropSessions(profiles: safari.profiles)
        case .completeStorage(let incarnation, let token):
            clock.queue.append(.storageCompletion(incarnation: incarnation, token: token))
        case .queueNativeRequest(let id, let message, let profile):
            if safari.runsOwnPages { extensionEdits(message) }
            clock.queue.append(.nativeRequest(incarnation: id.incarnation, request: id.request, message: message, profile: profile))
        case .startHandler(let id, let message, let profile):
            processes.serve(message, profile: profile, role: .handler(incarnation: id.incarnation, request: id.request))
        case .startLegacyHandler(let message):
            legacyStarted += 1
            processes.serve(message, profile: profile, role: .legacy(legacyStarted))
        case .queueReply(let id, let outcome):
            clock.queue.append(.nativeReply(incarnation: id.incarnation, request: id.request, outcome: outcome))
        case .setTimer(let id, let at):
            clock.timers[id] = at
        case .cancelTimer(let id):
            clock.timers[id] = nil
        case .decisionSent, .popupAnswered, .reconciliationPoint:
            // Only the checks take these (`observe`).
            break
        case .loadPage, .pageNativeDark, .closePage, .showPage, .pagesAppearance, .answerPage, .messagePage, .openPopupPage, .closePopupPage,
             .useInPage, .messageOnPagePort, .pagePortDisconnected, .connectPage, .pagesStorageChanged, .pagesPermissionsChanged, .pagesActionChanged,
             .pagesActionClicked, .pagesCommandPressed, .pagesAlarmsChanged, .pagesAlarmFired, .pagesMenusChanged, .pagesMenuClicked,
             .pagesTabEvent, .pagesWindowFocus:
            toPages(effect)
        case .answerBackground(let incarnation, let id, let answer, let unreachable):
            clock.queue.append(.backgroundInput(.pageAnswered(id: id, answer: answer, unreachable: unreachable), for: incarnation))
        case .extensionTabsCall(let incarnation, let request, let call):
            extensionTabsCall(incarnation: incarnation, request: request, call)
        case .permissionsDecided(let prompt, let granted):
            permissionsDecided(prompt, granted: granted)
        }
        return true
    }

    /// An event for the background: Safari dispatches it in its turn.
    func event(_ input: ExtensionWire.Event) {
        clock.queue.append(.backgroundInput(input))
    }

    /// Starts the front profile's background and hands it its `started` event; nil when it
    /// could not start.
    private func startBackground(_ started: ExtensionWire.Event) -> ProcessDriver? {
        guard let driver = processes.start(.background) else { return nil }
        clock.timers = [:]
        observe(.backgroundStarting)
        handle(.backgroundStarted(incarnation: driver.incarnation))
        observe(.backgroundStarted(driver, event: started))
        processes.complete(reader.begin(driver, started, now: now), driver: driver, role: .background)
        observe(.backgroundReady(driver))
        return driver
    }

    /// Hands the loaded background an event, with what the checks learn from it.
    private func deliver(_ input: ExtensionWire.Event, to background: ProcessDriver) {
        observe(.delivering(input, to: background))
        processes.complete(reader.begin(background, input, now: now), driver: background, role: .background)
        observe(.delivered(input, to: background))
    }

    func backgroundDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver) {
        let outputs = reader.backgroundOutputs(directives, from: driver, now: now)
        observe(.backgroundSent(outputs, current: driver === processes.background))
        handle(.backgroundFinished(incarnation: driver.incarnation, outputs))
    }

    /// The first version's extension (not yet updated) sends `getEnabled` or `toggleEnabled`
    /// straight to a native handler, as its background did.
    func legacyMessage(_ message: NativeRequest) {
        lastLegacyAnswer = nil
        handle(.legacyRequestSent(message))
    }

    func handlerDirectives(_ directives: ProcessDriver.Directives, from handler: ProcessDriver, incarnation: Int, request: Int) {
        if handlerBehaviour == .crashing(afterWrite: true) {
            processes.kill(handler, reason: "crashed before replying")
            observe(.handlerMayHaveWritten)
            handle(.handlerEndedWithoutAnswer(Scheduler.NativeRequestID(incarnation: incarnation, request: request)))
            return
        }
        let read = reader.handlerDirectives(directives, from: handler, now: now)
        if read.contains(.neverCompleted) {
            // A team's handler that never completes its request: Safari waits for ever, and the
            // request stays in flight; the harness ends the process it will never hear from.
            processes.kill(handler, reason: "killed: it never completed its request (its reply never comes)")
            return
        }
        processes.answered(handler)
        for directive in read {
            let outcome: NativeOutcome
            switch directive {
            case .reply(let reply): outcome = .replied(reply)
            // A handler's own answer reaches the script as it was given; none is `undefined`.
            case .answer(let answer): outcome = answer.map(NativeOutcome.init(reading:)) ?? .empty
            case .cancel: outcome = .rejected(.canceled)
            case .neverCompleted: continue
            case .postChangeNotification:
                notifyTheApp()
                continue
            case .dispatchMessage(let name, let userInfo):
                handlerDispatched(name, userInfo, from: handler)
                continue
            }
            let work = Scheduler.Work.nativeReply(incarnation: incarnation, request: request, outcome: outcome)
            switch handlerBehaviour {
            case .healthy, .crashing: clock.queue.append(work)
            case .garbage:
                trace.record(now, handler.label, "reply replaced by garbage")
                clock.queue.append(.nativeReply(incarnation: incarnation, request: request, outcome: NativeOutcome(reading: garbage.next())))
            case .slow(let delay): clock.delayedReplies.append((now + delay, work))
            case .hung: trace.record(now, handler.label, "reply withheld (hung)")
            }
        }
    }

    /// A team's handler called `SFSafariApplication.dispatchMessage`, as code it shares with its
    /// Mac app may: the message goes as the app's would (`app dispatch`). The API is macOS's
    /// only; on iOS nothing is delivered, and the trace says so.
    private func handlerDispatched(_ name: String, _ userInfo: JSONValue?, from handler: ProcessDriver) {
        guard platform == .macOS else {
            return trace.record(now, handler.label, "dispatched \(name) to the extension: SFSafariApplication is macOS only, nothing is delivered")
        }
        trace.record(now, handler.label, "dispatches \(name) to the extension")
        handle(.appMessageSent(message: .object(["name": .string(name), "userInfo": userInfo ?? .null])))
    }

    /// A handler posted the Darwin notification that the document changed: it reaches the app
    /// if it runs and is not suspended (`appIsAwake`).
    func notifyTheApp() {
        if appIsAwake {
            clock.queue.append(.appInput(.changeNotificationArrived))
        } else if let app {
            trace.record(now, app.label, "suspended: the change notification is lost (the app reads the document when it returns)")
        }
    }

    func deliverToApp(_ input: AppWire.Event, edit: Int?) {
        guard let app else { return }
        if let edit { observe(.appTook(edit: edit)) }
        processes.complete(app.begin(.app(input), now: now), driver: app, role: .app)
    }

    func appDirectives(_ directives: ProcessDriver.Directives, from app: ProcessDriver) {
        for directive in reader.appDirectives(directives, from: app, now: now) {
            switch directive {
            case .showView(let view):
                appView = view
            case .editSaved, .editRefused:
                observe(.appAnswered(directive))
            case .messageExtension:
                handle(.appMessageSent())
            }
        }
    }

    // MARK: - What the processes did

    /// A process finished its input: its directives are carried out as its part in the run
    /// says.
    func finished(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, as role: Role) {
        switch role {
        case .app: appDirectives(directives, from: driver)
        case .background: backgroundDirectives(directives, from: driver)
        case .handler(let incarnation, let request): handlerDirectives(directives, from: driver, incarnation: incarnation, request: request)
        case .legacy(let number):
            // The first version's extension awaits its answer: a slow one still arrives, a
            // hung or crashed handler leaves it with none.
            if handlerBehaviour == .crashing(afterWrite: true) {
                processes.kill(driver, reason: "crashed before replying")
                observe(.handlerMayHaveWritten)
            } else {
                processes.answered(driver)
                // A withheld answer leaves its request in flight for good.
                if handlerBehaviour == .hung { handle(.legacyRequestHung) }
                for directive in reader.handlerDirectives(directives, from: driver, now: now) {
                    switch directive {
                    case .reply(let reply):
                        guard handlerBehaviour != .hung else { break }
                        lastLegacyAnswer = reply
                        legacyAnswers[number] = reply
                    // The first version's messages have the design's answers only.
                    case .answer, .cancel, .neverCompleted, .dispatchMessage: break
                    // A toggle changed the document: the app hears of it as from any handler.
                    case .postChangeNotification: notifyTheApp()
                    }
                }
            }
        }
    }

    /// A process died: the files it left are checked, and Safari learns of a handler that
    /// never answered.
    func died(_ driver: ProcessDriver, as role: Role) {
        observe(.died(driver, role))
        processes.forget(driver)
        if case .handler(let incarnation, let request) = role {
            handle(.handlerEndedWithoutAnswer(Scheduler.NativeRequestID(incarnation: incarnation, request: request)))
        }
    }

    func powerFailed(during driver: ProcessDriver) { reboot(also: driver) }

    func backgroundCache(isStored: Bool) { observe(.backgroundCache(stored: isStored)) }

    func backgroundLogged(_ line: String, profile: String) { backgroundConsole[profile, default: []].append(line) }

    /// After a power cut: every process is gone, with Safari's session and every queued event;
    /// the device starts again, Safari restores its tabs and each page asks afresh.
    func reboot(also driver: ProcessDriver?) {
        observe(.powerFailing)
        let cut = disk.lastCut
        trace.record(now, "harness", "power lost: \(cut?.kept ?? 0) unsynced changes kept, \(cut?.dropped ?? 0) dropped; the device restarts", rule: .powerLost)
        observe(.powerFailed)
        processes.powerLost(also: driver)
        appGone()
        clock.powerLost()
        observe(.noAnswerOwed(nil))
        handle(.powerLost)
    }

    /// What the app showed is gone with it, and its edits not yet answered.
    func appGone() {
        observe(.appGone)
        appView = nil
    }

    /// Safari learns that its background is gone.
    func backgroundGone(_ driver: ProcessDriver, stop: BackgroundState) {
        observe(.backgroundGone)
        handle(.backgroundDied(incarnation: driver.incarnation, stop: stop))
    }
}

/// What the loaded background has been told of the pages and the appearance, from the events
/// it took, and whether the popup paused the extension since it started.
struct BackgroundKnowledge {
    var appearance = Appearance.light
    var utcOffsetMinutes = 0
    var tabs: [TabID: (url: String, nativeDark: Bool)] = [:]
    var paused = false
    /// The times its inputs carried: when each was handed over, and when the popup's changes were made.
    var moments: Set<EpochMillis> = []

    mutating func take(_ event: ExtensionWire.Event, at now: EpochMillis) {
        moments.insert(now)
        switch event {
        case .started(let appearance, let offset, let tabs, _, _, _, _, _, _, _):
            self = BackgroundKnowledge(appearance: appearance, utcOffsetMinutes: offset, tabs: tabs.mapValues { ($0, false) }, moments: [now])
        case .popupEdited(_, _, _, let at?), .popupForgotSite(_, let at?): moments.insert(at)
        case .tabRequestedDecision(let tab, let url, let nativeDark): tabs[tab] = (url, nativeDark)
        case .tabNativeDarkChanged(let tab, let nativeDark): tabs[tab]?.nativeDark = nativeDark
        case .tabClosed(let tab): tabs[tab] = nil
        case .appearanceChanged(let value): appearance = value
        case .popupPaused: paused = true
        case .storageCompleted, .tabActivated, .safariCameToForeground, .safariWentToBackground, .appMessageArrived, .popupOpened, .popupClosed, .popupChoseScope,
             .popupEdited, .popupForgotSite, .nativeReplyArrived, .timerFired, .alarmFired, .alarmsChanged, .menusChanged, .pageMessage, .pageAnswered, .portOpened,
             .portMessage, .portClosed, .storageChanged, .tabCreated, .tabUpdated, .tabsAnswered, .menuClicked, .commandPressed, .actionClicked, .navigated,
             .permissionsChanged: break
        }
    }
}
