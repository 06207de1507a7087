import SiteSettings

/// The events a background can listen for, as Safari dispatches them: a message from a content
/// script or the popup (`runtime.onMessage`), a tab made active (`tabs.onActivated`) or closed
/// (`tabs.onRemoved`), Safari's window coming to the front (`windows.onFocusChanged`), an alarm
/// (`alarms.onAlarm`).
public enum BackgroundListener: String, CaseIterable, Hashable, Sendable {
    case message, tabActivated, tabRemoved, windowFocus, alarm
}
