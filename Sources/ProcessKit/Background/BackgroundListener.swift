import SiteSettings

/// The events a background can listen for, as Safari dispatches them: a message from a content
/// script or the popup (`runtime.onMessage`), a tab made active (`tabs.onActivated`) or closed
/// (`tabs.onRemoved`), Safari's window coming to the front (`windows.onFocusChanged`), an alarm
/// (`alarms.onAlarm`), a port one of the extension's own pages opened (`runtime.onConnect`), and
/// the rest as `PROTOCOL.md` section 14 ("Listeners") maps them, `permissions.onAdded` and
/// `onRemoved` (`permissionsAdded`, `permissionsRemoved`) among them.
public enum BackgroundListener: String, CaseIterable, Hashable, Sendable {
    case message, tabActivated, tabRemoved, windowFocus, alarm, connect, storageChanged, tabCreated, tabUpdated, menuClicked, command, actionClicked
    case navigationBefore, navigationCommitted, navigationDOMContentLoaded, navigationCompleted
    case permissionsAdded, permissionsRemoved

    /// What the built-in background listens for: every event but a page's port, since it has
    /// no pages of its own.
    public static let builtIn: [BackgroundListener] = [.message, .tabActivated, .tabRemoved, .windowFocus, .alarm]
}
