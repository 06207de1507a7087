import SiteSettings

/// The background's timers. They die with it, as JavaScript timers do when Safari unloads it.
public enum BackgroundTimer: Hashable, Sendable {
    /// The timeout of native request N (the Swift background's only timer).
    case nativeTimeout(Int)
    /// A script's `setTimeout` or `setInterval`, by the number the JavaScript runtime gave it
    /// (`PROTOCOL.md`, section 14).
    case script(Int)
}
