import SiteSettings

/// The background's timers. They die with it, as JavaScript timers do when Safari unloads it.
public enum BackgroundTimer: Hashable, Sendable {
    case nativeTimeout(Int)
}
