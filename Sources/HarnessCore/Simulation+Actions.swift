#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// What the user, Safari and the operating system do, as the steps call it: the app's and
/// Safari's lifecycle, tabs and profiles, the popup, and the background's unloads, kills and
/// freezes. Each tells the processes what changed and leaves the rest to `settle`.
extension Simulation {
    // MARK: - The app

    public func launchApp() {
        if app == nil {
            guard let started = start(.app) else { return }
            app = started
            clock.queue.append(.appInput(.launched))
        }
        appForeground()
    }

    /// The app comes to the front. On iOS, Safari goes to the background.
    public func appForeground() {
        guard app != nil else { return launchApp() }
        safari.appInForeground = true
        if platform == .iOS && safari.safariInForeground { safariBackground() }
        clock.queue.append(.appInput(.foreground))
    }

    /// The app is suspended: it misses notifications and re-reads when it returns.
    public func appBackground() { suspendApp() }

    /// The app leaves the front (the user, or Safari taking the front on iOS).
    private func suspendApp() {
        if let app, safari.appInForeground { trace.record(now, app.label, "suspended") }
        safari.appInForeground = false
    }

    public func killApp() {
        if let app { kill(app) }
        app = nil
        appEditsUnanswered = []
        safari.appInForeground = false
    }

    /// A user edit in the app; the answer is in `lastEditAnswer`, and under the returned number
    /// in `editAnswers` and `appAnswers`.
    @discardableResult
    public func appEdit(_ edit: AppWire.UserEdit) -> Int {
        if app == nil || !safari.appInForeground { appForeground() }
        let number = newEditNumber()
        clock.queue.append(.appInput(.edit(edit), edit: number))
        return number
    }

    private func newEditNumber() -> Int {
        defer { nextEditNumber += 1 }
        return nextEditNumber
    }

    // MARK: - Safari

    public func safariForeground() {
        if platform == .iOS && safari.appInForeground { suspendApp() }
        if !safari.safariInForeground {
            safari.safariInForeground = true
            if platform == .iOS { fireOverdue() }
            if !safari.backgroundFrozenByUser {
                if platform == .iOS { thawed() }
                background?.child.thaw()
                clock.queue += heldForBackground.map { .backgroundInput($0) }
                heldForBackground = []
                wakeWaiters()
            }
        }
        event(.safariForeground)
        for id in visibleTabs { askForDecision(id) }
    }

    /// On iOS, Safari in the background freezes the background and its timers.
    public func safariBackground() {
        let wasFrozen = safari.isBackgroundFrozen
        safari.safariInForeground = false
        if platform == .iOS {
            if !wasFrozen { frozen() }
            try? background?.child.freeze()
        }
    }

    /// The trace notes when the background stops taking anything and when it starts again
    /// (the user froze it, or iOS Safari left the front and came back).
    private func frozen() {
        if let background { trace.record(now, background.label, "frozen") }
    }

    private func thawed() {
        if let background { trace.record(now, background.label, "thawed") }
    }

    /// Quits and reopens Safari: the background is gone and session storage with it.
    public func safariRestart() {
        if let background { kill(background, reason: "safari restart") }
        background = nil
        backgroundStop = .unloaded
        if !heldForBackground.isEmpty { trace.record(now, "safari", "restart drops \(heldForBackground.count) events held for the frozen background") }
        heldForBackground = []
        safari.backgroundFrozenByUser = false
        if platform == .iOS { suspendApp() }
        forgetSessions()
        forgetAlarms()
        forgetNativeRequests()
        safari.safariInForeground = true
        for id in tabs.keys.sorted() { askForDecision(id) }
    }

    /// Session storage lives in Safari's memory: quitting it (or losing power) loses every
    /// profile's.
    func forgetSessions() {
        for name in safari.profiles {
            unlink(Self.storageDirectory(in: directory, profile: name) + "/session.json")
            disk.place(Self.storageFolder(name) + "session.json", nil)
        }
    }

    /// Native requests end with Safari.
    func forgetNativeRequests() {
        activeNativeRequests = []
        hungLegacyRequests = 0
    }

    /// Alarms live in Safari's memory only (WebKit keeps them in `m_alarmMap` and writes them
    /// nowhere): quitting Safari, or losing power, drops every profile's. A background sets its
    /// alarms again when it starts.
    func forgetAlarms() {
        clock.alarm = nil
        safari.forgetAlarms()
    }

    /// Brings another Safari profile to the front: the extension instance of the one that was
    /// in front is unloaded and its tabs and popup go out of sight; the other profile's tabs
    /// come back (each page asks, being visible again) over its own extension storage.
    public func switchProfile(_ name: String) {
        guard name != profile else { return }
        if let background { kill(background, reason: "profile \(profile) left the front") }
        background = nil
        backgroundStop = .unloaded
        clock.queue.removeAll(of: [.backgroundInput, .storageCompletion])
        heldForBackground = []
        safari.backgroundFrozenByUser = false
        clock.timers = [:]
        monitor.noAnswerOwed()
        clock.alarm = safari.switchProfile(to: name, alarm: clock.alarm)
        if transport == .process { mkdir(storageDirectory, 0o755) }
        trace.record(now, "safari", "profile \(name) in front")
        // Its pages waited out of sight: their waits start again now.
        for id in tabs.keys where tabs[id]?.waitingSince != nil { safari.tabs[id]?.waitingSince = now }
        for id in visibleTabs { askForDecision(id) }
    }

    /// Opens a tab in a window (the front one by default; iOS has one) and makes it active there.
    public func openTab(_ id: TabID, url: String, nativeDark: Bool = false, window: Int? = nil) {
        safari.open(id, url: url, nativeDark: nativeDark, window: window, repliesDelivered: nativeRepliesDelivered)
        trace.record(now, "safari", "tab \(id.rawValue) opened in profile \(profile), window \(tabs[id]!.window): \(url)")
        askForDecision(id)
    }

    /// The page reloads: its content script starts over and asks for a decision.
    public func reloadTab(_ id: TabID) {
        guard let tab = tabs[id] else { return }
        safari.reload(id, repliesDelivered: nativeRepliesDelivered)
        trace.record(now, "safari", "tab \(id.rawValue) loads \(tab.url)")
        askForDecision(id)
    }

    /// The tab goes to another page: its content script starts over there and asks.
    public func navigateTab(_ id: TabID, to url: String) {
        guard tabs[id] != nil else { return }
        safari.tabs[id]?.url = url
        // The popup follows its tab to the new page, with no scope chosen there yet.
        if popupTab == id { safari.popupScope = nil }
        reloadTab(id)
    }

    public func activateTab(_ id: TabID) {
        guard tabs[id] != nil else { return }
        safari.activate(id)
        event(.tabActivated(id))
        askForDecision(id)
    }

    public func closeTab(_ id: TabID) {
        guard safari.close(id) != nil else { return }
        trace.record(now, "safari", "tab \(id.rawValue) closed")
        monitor.noAnswerOwed(by: id.rawValue)
        // `tabs.onRemoved`: it wakes the background if it listens for it.
        event(.tabClosed(id))
    }

    /// The content script of a tab detects (or stops detecting) a native dark theme after its
    /// first decision.
    public func setNativeDark(_ id: TabID, _ nativeDark: Bool) {
        guard tabs[id] != nil else { return }
        safari.tabs[id]?.nativeDark = nativeDark
        event(.tabNativeDarkChanged(id, nativeDark: nativeDark))
    }

    public func setAppearance(_ value: Appearance) {
        safari.appearance = value
        // The content script reports it (`runtime.onMessage`): it wakes the background too.
        event(.appearanceChanged(value))
    }

    // MARK: - The popup

    public func openPopup(on id: TabID) {
        safari.openPopup(on: id)
        event(.popupOpened(id))
    }

    /// The user picks which record the popup edits: host, domain or page (the key as written).
    public func choosePopupScope(_ key: String) {
        safari.popupScope = key
        event(.popupChoseScope(scope: key))
    }

    /// A change in the popup; its answer is in `editAnswers` under the returned number.
    @discardableResult
    public func popupEdit(set: SiteValues = SiteValues(), reset: [SiteField] = []) -> Int {
        let number = newEditNumber()
        event(.popupEdited(set: set, reset: reset, message: number, at: now))
        return number
    }

    /// "Forget this site": the popup deletes the selected scope's record.
    @discardableResult
    public func popupForget() -> Int {
        let number = newEditNumber()
        event(.popupForgotSite(message: number, at: now))
        return number
    }

    public func closePopup() {
        safari.closePopup()
        event(.popupClosed)
    }

    public func popupPause(for duration: EpochMillis) {
        event(.popupPaused(until: now + duration))
    }

    // MARK: - The background

    /// Safari unloads the background without notice.
    public func unloadBackground() {
        if let background {
            kill(background, reason: "unloaded")
            backgroundStop = .unloaded
        }
        background = nil
    }

    /// Kills the background mid-work (a crash, not an unload: the same to the process).
    public func killBackground() {
        if let background {
            kill(background, reason: "killed")
            backgroundStop = .killed
        }
        background = nil
    }

    /// Freezes the background (SIGSTOP): it takes nothing and its timers stop until `thawBackground`.
    public func freezeBackground() {
        if !safari.isBackgroundFrozen { frozen() }
        safari.backgroundFrozenByUser = true
        try? background?.child.freeze()
    }

    public func thawBackground() {
        let wasFrozen = safari.isBackgroundFrozen
        safari.backgroundFrozenByUser = false
        guard !safari.isBackgroundFrozen else { return }
        if wasFrozen { thawed() }
        background?.child.thaw()
        clock.queue += heldForBackground.map { .backgroundInput($0) }
        heldForBackground = []
        // A hold released while it was frozen lets it go on now.
        wakeWaiters()
    }
}
