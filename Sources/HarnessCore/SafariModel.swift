import ProcessKit
import SiteSettings

/// What Safari and the operating system show, as a value: the tabs and windows of the profile
/// in front (the others' put away), which app is in front, the system appearance, the open
/// popup, and what the content scripts, the popup and the app last showed. The rules of what
/// is visible and what freezes the background live here; the simulation tells the processes.
public struct SafariModel: Sendable {
    /// A tab and the decision its content script last applied.
    public struct Tab: Sendable {
        /// The window it is in (macOS has several, all visible at once; iOS shows one).
        public var window: Int
        public var url: String
        public var nativeDark: Bool
        public var applied: Decision?
        /// It asked for a decision and has had no answer since.
        public var awaitingAnswer = false
        /// Since when the page has been waiting for an answer it can get (liveness 6: within the
        /// background's native timeout); nil while it waits for nothing or cannot be answered.
        public var waitingSince: EpochMillis?
        /// When it applied its first decision since it (re)loaded.
        public var firstDecisionAt: EpochMillis?
        /// The first decision it applied since it (re)loaded: a flash of the wrong look shows here.
        public var firstDecision: Decision?
        /// How many native replies the background had received by its first decision
        /// (invariant 5: a background with a cache answers before any).
        public var nativeRepliesBeforeFirstDecision: Int?
        /// Native replies delivered when the page (re)loaded, to count those before its first decision.
        var repliesAtLoad = 0
    }

    /// A profile's tabs while another is in front, and its background's alarm.
    struct PutAway: Sendable {
        var tabs: [TabID: Tab]
        var activeTabs: [Int: TabID]
        var frontWindow: Int
        var alarm: EpochMillis?
    }

    public static let defaultProfile = "default"

    public let platform: Simulation.Platform
    public internal(set) var tabs: [TabID: Tab] = [:]
    /// The active tab of each window.
    public internal(set) var activeTabs: [Int: TabID] = [:]
    /// The window in front.
    public internal(set) var frontWindow = 1
    /// The Safari profile in front. Each runs its own instance of the extension with its own
    /// storage, tabs and popup; the app and the App Group container are shared.
    public internal(set) var profile: String
    /// Every profile shown so far, and the tabs of those not in front.
    public internal(set) var profiles: Set<String>
    var putAway: [String: PutAway] = [:]
    public internal(set) var appearance = Appearance.light
    public internal(set) var safariInForeground = true
    public internal(set) var appInForeground = false
    /// The user froze the background (SIGSTOP).
    public internal(set) var backgroundFrozenByUser = false
    /// The tab the open popup belongs to, the scope the user chose in it, and the background
    /// incarnation that was told it is open.
    public internal(set) var popupTab: TabID?
    public internal(set) var popupScope: String?
    var popupKnownTo: Int?
    /// What the popup and the app show now.
    public internal(set) var popup: PopupView?
    public internal(set) var appView: AppView?

    init(platform: Simulation.Platform, profile: String) {
        self.platform = platform
        self.profile = profile
        profiles = [profile]
    }

    /// The active tab of the window in front.
    public var activeTab: TabID? { activeTabs[frontWindow] }

    /// The tabs a user sees: on macOS the active tab of every window, on iOS the one in front.
    public var visibleTabs: [TabID] {
        switch platform {
        case .macOS: activeTabs.keys.sorted().compactMap { activeTabs[$0] }
        case .iOS: activeTab.map { [$0] } ?? []
        }
    }

    /// The background takes nothing and its timers stop: the user froze it, or on iOS Safari is
    /// not in front.
    public var isBackgroundFrozen: Bool { backgroundFrozenByUser || (platform == .iOS && !safariInForeground) }

    // MARK: - Tabs

    /// Opens a tab in a window (the front one by default; iOS has one) and makes it active.
    mutating func open(_ id: TabID, url: String, nativeDark: Bool, window: Int?, repliesDelivered: Int) {
        let window = platform == .iOS ? 1 : (window ?? frontWindow)
        tabs[id] = Tab(window: window, url: url, nativeDark: nativeDark, repliesAtLoad: repliesDelivered)
        activeTabs[window] = id
        frontWindow = window
    }

    /// The page loads again: its content script starts over, with no decision applied.
    mutating func reload(_ id: TabID, repliesDelivered: Int) {
        guard tabs[id] != nil else { return }
        tabs[id]?.applied = nil
        tabs[id]?.firstDecisionAt = nil
        tabs[id]?.firstDecision = nil
        tabs[id]?.nativeRepliesBeforeFirstDecision = nil
        tabs[id]?.repliesAtLoad = repliesDelivered
    }

    /// Makes the tab active in its window and its window the front one.
    mutating func activate(_ id: TabID) {
        guard let tab = tabs[id] else { return }
        activeTabs[tab.window] = id
        frontWindow = tab.window
    }

    /// Closes the tab; its window shows another of its tabs, if it has one.
    mutating func close(_ id: TabID) -> Tab? {
        guard let tab = tabs.removeValue(forKey: id) else { return nil }
        if activeTabs[tab.window] == id {
            activeTabs[tab.window] = tabs.filter { $0.value.window == tab.window }.keys.sorted().first
        }
        return tab
    }

    /// The content script applied a decision the background sent.
    mutating func apply(_ decision: Decision, to id: TabID, now: EpochMillis, repliesDelivered: Int) {
        guard tabs[id] != nil else { return }
        tabs[id]?.applied = decision
        tabs[id]?.awaitingAnswer = false
        tabs[id]?.waitingSince = nil
        if tabs[id]?.firstDecisionAt == nil {
            let atLoad = tabs[id]?.repliesAtLoad ?? 0
            tabs[id]?.firstDecisionAt = now
            tabs[id]?.firstDecision = decision
            tabs[id]?.nativeRepliesBeforeFirstDecision = repliesDelivered - atLoad
        }
    }

    // MARK: - Profiles and the popup

    /// Puts the front profile's tabs away (with its background's alarm) and brings `name`'s
    /// back; returns that profile's alarm. The popup closes.
    mutating func switchProfile(to name: String, alarm: EpochMillis?) -> EpochMillis? {
        forgetPopup()
        putAway[profile] = PutAway(tabs: tabs, activeTabs: activeTabs, frontWindow: frontWindow, alarm: alarm)
        let restored = putAway.removeValue(forKey: name) ?? PutAway(tabs: [:], activeTabs: [:], frontWindow: 1, alarm: nil)
        (tabs, activeTabs, frontWindow) = (restored.tabs, restored.activeTabs, restored.frontWindow)
        profile = name
        profiles.insert(name)
        return restored.alarm
    }

    /// The profiles out of sight lose their alarms (Safari quit).
    mutating func forgetAlarms() {
        for name in putAway.keys { putAway[name]?.alarm = nil }
    }

    mutating func openPopup(on id: TabID) {
        popupTab = id
        popupScope = nil
    }

    /// The user closes the popup (what it showed last stays on record).
    mutating func closePopup() {
        popupTab = nil
        popupScope = nil
    }

    /// The popup is gone with what it showed (its profile left the front, the power failed).
    mutating func forgetPopup() {
        closePopup()
        popup = nil
    }
}
