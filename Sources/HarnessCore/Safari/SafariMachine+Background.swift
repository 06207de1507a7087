import ProcessKit
import SiteSettings

/// The background's life as Safari plays it: which events wake it and which reach it, what
/// Safari does with its directives, its death, its native requests and its alarms.
extension SafariMachine {
    // MARK: - Events

    /// An event comes up for the background. A frozen background takes nothing until it thaws.
    /// An unloaded one is started for an event that wakes it, if the profile's extension
    /// listens for it; what does not wake it (a storage completion, a native reply, a timeout,
    /// a port message) finds no background and is dropped. A loaded one loses an event that
    /// arrives before its listener exists.
    mutating func eventDue(_ event: ExtensionWire.Event, for incarnation: Int?, now: EpochMillis, _ effects: inout [Effect]) {
        if isBackgroundFrozen {
            held.append(Pending(event: event, incarnation: incarnation))
            return
        }
        if pagePortEvent(event, holder: loaded, now: now, &effects) { return }
        if let incarnation, let loaded, loaded != incarnation {
            // A reply, a timeout or a storage completion of an earlier incarnation (held while
            // it was frozen, or queued before it died) goes nowhere.
            if case .nativeReplyArrived = event { effects.append(.note("dropped reply for background#\(incarnation)")) }
            return
        }
        if case .loading(var load) = background {
            // Its scripts have not run: an event of a type Safari holds it listens for waits for
            // the load's end (`wakeUpBackgroundContentIfNecessary` queues it); any other is fired
            // at once, to no listener, and is lost (`wakeUpBackgroundContentIfNecessaryToFireEvents`).
            guard let listener = event.listener else {
                effects.append(.note(.droppedWithNoBackground(event.name)))
                return
            }
            // A load for an install or an update knows no listener yet (the new version's are not
            // registered); any other that Safari knows nothing of is taken to listen.
            let known = listenerSet ?? (startReason == .install || startReason == .update ? [] : nil)
            if known.map({ $0.contains(listener) }) ?? true {
                load.queued.append(event)
                background = .loading(load)
                effects.append(.note("\(event.name) waits for the background's load to end"))
            } else {
                counts.droppedForWantOfAListener += 1
                effects.append(.note("\(event.name) lost: the loading background has no \(listener.rawValue) listener yet"))
                unheard(event, now: now, &effects)
            }
            return
        }
        guard let loaded else {
            guard let listener = event.listener else {
                if case .nativeReplyArrived = event { effects.append(.note(.replyFoundNoBackground)) } else { effects.append(.note(.droppedWithNoBackground(event.name))) }
                return
            }
            if let known = listenerSet, !known.contains(listener) {
                // Safari wakes a background only for an event it listens for
                // (`wakeUpBackgroundContentIfNecessaryToFireEvents`).
                counts.droppedForWantOfAListener += 1
                effects.append(.note("\(event.name) wakes nothing: the background does not listen for \(listener.rawValue)"))
                unheard(event, now: now, &effects)
                return
            }
            loadBackground(now: now, waking: event, &effects)
            return
        }
        if let listener = event.listener, loadedBackground?.listeners.contains(listener) != true {
            // An event that arrives before its listener exists is lost. Safari still starts the
            // unload timer again when an earlier background of the session listened for it.
            if listens(for: listener) { woke(now: now) }
            counts.droppedForWantOfAListener += 1
            effects.append(.note("\(event.name) lost: background#\(loaded) has no \(listener.rawValue) listener"))
            unheard(event, now: now, &effects)
            return
        }
        if case .pageMessage(let id, _, _, _, _) = event { pageMessageTaken(id) }
        if case .portOpened(let port, _, _) = event { pagePortTaken(port, now: now) }
        if event.listener != nil { woke(now: now) }
        if event.isFromThePopup {
            if case .popupOpened = event {
                popupConnected(now: now)
            } else if let open = openPopup, loadedBackground?.knowsThePopup != true {
                // The popup stays open across an unload; a new background learns of it from the
                // popup's next message, which connects its port again and names its tab.
                effects.append(.announcePopup(.popupOpened(open.tab), then: event))
                if let scope = open.scope, !event.isScopeChoice { effects.append(.announcePopup(.popupChoseScope(scope: scope), then: event)) }
                popupConnected(now: now)
            }
        }
        if case .nativeReplyArrived = event {
            // Counted as the background takes it: one held for a frozen background is not yet
            // before anything (invariant 5, and a page's first decision).
            nativeRepliesDelivered += 1
        }
        effects.append(.deliver(event))
        switch event {
        case .safariCameToForeground: effects.append(.reconciliationPoint("Safari came to the front", invariant: 7))
        case .tabActivated(let tab): effects.append(.reconciliationPoint("tab \(tab.rawValue) was activated", invariant: 7))
        case .appMessageArrived: effects.append(.reconciliationPoint("the app's change arrived on the port", invariant: 8))
        case .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabClosed, .appearanceChanged, .popupOpened,
             .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused, .nativeReplyArrived, .timerFired, .alarmFired,
             .alarmsChanged, .menusChanged, .pageMessage, .pageAnswered, .portOpened, .portMessage, .portClosed, .storageChanged, .tabCreated, .tabUpdated, .tabsAnswered,
             .safariWentToBackground, .menuClicked, .commandPressed, .actionClicked, .navigated, .permissionsChanged:
            break
        }
    }

    /// The open popup's port (`runtime.connect`) reaches the loaded background: opening it
    /// counts as the background's port activity (`addPorts`).
    private mutating func popupConnected(now: EpochMillis) {
        loadedBackground?.knowsThePopup = true
        loadedBackground?.ports.insert(.popup)
        portActivity(now: now)
    }

    /// What a background is told as it loads: the appearance, the open tabs, whether the app
    /// can message it, the alarms Safari holds, and why it loads when the load fires a `runtime`
    /// event (the first load since Safari launched or the extension was updated: WebKit clears
    /// the reason once the background loaded).
    mutating func startedEvent() -> ExtensionWire.Event {
        defer { (startReason, updatedFrom) = (nil, nil) }
        return .started(appearance: appearance, tabs: tabs.mapValues(\.url), appMessages: platform == .macOS, alarms: heldAlarms, reason: startReason,
                        version: installedVersion == manifestVersion ? nil : installedVersion, previousVersion: startReason == .update ? updatedFrom : nil,
                        action: action, menus: menus)
    }

    /// The extension is installed: its background loads at once and its load fires
    /// `runtime.onInstalled` with reason `install`. WebKit loads a non-persistent background
    /// during the extension's load when it has events to fire, an install among them, or no
    /// saved listeners (`WebExtensionContext::loadBackgroundWebViewDuringLoad`; the reason from
    /// `queueStartupAndInstallEventsForExtensionIfNecessary`, no version seen before).
    mutating func extensionInstalled(now: EpochMillis, _ effects: inout [Effect]) {
        startReason = .install
        guard loaded == nil else { return }
        loadBackground(now: now, &effects)
    }

    /// Safari loads the front profile's background, for `event` if one wakes it: its scripts
    /// run at once, or `backgroundLoadTime` later (the load's end), with what woke it waiting.
    mutating func loadBackground(now: EpochMillis, waking event: ExtensionWire.Event? = nil, _ effects: inout [Effect]) {
        guard backgroundLoadTime > 0 else {
            effects.append(.startBackground(startedEvent()))
            if let event { effects.append(.redispatch(event)) }
            return
        }
        background = .loading(LoadingBackground(until: now + backgroundLoadTime, queued: event.map { [$0] } ?? []))
        effects.append(.note("Safari loads the background: its scripts run in \(ScenarioPrinter.duration(backgroundLoadTime))"))
    }

    /// The background's load ends: its scripts run (its `started` turn), and what waited for the
    /// load reaches it, in order (`performTasksAfterBackgroundContentLoads`).
    mutating func backgroundLoadEnded(_ effects: inout [Effect]) {
        guard case .loading(let load) = background else { return }
        background = .stopped(.unloaded)
        effects.append(.startBackground(startedEvent()))
        for event in load.queued { effects.append(.redispatch(event)) }
    }

    /// The front profile's alarms as the wire names them (the decision alarm has no name).
    var heldAlarms: [String: ExtensionWire.Alarm] {
        Dictionary(uniqueKeysWithValues: alarms.map { key, alarm in
            (key == Self.decisionAlarm ? "" : key, ExtensionWire.Alarm(at: alarm.at, period: alarm.period))
        })
    }

    /// Safari changed the alarms on its own: the loaded background hears them all
    /// (`alarmsChanged`), so that what `alarms.get` answers is what Safari holds.
    func tellAlarmsChanged(_ effects: inout [Effect]) {
        if loaded != nil { effects.append(.dispatch(.alarmsChanged(alarms: heldAlarms))) }
    }

    /// `alarms.create` in the background or one of its pages: Safari holds the alarm, raised to
    /// its minimum where it is sooner or shorter.
    mutating func setAlarm(at: EpochMillis, name: String, period: EpochMillis?, now: EpochMillis, _ effects: inout [Effect]) {
        let raised = at < now + alarmMinimum || (period ?? alarmMinimum) < alarmMinimum
        alarms[Self.alarmKey(name)] = Alarm(at: max(at, now + alarmMinimum), period: period.map { max($0, alarmMinimum) })
        if raised {
            counts.alarmsRaisedToTheMinimum += 1
            effects.append(.note("alarm raised to the minimum delay, \(alarmMinimum / 1000) s"))
        }
    }

    /// The events held for a frozen background, taken to be handed over.
    mutating func takeHeld() -> [Pending] {
        defer { held = [] }
        return held
    }

    /// A page's content script asks the background for its decision (`runtime.sendMessage`).
    mutating func askForDecision(_ id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        guard let tab = tabs[id] else { return }
        tabs[id]?.questionPending = true
        if tab.waitingSince == nil || tab.questionDied { tabs[id]?.waitingSince = now }
        tabs[id]?.questionDied = false
        effects.append(.dispatch(.tabRequestedDecision(id, url: tab.url, nativeDark: tab.nativeDark)))
    }

    // MARK: - Directives

    /// What Safari does with one output of background `incarnation`.
    mutating func carryOut(_ output: ExtensionWire.Output, from incarnation: Int, now: EpochMillis, _ effects: inout [Effect]) {
        switch output {
        case .storagePending(let token): effects.append(.completeStorage(incarnation: incarnation, token: token))
        case .sendNative(let request, let message):
            effects.append(.queueNativeRequest(NativeRequestID(incarnation: incarnation, request: request), message, profile: profile))
        case .setTimer(let timer, let at): effects.append(.setTimer(TimerID(incarnation: incarnation, timer), at: at))
        case .cancelTimer(let timer): effects.append(.cancelTimer(TimerID(incarnation: incarnation, timer)))
        case .listen(let events):
            // Its listeners as they are now: Safari hears each `addListener` and
            // `removeListener` as it happens (`WebExtensionContext::addListener`), one added
            // after the load included.
            if loaded == incarnation { loadedBackground?.listeners = Set(events) }
        case .connectNative:
            // The port lives as long as this incarnation (WebKit disconnects a page's ports when
            // it closes); opening it counts as port activity for the unload check.
            guard loaded == incarnation else { break }
            loadedBackground?.ports.insert(.native)
            portActivity(now: now)
        case .setAlarm(let at, let name, let period): setAlarm(at: at, name: name, period: period, now: now, &effects)
        case .clearAlarm(let name):
            alarms[Self.alarmKey(name)] = nil
        case .sendDecision(let tab, let decision):
            effects.append(.decisionSent(tab, decision))
            if tabs[tab] == nil { effects.append(.note("tab \(tab.rawValue) is not open here: its decision is dropped")) }
            run(.decisionArrived(decision), in: tab, now: now, &effects)
        case .showPopup(let view):
            popup = view
            // The background posts the view on the popup's port (`portPostMessage`).
            if loadedBackground?.ports.contains(.popup) == true { portActivity(now: now) }
        case .popupAnswer(let number, let saved, let scope):
            effects.append(.popupAnswered(edit: number, saved: saved, scope: scope))
        case .answerPage, .messageTab, .messagePopup, .postOnPort, .closePort, .connectTab: carryOutForPages(output, from: incarnation, now: now, &effects)
        case .tabsCall(let request, .requestPermissions(let permissions, let origins)):
            askPermission(.background(incarnation: incarnation, request: request), permissions: permissions, origins: origins, now: now, &effects)
        case .tabsCall(let request, let call):
            // Safari does to its tabs what the background asks, as the user would, and answers.
            effects.append(.extensionTabsCall(incarnation: incarnation, request: request, call))
        case .menusChanged(let items):
            // Safari keeps the extension's menu items in its own process: they outlive the background.
            menus = items
        case .actionSet(let tab, let property, let value): setAction(property, to: value, tab: tab, by: "background#\(incarnation)", &effects)
        case .permissionsRemoved(let permissions, let origins):
            permissionsChanged(added: false, permissions: permissions, origins: origins, &effects)
        case .storageChanged(let area, let changes):
            // Its own change fires storage.onChanged through Safari, which wakes a background
            // that listens for it: its unload timer starts again (`fireStorageChangedEventIfNeeded`
            // -> `wakeUpBackgroundContentIfNecessaryToFireEvents` -> `scheduleBackgroundContentToUnload`).
            if loaded == incarnation, listens(for: .storageChanged) { woke(now: now) }
            // Its pages hear what it changed (their storage.onChanged), in its profile.
            if runsOwnPages { effects.append(.pagesStorageChanged(area: area, changes: changes, profile: profile)) }
        }
    }

    /// The background or a page set a property of the toolbar item. Safari keeps the item in its
    /// own process: it outlives the background, and every context reads it there (`handle` tells
    /// the pages of the change).
    mutating func setAction(_ property: ExtensionAction.Property, to value: JSONValue, tab: TabID?, by setter: String, _ effects: inout [Effect]) {
        if let tab, tabs[tab] == nil {
            effects.append(.note("tab \(tab.rawValue) is not open here: the action's \(property.rawValue) \(setter) set is dropped"))
            return
        }
        action.set(property, to: value, tab: tab)
    }

    // MARK: - Death

    /// The background is gone. Its ports, listeners and freeze go with it; of the events held
    /// for it, only those that would wake a new one are kept (a late reply or storage
    /// completion was for this one). Every page whose question it had not answered gets an
    /// empty answer, and its content script decides what to do (the reference one asks again,
    /// which wakes a new background, unless its questions keep coming back empty).
    mutating func backgroundDied(_ incarnation: Int, stop: BackgroundState, now: EpochMillis, _ effects: inout [Effect]) {
        guard loaded == incarnation else { return }
        // Its ports, listeners and inspector go with it.
        stopBackground(stop, &effects)
        frozenByUser = false
        held.removeAll { $0.incarnation == incarnation || $0.event.listener == nil }
        if !isBackgroundFrozen, !held.isEmpty {
            // They were sent before anything that follows: they go first, in their order.
            effects.append(.dispatchFirst(takeHeld().map(\.event)))
        }
        pagesLost(incarnation, &effects)
        for id in tabs.keys.sorted() where tabs[id]!.questionPending {
            // Its question died with the background (a fault the scenario chose): what the page
            // asks next gets a whole timeout to be answered.
            tabs[id]?.waitingSince = now
            tabs[id]?.questionDied = true
            answeredEmpty(id, now: now, &effects)
        }
    }

    /// No listener took the event: a page's message, or a tab's question, is answered with
    /// nothing at once (`runtimeSendMessage`: no process listens for `runtime.onMessage`, or
    /// `wakeUpBackgroundContentIfNecessaryToFireEvents` woke nothing), and a page's port is
    /// disconnected. The tab's wait goes on: that no listener took it is the extension's own
    /// doing, and its next question has what is left of the timeout.
    mutating func unheard(_ event: ExtensionWire.Event, now: EpochMillis, _ effects: inout [Effect]) {
        pageEventLost(event, &effects)
        guard case .tabRequestedDecision(let id, _, _) = event, tabs[id]?.questionPending == true else { return }
        tabs[id]?.unheardQuestions += 1
        answeredEmpty(id, now: now, &effects)
    }

    /// The tab's question came back empty: its content script decides what to do (the
    /// reference one asks again, up to 3 empty answers in a row).
    private mutating func answeredEmpty(_ id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        tabs[id]?.questionPending = false
        tabs[id]?.emptyAnswersInARow += 1
        run(.emptyAnswer, in: id, now: now, &effects)
    }

    /// The loaded background's load ended (its `started` turn): Safari saves the listener types
    /// it holds (`performTasksAfterBackgroundContentLoads` -> `saveBackgroundPageListenersToStorage`).
    mutating func loadEnded() {
        guard loadedBackground?.loadEnded == false else { return }
        loadedBackground?.loadEnded = true
        savedListeners[profile] = listenerSet
    }

    /// No background is loaded now. Safari keeps, for the session, the listener types one whose
    /// load ended had registered: its unload removes none (`m_backgroundContentEventListeners`).
    mutating func stopBackground(_ stop: BackgroundState, _ effects: inout [Effect]) {
        if let ended = loadedBackground, ended.loadEnded { sessionListeners[profile, default: []].formUnion(ended.listeners) }
        // A load cut short before its scripts ran: a page's message that waited for it is
        // answered with nothing, its port disconnected.
        if case .loading(let load) = background { for event in load.queued { pageEventLost(event, &effects) } }
        background = .stopped(stop)
    }

    // MARK: - Native requests

    /// Whether Safari takes one more native request: it refuses it at once while the most it
    /// allows are in flight.
    mutating func mayStartNativeRequest(_ effects: inout [Effect]) -> Bool {
        guard requestsInFlight >= nativeRequestCap else { return true }
        counts.requestsRefusedAtTheCap += 1
        effects.append(.note("refused a native request: \(requestsInFlight) in flight"))
        return false
    }

    // MARK: - Alarms

    /// An alarm fires: a one-shot alarm stays, fired, a periodic one comes round again; the event
    /// wakes the background if it listens for it. Waking restarts the unload timer at once,
    /// before the event reaches the page (`fireAlarmsEventIfNeeded` ->
    /// `wakeUpBackgroundContentIfNecessaryToFireEvents` -> `scheduleBackgroundContentToUnload`),
    /// so an unload check that fell due after the alarm, while iOS Safari was suspended, finds
    /// the background woken and never unloads it.
    mutating func alarmFired(_ name: String, now: EpochMillis, _ effects: inout [Effect]) {
        guard let alarm = alarms[name], !alarm.fired else { return }
        // A periodic one comes round a period after it fired: one that fired late (Safari
        // suspended, the device asleep) fires once, with no catch-up. A one-shot one stays,
        // fired, at the time it was due (`Alarm.fired`).
        if let period = alarm.period { alarms[name] = Alarm(at: now + period, period: period) } else { alarms[name]?.fired = true }
        let hears = loadedBackground?.listeners.contains(.alarm)
        if loaded != nil, listens(for: .alarm) { woke(now: now) }
        effects.append(.dispatch(.alarmFired(name: name == Self.decisionAlarm ? "" : name)))
        // The extension's own pages that listen hear it too (WebKit sends it to every process).
        if runsOwnPages { effects.append(.pagesAlarmFired(name == Self.decisionAlarm ? "" : name, profile: profile)) }
        // A loaded background that does not listen never hears it fire: it hears what Safari
        // holds now when that changed (a periodic one come round).
        if hears == false, alarm.period != nil { tellAlarmsChanged(&effects) }
    }

    /// A new version of the extension is installed (`queueStartupAndInstallEventsForExtensionIfNecessary`):
    /// `storage.local` stays, `storage.session` and the alarms are cleared, the saved listener
    /// sets are forgotten (an event before the new background registers its listeners wakes it
    /// and is lost), and the background loads for `runtime.onInstalled` (reason `update`, with
    /// the version it replaced, `m_previousVersion`; `runtime.onStartup` does not fire). The new
    /// version's content scripts start in the open pages, and each asks (the harness's reading:
    /// WebKit injects a loaded extension's content into the pages already open). WebKit sees an
    /// update only when the version changes (`determineInstallReasonDuringLoad`): `version`,
    /// or the installed one with its last number one higher.
    mutating func extensionUpdated(to version: String?, now: EpochMillis, _ effects: inout [Effect]) {
        updatedFrom = installedVersion
        installedVersion = version ?? ExtensionVersion.following(installedVersion)
        holdNoBackground(&effects)
        // The popup is one of the extension's pages: it closes as the extension reloads, with
        // what it waited for.
        forgetPopup(&effects)
        dropPermissionPrompts(&effects)
        savedListeners = [:]
        sessionListeners = [:]
        forgetAlarms(&effects)
        forgetActions()
        startReason = .update
        effects.append(.dropSessionStorage)
        effects.append(.note("extension updated from \(updatedFrom ?? "") to \(installedVersion): storage.session, alarms and saved listeners cleared; the background loads for runtime.onInstalled"))
        for id in tabs.keys.sorted() { startScript(in: id, now: now, &effects) }
        // On iOS with Safari suspended, nothing loads until it runs again: the pages' requests
        // wake the new background then.
        if !isBackgroundFrozen { loadBackground(now: now, &effects) }
    }

    /// The device slept: Safari's timers and the times it keeps for them are on `MonotonicTime`
    /// (`mach_absolute_time`), which stops while a Mac or an iPhone sleeps. The machine keeps
    /// every time on the wall clock a decision reads, so each monotonic deadline moves later by
    /// the sleep: the unload check, the port's last use and every alarm, in every profile; and a
    /// page's wait, which the checks time, leaves the sleep out.
    mutating func deviceSlept(_ duration: EpochMillis, _ effects: inout [Effect]) {
        loadedBackground?.unloadCheck += duration
        loadedBackground?.lastPortActivity += duration
        func later(_ alarms: [String: Alarm]) -> [String: Alarm] {
            alarms.mapValues { alarm in
                var later = alarm
                later.at += duration
                later.sleptSinceSet += duration
                return later
            }
        }
        alarms = later(alarms)
        for (name, away) in putAway { putAway[name]?.alarms = later(away.alarms) }
        for id in tabs.keys { tabs[id]?.waitingSince? += duration }
        for index in permissionPrompts.indices { permissionPrompts[index].expires += duration }
        if !alarms.isEmpty { tellAlarmsChanged(&effects) }
    }

    /// Alarms live in Safari's memory only (WebKit keeps them in `m_alarmMap` and writes them
    /// nowhere): quitting Safari, or losing power, drops every profile's. A background sets its
    /// alarms again when it starts.
    mutating func forgetAlarms(_ effects: inout [Effect]) {
        if !alarms.isEmpty || putAway.values.contains(where: { !$0.alarms.isEmpty }) {
            effects.append(.note("alarms dropped: Safari keeps them in memory only"))
        }
        alarms = [:]
        for name in putAway.keys { putAway[name]?.alarms = [:] }
    }

    /// What the extensions set on their toolbar items and the menu items they made live in
    /// Safari's memory (WebKit's `WebExtensionContext` holds the actions and `m_menuItems`) and go
    /// with the extension's context: when Safari quits, or loses power, or the extension is loaded
    /// again as a new version (`WebExtensionContext::unload`).
    mutating func forgetActions() {
        action = ExtensionAction()
        menus = []
        for name in putAway.keys {
            putAway[name]?.action = ExtensionAction()
            putAway[name]?.menus = []
        }
    }
}

extension ExtensionWire.Event {
    /// The listener Safari dispatches it to, or nil for what is not an event: the load, a
    /// storage completion, a native reply, the background's own timer, a message on its port.
    /// Only an event with a listener wakes the background and re-arms its unload timer
    /// (WebKit, `WebExtensionContext::wakeUpBackgroundContentIfNecessaryToFireEvents`).
    var listener: BackgroundListener? {
        switch self {
        case .tabRequestedDecision, .tabNativeDarkChanged, .appearanceChanged, .popupOpened, .popupClosed, .popupChoseScope, .popupEdited,
             .popupForgotSite, .popupPaused, .pageMessage: .message
        case .tabActivated: .tabActivated
        case .tabClosed: .tabRemoved
        case .safariCameToForeground, .safariWentToBackground: .windowFocus
        case .alarmFired: .alarm
        case .portOpened: .connect
        case .storageChanged: .storageChanged
        case .tabCreated: .tabCreated
        case .tabUpdated: .tabUpdated
        case .menuClicked: .menuClicked
        case .commandPressed: .command
        case .actionClicked: .actionClicked
        case .navigated(_, _, let stage): stage.listener
        case .permissionsChanged(let added, _, _): added ? .permissionsAdded : .permissionsRemoved
        case .started, .storageCompleted, .nativeReplyArrived, .timerFired, .appMessageArrived, .alarmsChanged, .menusChanged, .pageAnswered, .portMessage,
             .portClosed, .tabsAnswered: nil
        }
    }

    /// A message from the popup: a background that does not know the popup is open learns of
    /// it first.
    var isFromThePopup: Bool {
        switch self {
        case .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused: true
        case .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariCameToForeground,
             .appMessageArrived, .appearanceChanged, .nativeReplyArrived, .timerFired, .alarmFired, .alarmsChanged, .menusChanged, .pageMessage, .pageAnswered,
             .portOpened, .portMessage, .portClosed, .storageChanged, .tabCreated, .tabUpdated, .tabsAnswered, .safariWentToBackground, .menuClicked, .commandPressed, .actionClicked, .navigated,
             .permissionsChanged: false
        }
    }

    /// What one of the extension's own pages sent: a message, or a port's opening, message or close.
    var isFromAPage: Bool {
        switch self {
        case .pageMessage, .portOpened, .portMessage, .portClosed: true
        default: false
        }
    }

    /// A native reply or the background's native timeout.
    var isNativeExchange: Bool {
        switch self {
        case .nativeReplyArrived, .timerFired: true
        case .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariCameToForeground,
             .appMessageArrived, .appearanceChanged, .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite,
             .popupPaused, .alarmFired, .alarmsChanged, .menusChanged, .pageMessage, .pageAnswered, .portOpened, .portMessage, .portClosed, .storageChanged,
             .tabCreated, .tabUpdated, .tabsAnswered, .safariWentToBackground, .menuClicked, .commandPressed, .actionClicked, .navigated,
             .permissionsChanged: false
        }
    }

    /// The event's name, as traces say it.
    var name: String { ExtensionWire.name(self) }

    var isScopeChoice: Bool {
        if case .popupChoseScope = self { return true }
        return false
    }
}
