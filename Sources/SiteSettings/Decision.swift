/// Why a page is or is not darkened. A fixed set; the raw values are what JSON output shows.
public enum DecisionReason: String, CaseIterable, Sendable, Hashable {
    /// Off: the URL is not an http or https page (or has no valid host).
    case unsupportedURL = "unsupportedUrl"
    /// Off: the user paused the extension and the pause has not ended.
    case paused
    /// Off: the effective mode is `off`.
    case modeOff
    /// On: the effective mode is `on`.
    case modeOn
    /// On: mode `auto` and the system appearance is dark.
    case autoDark
    /// Off: mode `auto` and the system appearance is light.
    case autoLight
    /// On: mode `scheduled` and the local time is inside [start, end).
    case scheduleActive
    /// Off: mode `scheduled` and the local time is outside the window.
    case scheduleInactive
    /// Off: the mode would turn it on, but the policy is `respect` and the page is natively dark.
    case nativeDark
}

/// What a decision depends on besides the URL and the document. Nothing here is read from a
/// clock: time arrives as a value.
public struct DecisionContext: Hashable, Sendable {
    public var appearance: Appearance
    public var now: EpochMillis
    /// The local time's offset from UTC in minutes, used to read the schedule window.
    public var utcOffsetMinutes: Int
    /// The end of the extension-wide pause, if one was set; a pause is active while `now` is before it.
    public var pausedUntil: EpochMillis?
    /// Whether the page reports a native dark theme of its own.
    public var pageIsNativelyDark: Bool

    public init(appearance: Appearance = .light, now: EpochMillis, utcOffsetMinutes: Int = 0,
                pausedUntil: EpochMillis? = nil, pageIsNativelyDark: Bool = false) {
        self.appearance = appearance
        self.now = now
        self.utcOffsetMinutes = utcOffsetMinutes
        self.pausedUntil = pausedUntil
        self.pageIsNativelyDark = pageIsNativelyDark
    }

    /// The local time of day at `now`.
    public var localTime: TimeOfDay {
        let minute = (now + Int64(utcOffsetMinutes) * 60_000).floorDivided(by: 60_000)
        return TimeOfDay(minutes: Int(minute.floorModulo(1440)))!
    }
}

/// The effective settings for a URL and where each field came from.
public struct EffectiveSettings: Hashable, Sendable {
    public var mode: Mode
    /// The theme as rendered: an unknown stored name is replaced by the default theme.
    public var theme: Theme
    public var nativeDarkPolicy: NativeDarkPolicy
    public var schedule: Schedule
    /// The key of the record used, or nil when the URL has none.
    public var scope: ScopeKey?
    public var modeSource: ValueSource
    public var themeSource: ValueSource
    public var nativeDarkPolicySource: ValueSource

    public func source(of field: SiteField) -> ValueSource {
        switch field {
        case .mode: modeSource
        case .theme: themeSource
        case .nativeDarkPolicy: nativeDarkPolicySource
        }
    }
}

/// The answer a content script applies: whether to darken, with which theme, and why.
public struct Decision: Hashable, Sendable {
    public var enabled: Bool
    public var reason: DecisionReason
    public var settings: EffectiveSettings

    public var theme: Theme { settings.theme }
}

extension Int64 {
    func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }

    func floorModulo(_ m: Int64) -> Int64 {
        let r = self % m
        return r < 0 ? r + m : r
    }
}
