import ProcessKit
import SiteSettings

/// What the user sees and does: tabs in windows, profiles, Safari and the app coming and going.
/// The rules of what is visible and what freezes the background live here.
extension SafariMachine {
    // MARK: - Tabs

    /// Opens a tab in a window (the front one by default; iOS has one) and makes it active there;
    /// its content script starts.
    mutating func openTab(_ id: TabID, url: String, nativeDark: Bool, window: Int?, now: EpochMillis, _ effects: inout [Effect]) {
        let window = platform == .iOS ? 1 : (window ?? frontWindow)
        tabs[id] = SafariTab(window: window, url: url, nativeDark: nativeDark, script: ContentScriptMachine(flaws: contentScriptFlaws),
                             repliesAtLoad: nativeRepliesDelivered)
        activeTabs[window] = id
        frontWindow = window
        effects.append(.note("tab \(id.rawValue) opened in profile \(profile), window \(window): \(url)"))
        // Safari fires a tab's events only for an extension that listens for them (WebKit,
        // `fireTabsCreatedEventIfNeeded` and `fireTabsUpdatedEventIfNeeded`), so one that does
        // not sees no trace of them.
        tabEvent(.tabCreated(id, url: url), window: window, &effects)
        tabLoads(id, url: url, to: true, &effects)
        run(.started, in: id, now: now, &effects)
    }

    /// The tab's page loads, at once as pages load here: for a background that listens, each of
    /// `webNavigation`'s stages and `tabs.onUpdated` (`loading`, with the address when it is a new
    /// one, then `complete`), in the order a load reaches them (WebKit's listener types
    /// `WebNavigationOnBeforeNavigate` … `WebNavigationOnCompleted`; `fireTabsUpdatedEventIfNeeded`).
    /// The extension's own pages that are open hear them too.
    private func tabLoads(_ id: TabID, url: String, to newAddress: Bool, _ effects: inout [Effect]) {
        let window = tabs[id]?.window ?? 1
        func stage(_ stage: ExtensionWire.NavigationStage) {
            let event = ExtensionWire.Event.navigated(id, url: url, stage: stage)
            if listens(for: stage.listener) { effects.append(.dispatch(event)) }
            if runsOwnPages, ownPageOpen { effects.append(.pagesTabEvent(event, window: window, profile: profile)) }
        }
        stage(.beforeNavigate)
        tabEvent(.tabUpdated(id, url: url, status: .loading, urlChanged: newAddress), window: window, &effects)
        stage(.committed)
        stage(.domContentLoaded)
        stage(.completed)
        tabEvent(.tabUpdated(id, url: url, status: .complete), window: window, &effects)
    }

    /// A tab's event (`tabs.onCreated`, `onUpdated`, `onActivated`, `onRemoved`): the background
    /// hears it, `onCreated` and `onUpdated` only where an extension listens for them (WebKit,
    /// `fireTabsCreatedEventIfNeeded`, `fireTabsUpdatedEventIfNeeded`), and the extension's own
    /// pages hear it too (WebKit sends it to every process that listens).
    private func tabEvent(_ event: ExtensionWire.Event, window: Int, _ effects: inout [Effect]) {
        switch event {
        case .tabCreated, .tabUpdated: if let listener = event.listener, listens(for: listener) { effects.append(.dispatch(event)) }
        default: effects.append(.dispatch(event))
        }
        // (Only the extension's own pages hear it: with none open, the pages are not asked.)
        if runsOwnPages, ownPageOpen { effects.append(.pagesTabEvent(event, window: window, profile: profile)) }
    }

    /// Whether the popup or a page of the extension's own in a tab of the front profile is open.
    var ownPageOpen: Bool { popupTab != nil || tabs.values.contains { ExtensionManifest.isOwnPage($0.url) } }

    /// The page loads again: a new content script starts over, with no decision applied.
    mutating func reloadTab(_ id: TabID, newAddress: Bool = false, now: EpochMillis, _ effects: inout [Effect]) {
        guard let tab = tabs[id] else { return }
        tabs[id]?.applied = nil
        tabs[id]?.firstDecisionAt = nil
        tabs[id]?.firstDecision = nil
        tabs[id]?.nativeRepliesBeforeFirstDecision = nil
        tabs[id]?.repliesAtLoad = nativeRepliesDelivered
        effects.append(.note("tab \(id.rawValue) loads \(tab.url)"))
        tabLoads(id, url: tab.url, to: newAddress, &effects)
        startScript(in: id, now: now, &effects)
    }

    /// A new content script starts in the page as it is (loaded, restored, or injected by an update).
    mutating func startScript(in id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        guard tabs[id] != nil else { return }
        tabs[id]?.script = ContentScriptMachine(flaws: contentScriptFlaws)
        tabs[id]?.answersInARowForgotten()
        run(.started, in: id, now: now, &effects)
    }

    /// Hands the page's content script what happened and carries out what it does.
    mutating func run(_ input: ContentScriptMachine.Input, in id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        // The extension's own content scripts start with their page; the rest is theirs.
        if runsOwnPages {
            if input == .started { loadPage(id, &effects) }
            return
        }
        // A fresh question (the script starts, the page shows) starts the count of empty answers again.
        if input == .started || input == .becameVisible { tabs[id]?.answersInARowForgotten() }
        // Whatever happens to it, a pause it took is over.
        if input != .emptyAnswer { tabs[id]?.asksAgainAt = nil }
        guard let directives = tabs[id]?.script.handle(input) else { return }
        for directive in directives {
            switch directive {
            case .ask:
                if input == .emptyAnswer { effects.append(.note(.asksAgain(id))) }
                if input == .pauseEnded { effects.append(.note("tab \(id.rawValue)'s pause is over: it asks again")) }
                askForDecision(id, now: now, &effects)
            case .askAfter(let pause):
                tabs[id]?.asksAgainAt = now + EpochMillis(pause)
                effects.append(.note(.asksAgainAfter(id, milliseconds: pause)))
            case .apply(let decision):
                apply(decision, to: id, now: now)
            case .stopAsking(let count):
                effects.append(.note(.stopsAsking(id, emptyAnswers: count)))
            }
        }
    }

    /// The tab goes to another page: its content script starts over there and asks. The popup
    /// follows its tab, with no scope chosen there yet.
    mutating func navigateTab(_ id: TabID, to url: String, now: EpochMillis, _ effects: inout [Effect]) {
        guard let before = tabs[id]?.url else { return }
        tabs[id]?.url = url
        if popupTab == id { openPopup?.scope = nil }
        reloadTab(id, newAddress: url != before, now: now, &effects)
    }

    /// Makes the tab active in its window and its window the front one (`tabs.onActivated`).
    mutating func activateTab(_ id: TabID, now: EpochMillis, _ effects: inout [Effect]) {
        guard let tab = tabs[id] else { return }
        activeTabs[tab.window] = id
        frontWindow = tab.window
        tabEvent(.tabActivated(id), window: tab.window, &effects)
        run(.becameVisible, in: id, now: now, &effects)
    }

    /// Closes the tab; its window shows another of its tabs, if it has one (`tabs.onRemoved`).
    mutating func closeTab(_ id: TabID, _ effects: inout [Effect]) {
        guard let tab = tabs.removeValue(forKey: id) else { return }
        action.forget(id)
        if activeTabs[tab.window] == id {
            activeTabs[tab.window] = tabs.filter { $0.value.window == tab.window }.keys.sorted().first
        }
        effects.append(.note("tab \(id.rawValue) closed"))
        // The popup over it closes with it, as when the user closes it.
        if popupTab == id { closePopup(&effects) }
        if runsOwnPages {
            pageGone(.tab(pageKey(id)), &effects)
            shownPages.remove(pageKey(id))
            effects.append(.closePage(pageKey(id)))
        }
        tabEvent(.tabClosed(id), window: tab.window, &effects)
    }

    /// The content script applied a decision the background sent.
    mutating func apply(_ decision: Decision, to id: TabID, now: EpochMillis) {
        guard let tab = tabs[id] else { return }
        tabs[id]?.applied = decision
        tabs[id]?.decidedAt = now
        tabs[id]?.questionPending = false
        tabs[id]?.answersInARowForgotten()
        tabs[id]?.waitingSince = nil
        if tab.firstDecisionAt == nil {
            tabs[id]?.firstDecisionAt = now
            tabs[id]?.firstDecision = decision
            tabs[id]?.nativeRepliesBeforeFirstDecision = nativeRepliesDelivered - tab.repliesAtLoad
        }
    }

    // MARK: - Waits (what invariant 6 times)

    /// Every page waiting for a decision waits from now (its wait was excused until now).
    mutating func restartWaits(now: EpochMillis) {
        for id in tabs.keys where tabs[id]?.waitingSince != nil { tabs[id]?.waitingSince = now }
    }

    /// The page's wait, if it waits, starts again now.
    mutating func restartWait(of id: TabID, now: EpochMillis) {
        if tabs[id]?.waitingSince != nil { tabs[id]?.waitingSince = now }
    }

    /// The page's wait is over without an answer (invariant 6 reported it).
    mutating func endWait(of id: TabID) { tabs[id]?.waitingSince = nil }

    // MARK: - Safari and the app

    /// Safari comes to the front. On iOS the app leaves it; a Safari that was suspended fires
    /// its overdue timers first (WebKit has no iOS app-state handling: they are run-loop timers
    /// that fire late). Its background, unless the user froze it, takes what waited for it.
    mutating func safariCameToForeground(now: EpochMillis, _ effects: inout [Effect]) {
        if platform == .iOS && appInForeground { suspendApp(&effects) }
        if !safariInForeground {
            safariInForeground = true
            effects.append(.note("Safari comes to the front"))
            if platform == .iOS {
                effects.append(.fireOverdueTimers)
                return
            }
            if !frozenByUser { effects.append(.thawBackground(traced: false, held: takeHeld())) }
        }
        reachedTheFront(now: now, &effects)
    }

    /// After the overdue timers of a return on iOS.
    mutating func resumeAfterReturn(now: EpochMillis, _ effects: inout [Effect]) {
        if !frozenByUser { effects.append(.thawBackground(traced: true, held: takeHeld())) }
        reachedTheFront(now: now, &effects)
    }

    /// Safari in front tells the background (`windows.onFocusChanged`) and every visible page asks.
    private mutating func reachedTheFront(now: EpochMillis, _ effects: inout [Effect]) {
        effects.append(.dispatch(.safariCameToForeground))
        if runsOwnPages, ownPageOpen { effects.append(.pagesWindowFocus(window: frontWindow, profile: profile)) }
        for id in visibleTabs { run(.becameVisible, in: id, now: now, &effects) }
    }

    /// On iOS, Safari in the background freezes the background and its timers.
    mutating func safariWentToBackground(_ effects: inout [Effect]) {
        let wasFrozen = isBackgroundFrozen
        let wasInFront = safariInForeground
        if wasInFront {
            effects.append(.note(platform == .iOS ? "Safari goes to the background: iOS suspends it, and the extension with it" : "Safari goes to the background"))
        }
        safariInForeground = false
        if platform == .iOS { effects.append(.freezeBackground(traced: !wasFrozen)) }
        // On macOS no Safari window has focus now: Safari tells its extensions so
        // (`WebExtensionContext::didFocusWindow(nullptr)` fires `windows.onFocusChanged` with
        // `WINDOW_ID_NONE`, through `wakeUpBackgroundContentIfNecessaryToFireEvents`). iOS
        // suspends Safari with the extension at once: nothing fires there.
        if platform == .macOS && wasInFront {
            effects.append(.dispatch(.safariWentToBackground))
            if runsOwnPages, ownPageOpen { effects.append(.pagesWindowFocus(window: -1, profile: profile)) }
        }
    }

    /// The app leaves the front (the user, or Safari taking the front on iOS).
    mutating func suspendApp(_ effects: inout [Effect]) {
        if appInForeground { effects.append(.suspendApp) }
        appInForeground = false
    }

    /// Safari quits: its background is killed (Web Inspector detaches with it).
    mutating func safariQuit(_ effects: inout [Effect]) {
        if loaded != nil { effects.append(.killBackground(reason: "safari restart", stop: .unloaded)) }
        // The popup, the prompts and the tabs' pages are Safari's: they go with Safari.
        forgetPopup(&effects)
        dropPermissionPrompts(&effects)
        closeTabPages(&effects)
    }

    /// Every tab's page of the extension's goes with Safari (it quit, or lost power), in every
    /// profile: at the launch each of the front profile's tabs loads a new page, with a
    /// `sessionStorage` of its own, and a profile put away loads its own when it is in front
    /// again; what their pages sent and Safari held goes with them.
    private mutating func closeTabPages(_ effects: inout [Effect]) {
        guard runsOwnPages else { return }
        for id in tabs.keys.sorted() {
            pageGone(.tab(pageKey(id)), &effects)
            shownPages.remove(pageKey(id))
            effects.append(.closePage(pageKey(id)))
        }
        for name in putAway.keys.sorted() {
            for id in putAway[name]!.tabs.keys.sorted() {
                let key = PageKey(id, profile: name)
                pageGone(.tab(key), &effects)
                shownPages.remove(key)
                effects.append(.closePage(key))
            }
            putAway[name]?.pageEvents = []
            putAway[name]?.pagesClosed = true
        }
    }

    /// Safari starts again: what lived in its memory is gone (events held for a frozen
    /// background, `storage.session`, alarms, native requests, listeners registered since their
    /// background's load ended), every page asks again, and
    /// Safari loads the background once for `runtime.onStartup`, with no event for it
    /// (`WebExtensionContext::loadBackgroundWebViewDuringLoad`, `isFreshlyCreated`,
    /// `performTasksAfterBackgroundContentLoads`).
    mutating func safariLaunched(now: EpochMillis, _ effects: inout [Effect]) {
        if !held.isEmpty { effects.append(.note("restart drops \(held.count) events held for the frozen background")) }
        holdNoBackground(&effects)
        if platform == .iOS { suspendApp(&effects) }
        forgetSafarisMemory(&effects)
        startReason = .startup
        for id in tabs.keys.sorted() { startScript(in: id, now: now, &effects) }
        loadBackground(now: now, &effects)
    }

    /// What lives only in Safari's memory is gone with it (it quit, or the power failed):
    /// `storage.session`, alarms, native requests and the listener types not saved; Safari is in
    /// front again.
    private mutating func forgetSafarisMemory(_ effects: inout [Effect]) {
        effects.append(.dropSessionStorage)
        // What its backgrounds registered is what it saved at their loads' ends
        // (`loadBackgroundPageListenersFromStorage`).
        sessionListeners = savedListeners
        forgetAlarms(&effects)
        forgetActions()
        activeNativeRequests = []
        hungLegacyRequests = 0
        if !safariInForeground { effects.append(.note("Safari comes to the front")) }
        safariInForeground = true
    }

    /// Safari holds no background for the front profile: none loaded (the last stopped as an
    /// unload), none frozen, nothing held for one, and no port, listener set or inspector of one.
    mutating func holdNoBackground(_ effects: inout [Effect]) {
        stopBackground(.unloaded, &effects)
        frozenByUser = false
        held = []
    }

    /// The power failed and the device started again: every process is gone with Safari's
    /// memory; Safari restores its tabs, each page loads and asks afresh, and Safari's launch
    /// loads the background.
    mutating func powerLost(now: EpochMillis, _ effects: inout [Effect]) {
        holdNoBackground(&effects)
        appInForeground = false
        forgetPopup(&effects)
        dropPermissionPrompts(&effects)
        closeTabPages(&effects)
        forgetSafarisMemory(&effects)
        startReason = .startup
        // Every question died with its background: each page's wait starts again with its reload.
        for id in tabs.keys.sorted() {
            if tabs[id]?.waitingSince != nil { tabs[id]?.waitingSince = now }
            reloadTab(id, now: now, &effects)
        }
        loadBackground(now: now, &effects)
    }

    // MARK: - Profiles

    /// The front profile's extension instance is unloaded, and its tabs and popup go out of sight.
    mutating func profileLeftFront(_ effects: inout [Effect]) {
        if loaded != nil { effects.append(.killBackground(reason: "profile \(profile) left the front", stop: .unloaded)) }
    }

    /// Another profile comes to the front: its tabs come back (each visible page asks), over
    /// its own extension storage, with the alarms it had. What the pages of the one that left
    /// sent, held or `queued` for its background, waits with that profile, as its pages do.
    mutating func profileCameToFront(_ name: String, queued: [ExtensionWire.Event], now: EpochMillis, _ effects: inout [Effect]) {
        let pageEvents = (held.map(\.event) + queued).filter(\.isFromAPage)
        holdNoBackground(&effects)
        forgetPopup(&effects)
        dropPermissionPrompts(&effects)
        putAway[profile] = PutAway(tabs: tabs, activeTabs: activeTabs, frontWindow: frontWindow, alarms: alarms, action: action, menus: menus, pageEvents: pageEvents)
        let restored = putAway.removeValue(forKey: name) ?? PutAway(tabs: [:], activeTabs: [:], frontWindow: 1, alarms: [:])
        (tabs, activeTabs, frontWindow, alarms, action, menus) = (restored.tabs, restored.activeTabs, restored.frontWindow, restored.alarms, restored.action, restored.menus)
        profile = name
        profiles.insert(name)
        effects.append(.note("profile \(name) in front"))
        // Its pages waited out of sight: their waits start again now. Pages that went with
        // Safari while it was away load afresh.
        restartWaits(now: now)
        if restored.pagesClosed && runsOwnPages { for id in tabs.keys.sorted() { loadPage(id, &effects) } }
        for event in restored.pageEvents { effects.append(.dispatch(event)) }
        for id in visibleTabs { run(.becameVisible, in: id, now: now, &effects) }
    }

    /// The popup is shown in Safari in front: a user who is in another app (iOS suspends
    /// Safari behind it) brings Safari to the front before they can open or use it.
    mutating func bringSafariToTheFront(to gesture: String, now: EpochMillis, _ effects: inout [Effect]) {
        guard !safariInForeground else { return }
        effects.append(.note("the user brings Safari to the front to \(gesture)"))
        safariCameToForeground(now: now, &effects)
    }

    /// Whether the user can use the popup: it is open (else nothing happens, and the trace
    /// says so), in Safari brought to the front.
    mutating func userReachesThePopup(to gesture: String, now: EpochMillis, _ effects: inout [Effect]) -> Bool {
        guard popupTab != nil else {
            effects.append(.note("no popup is open: nothing to \(gesture)"))
            return false
        }
        bringSafariToTheFront(to: gesture + " in the popup", now: now, &effects)
        return true
    }

    /// The popup closes (the user closes it, or its tab): what it showed last stays on record;
    /// its port closes, and the extension's own popup page hears that it goes.
    mutating func closePopup(_ effects: inout [Effect]) {
        release(.popup)
        openPopup = nil
        if runsOwnPages { pageGone(.popup, &effects) }
        effects.append(runsOwnPages ? .closePopupPage(hides: true) : .dispatch(.popupClosed))
    }

    /// The popup is gone with what it showed (Safari quit, the extension reloaded, its profile
    /// left the front, the power failed).
    mutating func forgetPopup(_ effects: inout [Effect]) {
        // The extension's own popup page goes with it, and what it waited for.
        if runsOwnPages && popupTab != nil {
            pageGone(.popup, &effects)
            effects.append(.closePopupPage(hides: false))
        }
        openPopup = nil
        popup = nil
    }
}
