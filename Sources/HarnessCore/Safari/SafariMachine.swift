import ProcessKit
import SiteSettings

/// Safari and the operating system around the extension, as a value: what they show (tabs,
/// windows, profiles, the popup, the appearance, which app is in front) and the rules WebKit
/// plays for the background (when it loads and unloads, which events wake it, its listeners,
/// ports, alarms and native requests). Each input is something that happened, with the time it
/// happened; `handle` returns the complete list of effects for a shell to carry out in order.
/// It never reads a clock, a file or a random source, and starts nothing itself: the
/// simulation drives it on virtual time and the soak on the wall clock.
///
/// Processes are the shell's: an effect asks it to start, kill, freeze or hand an event to the
/// background, or to start a handler, and what came of it returns as an input
/// (`backgroundStarted`, `backgroundFinished`, `backgroundDied`, `replyArrived`, ...).
package struct SafariMachine: Sendable {
    /// The device Safari runs on: macOS has several windows and lets the app message the
    /// extension; iOS shows one tab and suspends Safari when it leaves the front.
    package enum Platform: String, CaseIterable, Sendable { case iOS = "ios", macOS = "macos" }

    /// An event held for a frozen background, with the incarnation it belongs to, if only one.
    struct Pending: Equatable, Sendable {
        var event: ExtensionWire.Event
        var incarnation: Int?
    }

    /// One background incarnation's native request.
    package struct NativeRequestID: Hashable, Comparable, Sendable {
        var incarnation: Int
        var request: Int
        init(incarnation: Int, request: Int) {
            self.incarnation = incarnation
            self.request = request
        }
        package static func < (a: Self, b: Self) -> Bool { (a.incarnation, a.request) < (b.incarnation, b.request) }
    }

    /// One of a background incarnation's own timers.
    struct TimerID: Hashable, Comparable, Sendable {
        var incarnation: Int
        var timer: BackgroundTimer
        init(incarnation: Int, _ timer: BackgroundTimer) {
            self.incarnation = incarnation
            self.timer = timer
        }
        /// By incarnation, then native timeouts by request before script timers by number.
        static func < (a: Self, b: Self) -> Bool { (a.incarnation, a.order.kind, a.order.number) < (b.incarnation, b.order.kind, b.order.number) }
        private var order: (kind: Int, number: Int) {
            switch timer {
            case .nativeTimeout(let request): (0, request)
            case .script(let number): (1, number)
            }
        }
    }

    /// An alarm, as `alarms.create` makes it: at a time, once or every `period`.
    struct Alarm: Equatable, Sendable {
        var at: EpochMillis
        var period: EpochMillis?
        /// A one-shot alarm that fired: Safari drops its timer and keeps the alarm, with its time
        /// in the past, so `alarms.get` and `getAll` still give it until it is cleared or made
        /// again (`WebExtensionAlarm::fire` sets `m_timer` to null; nothing removes it from
        /// `m_alarmMap`).
        var fired = false
        /// How long the device slept since the alarm was set: `at` moved that much later, as
        /// Safari's monotonic clock stopped (a change the alarm was set for comes that late).
        var sleptSinceSet: EpochMillis = 0
    }

    /// How often each rule bit (the soak prints these).
    struct RuleCounts: Equatable, Sendable {
        /// Events that woke nothing or were lost: the background does not listen for them.
        var droppedForWantOfAListener = 0
        /// Alarms asked for sooner than the minimum and raised to it.
        var alarmsRaisedToTheMinimum = 0
        /// Native requests refused while the most Safari allows were in flight.
        var requestsRefusedAtTheCap = 0
    }

    /// A port the loaded background holds: to the native app (`runtime.connectNative`), from
    /// the open popup (`runtime.connect`; the background posts the popup's view on it), or one
    /// of the extension's own pages opened (`runtime.connect`), by its number.
    enum Port: Hashable, Sendable { case native, popup, page(Int) }

    // MARK: - Constants (WebKit's, each cited where it is used)

    static let defaultProfile = "default"
    /// Safari unloads a non-persistent background this long after it was last woken (WebKit,
    /// `WebExtensionContext::scheduleBackgroundContentToUnload`: `delayBeforeUnloading`, 30 s,
    /// on macOS and iOS alike).
    static let idleUnload: EpochMillis = 30_000
    /// Safari postpones an unload, 30 s at a time, while the background holds an open port
    /// (any: native, or from the popup or a content script) and opened or posted on one less
    /// than this long ago (WebKit,
    /// `WebExtensionContext::unloadBackgroundContentIfPossible`: `delayForInactivePorts`;
    /// `m_lastBackgroundPortActivityTime` is set only by the background's own `addPorts` and
    /// `portPostMessage`, never by messages arriving on the port).
    static let portKeepAlive: EpochMillis = 120_000
    /// How many native requests Safari lets be in flight at once, across every extension; it
    /// refuses one more at once (WebKit, `WebExtensionContext::sendNativeMessage`:
    /// `maximumActiveRequestCount`, "too many active native message requests").
    static let maximumActiveNativeRequests = 150
    /// The shortest delay Safari allows an alarm: shorter delays and periods are raised to it
    /// (WebKit, `WebExtensionAPIAlarms.cpp` `createAlarm` with `webExtensionMinimumAlarmInterval`,
    /// 30 s; the older `WebExtensionAPIAlarmsCocoa.mm` enforced 1 minute).
    static let alarmMinimum: EpochMillis = 30_000
    /// The name of the alarm the reference background sets (it has one, for the next change
    /// a time brings: a schedule boundary, a pause's end).
    static let decisionAlarm = "next-change"

    /// Safari's key for an alarm the wire names: the unnamed one (the built-in background's)
    /// is `decisionAlarm`. (A script's alarm named "next-change" is that one.)
    static func alarmKey(_ name: String) -> String { name.isEmpty ? decisionAlarm : name }


    // MARK: - Settings

    let platform: Platform
    /// The shortest delay this Safari allows an alarm (`alarm-minimum`).
    var alarmMinimum = SafariMachine.alarmMinimum
    /// How long a background's load takes before its scripts run (`background-load-time`): none
    /// by default, as WebKit gives a load no fixed time.
    var backgroundLoadTime: EpochMillis = 0
    /// How many native requests may be in flight at once.
    var nativeRequestCap = SafariMachine.maximumActiveNativeRequests
    /// Known bugs switched on in the content scripts Safari starts in pages.
    var contentScriptFlaws: Set<Flaw> = []
    /// The extension's own pages run (its content scripts and popup, as its JavaScript, in the
    /// shell's page host) in place of the reference content script and the popup's documented
    /// messages: pages and the background talk in the messages Safari carries between them.
    var runsOwnPages = false

    // MARK: - What Safari shows

    var tabs: [TabID: SafariTab] = [:]
    /// The active tab of each window.
    var activeTabs: [Int: TabID] = [:]
    /// The window in front.
    var frontWindow = 1
    /// The Safari profile in front. Each runs its own instance of the extension with its own
    /// storage, tabs and popup; the app and the App Group container are shared.
    var profile: String
    /// Every profile shown so far, and what those not in front keep.
    var profiles: Set<String>
    var putAway: [String: PutAway] = [:]
    var appearance = Appearance.light
    var safariInForeground = true
    var appInForeground = false
    /// The popup the user has open, if one is.
    var openPopup: OpenPopup?
    /// The tab the open popup belongs to.
    var popupTab: TabID? { openPopup?.tab }
    /// What the popup showed last: kept on record once it closes, until Safari forgets it.
    var popup: PopupView?

    // MARK: - The background

    /// The front profile's background: loaded, with what lives as long as the load, or stopped.
    var background = BackgroundLife.stopped(.unloaded)
    /// Why the next background load fires a `runtime` event, until one loads.
    var startReason: ExtensionWire.StartReason?
    /// The extension's background is persistent (Manifest V2's default; macOS only): Safari loads
    /// it with the extension and never unloads it when idle.
    var persistentBackground = false
    /// The extension's keyboard commands, by name (its manifest's `commands`).
    var commandNames: Set<String> = []
    /// The toolbar item's values before the extension sets any, from the installed manifest
    /// (its popup, its title, whether it is enabled).
    var actionDefaults: [ExtensionAction.Property: JSONValue] = [:]
    /// The extension's version as Safari installed it, and the one its files' manifest gives
    /// (an update may install the same files as another version).
    var installedVersion = "1.0"
    var manifestVersion = "1.0"
    /// The version an update replaced, until the load that fires `runtime.onInstalled` for it.
    var updatedFrom: String?
    /// The user froze the background (SIGSTOP).
    var frozenByUser = false
    /// Events for a frozen background, delivered when it thaws.
    var held: [Pending] = []
    /// The events each profile's extension listens for as Safari saved them at its last load's
    /// end (WebKit, `saveBackgroundPageListenersToStorage` from
    /// `performTasksAfterBackgroundContentLoads`): what it knows again when it launches.
    var savedListeners: [String: Set<BackgroundListener>] = [:]
    /// What each profile's earlier backgrounds of this Safari session registered, or what Safari
    /// read from `savedListeners` as it launched: WebKit's `m_backgroundContentEventListeners`
    /// counts each `addListener` and `removeListener` and an unload removes nothing, so a type
    /// stays in it for the session once a background that ended had it. Nil while Safari knows
    /// nothing of the extension's listeners (a run that starts with it installed and unloaded).
    var sessionListeners: [String: Set<BackgroundListener>] = [:]
    /// The front profile's alarms, by name (Safari keeps them in memory only).
    var alarms: [String: Alarm] = [:]
    /// What the front profile's extension set on its toolbar item (Safari keeps it in memory only).
    var action = ExtensionAction()
    /// The menu items the front profile's extension made (Safari keeps them in memory only).
    var menus: [ExtensionMenuItem] = []
    /// Native requests in flight (a reply held back or withheld keeps its request in flight),
    /// and the first version's requests a hung handler never answered.
    var activeNativeRequests: Set<NativeRequestID> = []
    var hungLegacyRequests = 0
    /// Native replies delivered to any background so far (to count those before a first decision).
    var nativeRepliesDelivered = 0
    var counts = RuleCounts()
    /// Pages' messages not yet answered, and the incarnation that took each, once one did.
    var pageQuestions: [Int: PageQuestion] = [:]
    /// The background's messages to pages, by Safari's number: whose, its own number, the page
    /// that has it, and, for a message to every extension page, the group of copies it is one of
    /// (the first copy's number).
    var messagesToPages: [Int: (incarnation: Int, id: Int, page: PageHost.Page, group: Int?)] = [:]
    /// The background's messages to every extension page, by group: the copies not answered yet,
    /// and whether a page took one (a listener heard it) though it answered nothing.
    var messageGroups: [Int: (pending: Set<Int>, heard: Bool)] = [:]
    /// An extension page's messages to a tab's page (`tabs.sendMessage`), by Safari's number:
    /// the asking page's own number for it, and the page that has it.
    var pageMessagesToTabs: [Int: (asker: Int, page: PageHost.Page)] = [:]
    var nextMessageToPage = 1
    /// The ports between pages and the background, by the number the page's end has: those
    /// pages opened (`runtime.connect`, numbered by the page host from 1) and those the
    /// background opened to a tab (`tabs.connect`, numbered by Safari from -1 down).
    var pagePorts: [Int: PagePort] = [:]
    /// The number the next port the background opens to a tab has at the page's end.
    var nextTabPort = -1
    /// The pages whose `visibilityState` is `visible`.
    var shownPages: Set<PageKey> = []
    /// The front profile's permission prompts, oldest first (`permissions.request`).
    var permissionPrompts: [PermissionPrompt] = []

    /// A port between a page and the background.
    struct PagePort: Equatable, Sendable {
        /// The page at its end.
        var page: PageHost.Page
        /// The incarnation that holds the background's end: the one whose `runtime.onConnect`
        /// took a page's port, or the one that opened it.
        var takenBy: Int?
        /// The background's number for it: a page's port's number, or the background's own
        /// (below 0) for one it opened.
        var number: Int
        /// Whether Safari added it: false for the background's port that failed at once (to a
        /// tab that is not open, or with no pages running), kept only until the background
        /// hears it failed.
        var added = true
    }

    /// The popup open over a tab, and the scope the user chose in it.
    struct OpenPopup: Equatable, Sendable {
        var tab: TabID
        var scope: String?
    }

    /// A profile's tabs and alarms while another is in front.
    struct PutAway: Sendable {
        var tabs: [TabID: SafariTab]
        var activeTabs: [Int: TabID]
        var frontWindow: Int
        var alarms: [String: Alarm]
        var action = ExtensionAction()
        var menus: [ExtensionMenuItem] = []
        /// What its pages sent that Safari held for a background it could not run yet (iOS had
        /// it suspended): its extension takes them when the profile is in front again.
        var pageEvents: [ExtensionWire.Event] = []
        /// Its tabs' pages went with Safari (it quit, or lost power) while the profile was put
        /// away: each loads afresh when the profile is in front again.
        var pagesClosed = false
    }


    init(platform: Platform, profile: String = SafariMachine.defaultProfile) {
        self.platform = platform
        self.profile = profile
        profiles = [profile]
    }

    // MARK: - Reading

    /// The active tab of the window in front.
    var activeTab: TabID? { activeTabs[frontWindow] }

    /// The events Safari holds the front profile's background listens for
    /// (`m_backgroundContentEventListeners`): the loaded one's listeners with what earlier ones
    /// of the session registered; nil while it knows none.
    var listenerSet: Set<BackgroundListener>? {
        guard let loaded = loadedBackground else { return sessionListeners[profile] }
        return loaded.listeners.union(sessionListeners[profile] ?? [])
    }

    /// Whether Safari holds that the front profile's extension listens for `listener`: it fires
    /// an event of that type, wakes the background for it and starts its unload timer again
    /// only then (`wakeUpBackgroundContentIfNecessaryToFireEvents`).
    func listens(for listener: BackgroundListener) -> Bool { listenerSet?.contains(listener) ?? false }

    /// The tabs a user sees: on macOS the active tab of every window, on iOS the one in front.
    var visibleTabs: [TabID] {
        switch platform {
        case .macOS: activeTabs.keys.sorted().compactMap { activeTabs[$0] }
        case .iOS: activeTab.map { [$0] } ?? []
        }
    }

    /// The background takes nothing and its timers stop: the user froze it, or on iOS Safari is
    /// not in front.
    var isBackgroundFrozen: Bool { frozenByUser || (platform == .iOS && !safariInForeground) }

    /// The earliest alarm of the front profile still to fire, if one is set.
    var nextAlarm: (name: String, at: EpochMillis)? {
        alarms.filter { !$0.value.fired }.min { ($0.value.at, $0.key) < ($1.value.at, $1.key) }.map { ($0.key, $0.value.at) }
    }

    /// Native requests in flight, the first version's included.
    var requestsInFlight: Int { activeNativeRequests.count + hungLegacyRequests }

    /// The loaded background, if one is. (Setting it to nil is only for tests; a background
    /// stops through `background`.)
    var loadedBackground: LoadedBackground? {
        get {
            switch background {
            case .loaded(let loaded): return loaded
            case .stopped, .loading: return nil
            }
        }
        set { if let newValue { background = .loaded(newValue) } }
    }

    /// The loaded background's incarnation, if one is loaded.
    var loaded: Int? {
        guard case .loaded(let loaded) = background else { return nil }
        return loaded.incarnation
    }

    /// How the front profile's background last stopped, while none is loaded.
    var lastStop: BackgroundState {
        switch background {
        case .stopped(let stop): stop
        case .loading: .unloaded
        case .loaded: .running
        }
    }

    /// The first tab whose content script's pause before asking again ends, and when.
    var nextAskAgain: (tab: TabID, at: EpochMillis)? {
        tabs.compactMap { id, tab in tab.asksAgainAt.map { (id, $0) } }.min { ($0.1, $0.0) < ($1.1, $1.0) }
    }

    /// When the background Safari is loading has its scripts run, if one is loading.
    var loadEnds: EpochMillis? {
        if case .loading(let load) = background { load.until } else { nil }
    }

    /// When Safari next checks whether to unload the loaded background: never for a persistent
    /// one (`unloadBackgroundContentIfPossible` returns at once for it).
    var unloadTime: EpochMillis? { persistentBackground ? nil : loadedBackground?.unloadCheck }

    /// Something holds the loaded background at an unload check (WebKit,
    /// `WebExtensionContext::unloadBackgroundContentIfPossible`): Web Inspector is attached
    /// (`_isBeingInspected`), a permission prompt is pending, or it holds an open port it opened
    /// or posted on less than 2 minutes before.
    func isHeld(now: EpochMillis) -> Bool {
        guard let loaded = loadedBackground else { return false }
        return loaded.inspected || !permissionPrompts.isEmpty || (!loaded.ports.isEmpty && now - loaded.lastPortActivity < Self.portKeepAlive)
    }

    /// The loaded background was woken: the unload timer starts again (`scheduleBackgroundContentToUnload`).
    mutating func woke(now: EpochMillis) { loadedBackground?.unloadCheck = now + Self.idleUnload }

    /// The loaded background no longer holds `port`.
    mutating func release(_ port: Port) {
        guard case .loaded(var loaded) = background else { return }
        loaded.ports.remove(port)
        background = .loaded(loaded)
    }

    /// The loaded background opened or posted on a port: Safari's one time of port activity.
    mutating func portActivity(now: EpochMillis) { loadedBackground?.lastPortActivity = now }

    // MARK: - Inputs

    /// Acts on what happened at `now`; returns everything the shell must do, in order.
    mutating func handle(_ input: Input, now: EpochMillis) -> [Effect] {
        var effects: [Effect] = []
        let (actionBefore, alarmsBefore, menusBefore, profileBefore) = (action, alarms, menus, profile)
        switch input {
        case .tabOpened(let id, let url, let nativeDark, let window):
            openTab(id, url: url, nativeDark: nativeDark, window: window, now: now, &effects)
        case .tabReloaded(let id): reloadTab(id, now: now, &effects)
        case .tabNavigated(let id, let url): navigateTab(id, to: url, now: now, &effects)
        case .tabActivated(let id): activateTab(id, now: now, &effects)
        case .tabClosed(let id): closeTab(id, &effects)
        case .runBegan:
            // Safari is running with the extension loaded: a persistent background is loaded
            // with it (`WebExtensionContext::loadBackgroundWebViewDuringLoad`).
            if persistentBackground, loaded == nil, case .stopped = background { loadBackground(now: now, &effects) }
        case .menuItemChosen(let id, let tab): chooseMenuItem(id, in: tab, &effects)
        case .commandPressed(let name): pressCommand(name, now: now, &effects)
        case .actionClicked(let id): clickAction(over: id, now: now, &effects)
        case .nativeDarkDetected(let id, let nativeDark):
            guard tabs[id] != nil else { break }
            tabs[id]?.nativeDark = nativeDark
            if runsOwnPages {
                // The page's own theme changed: what its scripts make of it is theirs.
                effects.append(.pageNativeDark(pageKey(id), nativeDark))
                break
            }
            effects.append(.dispatch(.tabNativeDarkChanged(id, nativeDark: nativeDark)))
        case .appearanceChanged(let value):
            appearance = value
            if runsOwnPages {
                // The pages hear it as a `prefers-color-scheme` change; what they tell the
                // background is their own.
                effects.append(.pagesAppearance(value))
                break
            }
            // The content script reports it (`runtime.onMessage`): it wakes the background too.
            effects.append(.dispatch(.appearanceChanged(value)))
        case .popupOpened(let id):
            // The extension may have taken its popup away for the tab (`action.setPopup` with
            // ""): then the toolbar item has none to open.
            if runsOwnPages, actionPopup(over: id) == "" {
                effects.append(.note("the toolbar item has no popup over tab \(id.rawValue): nothing opens (a click fires action.onClicked: `action click`)"))
                break
            }
            showPopup(over: id, now: now, &effects)
        case .popupScopeChosen(let key):
            guard userReachesThePopup(to: "choose a scope", now: now, &effects) else { break }
            openPopup?.scope = key
            effects.append(.dispatch(.popupChoseScope(scope: key)))
        case .popupEdited(let set, let reset, let edit):
            guard userReachesThePopup(to: "edit", now: now, &effects) else { break }
            effects.append(.dispatch(.popupEdited(set: set, reset: reset, message: edit, at: now)))
        case .popupForgotSite(let edit):
            guard userReachesThePopup(to: "forget the site", now: now, &effects) else { break }
            effects.append(.dispatch(.popupForgotSite(message: edit, at: now)))
        case .popupPaused(let until):
            guard userReachesThePopup(to: "pause", now: now, &effects) else { break }
            effects.append(.dispatch(.popupPaused(until: until)))
        case .popupClosed: closePopup(&effects)
        case .safariCameToForeground: safariCameToForeground(now: now, &effects)
        case .overdueTimersFired: resumeAfterReturn(now: now, &effects)
        case .safariWentToBackground: safariWentToBackground(&effects)
        case .safariQuit: safariQuit(&effects)
        case .safariLaunched: safariLaunched(now: now, &effects)
        case .profileLeftFront: profileLeftFront(&effects)
        case .profileCameToFront(let name, let queued): profileCameToFront(name, queued: queued, now: now, &effects)
        case .appCameToForeground:
            appInForeground = true
            if platform == .iOS && safariInForeground { safariWentToBackground(&effects) }
        case .appWentToBackground: suspendApp(&effects)
        case .appQuit: appInForeground = false
        case .appMessageSent(let message):
            // macOS only ("You can't send messages from a containing iOS app to your web
            // extension's JavaScript"). It arrives on the native port a loaded background opened
            // and holds (`port.onMessage`); an unloaded background, or one without the port,
            // misses it and the app's send fails (`WebExtensionMessagePort::sendMessage` answers
            // `NotConnected`). It wakes nothing and re-arms no unload timer; whether Safari's own
            // layer would wake the background is not known, so the stricter reading is taken.
            guard platform == .macOS else { break }
            if let loaded, loadedBackground?.ports.contains(.native) == true {
                effects.append(.queuePortMessage(incarnation: loaded, message: message))
            } else {
                effects.append(.appMessageNotConnected)
            }
        case .backgroundUnloadRequested:
            // Memory pressure or the scenario: whatever holds it.
            if loaded != nil { effects.append(.killBackground(reason: "unloaded", stop: .unloaded)) }
        case .timeReached(.idleUnload):
            guard loaded != nil else { break }
            // Held: the timer is armed for another 30 s from now; else the page is closed.
            if isHeld(now: now) { woke(now: now) } else { effects.append(.killBackground(reason: "unloaded", stop: .unloaded)) }
        case .backgroundKillRequested:
            if loaded != nil { effects.append(.killBackground(reason: "killed", stop: .killed)) }
        case .inspectorOpened:
            if let loaded {
                loadedBackground?.inspected = true
                effects.append(.note("Web Inspector attached to background#\(loaded): it is not unloaded while it is"))
            } else {
                effects.append(.note("no background is loaded: Web Inspector has nothing to attach to"))
            }
        case .inspectorClosed:
            loadedBackground?.inspected = false
            effects.append(.note("Web Inspector closed"))
        case .extensionInstalled: extensionInstalled(now: now, &effects)
        case .extensionUpdating:
            if loaded != nil { effects.append(.killBackground(reason: "extension updated", stop: .unloaded)) }
        case .extensionUpdated(let version): extensionUpdated(to: version, now: now, &effects)
        case .backgroundFrozenByUser:
            let traced = !isBackgroundFrozen
            frozenByUser = true
            effects.append(.freezeBackground(traced: traced))
        case .backgroundThawedByUser:
            let wasFrozen = isBackgroundFrozen
            frozenByUser = false
            guard !isBackgroundFrozen else { break }
            effects.append(.thawBackground(traced: wasFrozen, held: takeHeld()))
        case .powerLost: powerLost(now: now, &effects)
        case .deviceSlept(let duration): deviceSlept(duration, &effects)
        case .timeReached(.alarm(let name)): alarmFired(name, now: now, &effects)
        case .timeReached(.backgroundLoad): backgroundLoadEnded(&effects)
        case .timeReached(.permissionPrompt): answerPermissionPrompt(granted: false, timedOut: true, &effects)
        case .permissionPromptAnswered(let granted): answerPermissionPrompt(granted: granted, &effects)
        case .permissionsChanged(let added, let permissions, let origins):
            permissionsChanged(added: added, permissions: permissions, origins: origins, &effects)
        case .pageMessagedTab(let id, let tab, let message):
            // WebKit's `tabsSendMessage`: the tab's page hears it; a tab with no page of the
            // extension's there answers nothing.
            guard runsOwnPages, tabs[tab] != nil else {
                effects.append(.note("tab \(tab.rawValue) has no page of the extension here: nothing hears the page's message"))
                effects.append(.answerPage(id: id, answer: nil))
                break
            }
            let number = nextMessageToPage
            nextMessageToPage += 1
            pageMessagesToTabs[number] = (id, .tab(pageKey(tab)))
            effects.append(.messagePage(.tab(pageKey(tab)), id: number, message: message))
        case .pagePermissionsRequested(let id, let page, let permissions, let origins):
            askPermission(.page(page, id: id), permissions: permissions, origins: origins, now: now, &effects)
        case .timeReached(.pageAsksAgain(let id)):
            guard tabs[id]?.asksAgainAt != nil else { break }
            run(.pauseEnded, in: id, now: now, &effects)
        case .eventDue(let event, let incarnation): eventDue(event, for: incarnation, now: now, &effects)
        case .portMessageDue(let incarnation, let message):
            guard loaded == incarnation else {
                effects.append(.note("the app's message dropped: background#\(incarnation)'s port closed"))
                break
            }
            eventDue(.appMessageArrived(message: message), for: incarnation, now: now, &effects)
        case .storageCompleted(let incarnation, let token):
            if loaded == incarnation { eventDue(.storageCompleted(token: token), for: incarnation, now: now, &effects) }
        case .backgroundStarted(let incarnation):
            background = .loaded(LoadedBackground(incarnation: incarnation, now: now))
        case .backgroundFinished(let incarnation, let outputs):
            let raised = counts.alarmsRaisedToTheMinimum
            for output in outputs { carryOut(output, from: incarnation, now: now, &effects) }
            // Its first turn is its load: it ends with that turn.
            if loaded == incarnation { loadEnded() }
            // An alarm it set, raised to Safari's minimum: it hears the list as Safari holds it.
            if counts.alarmsRaisedToTheMinimum > raised { tellAlarmsChanged(&effects) }
        case .backgroundDied(let incarnation, let stop): backgroundDied(incarnation, stop: stop, now: now, &effects)
        case .popupAnnouncementInterrupted:
            loadedBackground?.knowsThePopup = false
            release(.popup)
        case .nativeRequestDue(let id, let message, let profile):
            if mayStartNativeRequest(&effects) {
                activeNativeRequests.insert(id)
                effects.append(.startHandler(id, message, profile: profile))
            } else {
                effects.append(.queueReply(id, .rejected(.tooManyRequests)))
            }
        case .legacyRequestSent(let message):
            if mayStartNativeRequest(&effects) { effects.append(.startLegacyHandler(message)) }
        case .legacyRequestHung: hungLegacyRequests += 1
        case .handlerEndedWithoutAnswer(let id): effects.append(.queueReply(id, .rejected(.handlerEnded)))
        case .pageMessageSent(let id, let from, let message, let userGesture):
            // A popup that closes may still send (its `pagehide`): nothing waits for the answer.
            if from != .popup || popupTab != nil { pageQuestions[id] = PageQuestion(from: from, profile: profile) }
            effects.append(.dispatch(.pageMessage(id: id, from: from, message: message, active: activeTab, userGesture: userGesture)))
        case .pageAnswerSent(let number, let answer, let unreachable): pageAnswered(number, answer: answer, unreachable: unreachable, &effects)
        case .eventDropped(let event):
            // A page's message no background took is answered with nothing; its port is
            // disconnected.
            pageEventLost(event, &effects)
        case .pagePortOpened(let port, let name, let from):
            pagePorts[port] = PagePort(page: from.page(in: profile), takenBy: nil, number: port)
            effects.append(.dispatch(.portOpened(port: port, name: name, from: from)))
        case .pagePortPosted(let port, let message): effects.append(.dispatch(.portMessage(port: port, message: message)))
        case .pagePortClosed(let port, let unheard):
            // A port the background opened to a tab whose page has no `runtime.onConnect`
            // listener never connects (WebKit, `WebExtensionContext::tabsConnect`).
            effects.append(.dispatch(.portClosed(port: port, error: unheard ? Self.noTabConnectListener : nil)))
        case .pageStorageChanged(let area, let changes): effects.append(.dispatch(.storageChanged(area: area, changes: changes)))
        case .pageActionSet(let tab, let property, let value): setAction(property, to: value, tab: tab, by: "a page", &effects)
        case .pageAlarmSet(let at, let name, let period):
            setAlarm(at: at, name: name, period: period, now: now, &effects)
            tellAlarmsChanged(&effects)
        case .pageAlarmCleared(let name):
            alarms[Self.alarmKey(name)] = nil
            tellAlarmsChanged(&effects)
        case .pageMenuChanged(let change):
            switch change.applied(to: menus) {
            case .success(let items):
                menus = items
                // Before what is queued for it: what it does next is over Safari's list.
                if loaded != nil { effects.append(.dispatchFirst([.menusChanged(items: items)])) }
            case .failure(let refusal):
                effects.append(.note("a page's menu change is refused: \(refusal.reason)"))
            }
        case .popupUsed(let gesture):
            guard userReachesThePopup(to: gesture.verb, now: now, &effects) else { break }
            effects.append(.useInPage(.popup, gesture))
        case .tabPageUsed(let id, let gesture):
            guard runsOwnPages, tabs[id] != nil else {
                effects.append(.note("tab \(id.rawValue) is not open: nothing to \(gesture.verb)"))
                break
            }
            bringSafariToTheFront(to: "\(gesture.verb) in tab \(id.rawValue)", now: now, &effects)
            // The page the user reaches is shown before it hears the gesture.
            showPages(&effects)
            effects.append(.useInPage(.tab(pageKey(id)), gesture))
        case .replyArrived(let id, let outcome):
            activeNativeRequests.remove(id)
            // A reply addressed to an earlier incarnation is dropped.
            guard loaded == id.incarnation else {
                effects.append(.note("dropped reply for background#\(id.incarnation)"))
                break
            }
            eventDue(.nativeReplyArrived(request: id.request, outcome), for: id.incarnation, now: now, &effects)
        }
        if runsOwnPages {
            showPages(&effects)
            tellPagesSafarisState(action: actionBefore, alarms: alarmsBefore, menus: menusBefore, profile: profileBefore, &effects)
        }
        return effects
    }
}
