import ProcessKit
import SiteSettings

/// The front profile's background as Safari holds it: loaded, with everything that lives only
/// as long as that load, or stopped, with how it last stopped. What a load keeps (its
/// listeners, ports, unload timer, inspector) starts afresh with each load and goes with it, so
/// no field of a dead background can outlive it.
enum BackgroundLife: Equatable, Sendable {
    /// None is loaded; the last one stopped this way (`unloaded` before the first load).
    case stopped(BackgroundState)
    /// Safari is loading it (`background-load-time`): its scripts run when the load ends.
    case loading(LoadingBackground)
    case loaded(LoadedBackground)
}

/// A background Safari is loading: its page is fetched and parsed, and its scripts have not run
/// yet, so it has no listener of its own.
struct LoadingBackground: Equatable, Sendable {
    /// When its scripts run and the load ends.
    var until: EpochMillis
    /// Events of a type Safari holds it listens for, fired once the load ends
    /// (`m_actionsToPerformAfterBackgroundContentLoads`).
    var queued: [ExtensionWire.Event] = []
}

/// A loaded background, as Safari keeps it while the load lasts.
struct LoadedBackground: Equatable, Sendable {
    let incarnation: Int
    /// The events it has listeners for now, as it last reported them.
    var listeners: Set<BackgroundListener> = []
    /// Its load ended: its first turn (`started`) is done.
    var loadEnded = false
    /// When Safari's unload timer fires next: 30 s after it was last woken (loaded, or handed
    /// an event it listens for), and again 30 s after each check that found something holding
    /// it. Besides those checks, only a wake arms it again (WebKit,
    /// `WebExtensionContext::wakeUpBackgroundContentIfNecessary` and
    /// `performTasksAfterBackgroundContentLoads`), never native replies, storage, its own
    /// timers or messages arriving on a port.
    var unloadCheck: EpochMillis
    /// The ports it holds, and when it last opened or posted on one (WebKit keeps one such time
    /// for the whole background page, `m_lastBackgroundPortActivityTime`).
    var ports: Set<SafariMachine.Port> = []
    var lastPortActivity: EpochMillis = 0
    /// Web Inspector is attached to it.
    var inspected = false
    /// It took the open popup's port: it knows the popup is open (a popup closed and opened
    /// again over it is not announced again).
    var knowsThePopup = false

    /// Loading arms the unload timer (`performTasksAfterBackgroundContentLoads`).
    init(incarnation: Int, now: EpochMillis) {
        self.incarnation = incarnation
        unloadCheck = now + SafariMachine.idleUnload
    }
}
