import SiteSettings

/// The rendering decision worked out a second time, from the README's and the design's rules
/// alone and as plainly as they read, so that a bug in the product's `Resolver` cannot agree
/// with itself (invariant 12). It shares only the document's types with the product, the list
/// of Public Suffix rules (not its lookup), and nothing of its URL, host, path or time code.
struct ReferenceDecision: Equatable, Sendable {
    /// What a URL and a document give before time, pause, appearance and the page's own dark
    /// theme come in: the record used and each effective field with its source. Nil settings
    /// mean an unsupported URL.
    struct Settings: Equatable, Sendable {
        /// The key of the record used, or nil when the URL has none.
        var scope: String?
        var mode: Mode
        /// The theme as rendered.
        var theme: String
        var nativeDarkPolicy: NativeDarkPolicy
        /// Minutes since local midnight, [start, end).
        var scheduleStart: Int
        var scheduleEnd: Int
        /// `site` or `default`, by field name.
        var modeSource: String
        var themeSource: String
        var nativeDarkPolicySource: String

        init(scope: String?, mode: Mode, theme: String, nativeDarkPolicy: NativeDarkPolicy, scheduleStart: Int, scheduleEnd: Int,
                     modeSource: String, themeSource: String, nativeDarkPolicySource: String) {
            self.scope = scope
            self.mode = mode
            self.theme = theme
            self.nativeDarkPolicy = nativeDarkPolicy
            self.scheduleStart = scheduleStart
            self.scheduleEnd = scheduleEnd
            self.modeSource = modeSource
            self.themeSource = themeSource
            self.nativeDarkPolicySource = nativeDarkPolicySource
        }
    }

    var enabled: Bool
    /// One of the README's reason words.
    var reason: String
    /// Nil for an unsupported URL, whose settings the rules leave open.
    var settings: Settings?

    /// The themes this version renders (README: the fixed catalogue).
    static let catalogue: Set<String> = ["dark", "gray", "sepia", "invert"]
    /// The built-in default theme, which an unknown default theme renders as.
    static let builtInTheme = "dark"

    /// The candidate keys of an address, most specific first: page, host, and for a host name
    /// with a registrable domain, the domain.
    static func keys(of address: ReferenceAddress, suffixes: ReferenceSuffixList) -> [String] {
        var keys = [address.pageKey, address.host]
        if address.kind == .name, let domain = suffixes.registrableDomain(of: address.host) { keys.append("." + domain) }
        return keys
    }

    /// Resolution: the most specific record that exists, each missing field from the
    /// defaults, never a field from another record. Nil for an unsupported URL.
    static func settings(url: String, document: SettingsDocument, suffixes: ReferenceSuffixList = .embedded) -> Settings? {
        settings(keys: ReferenceAddress.read(url).map { keys(of: $0, suffixes: suffixes) }, records: records(of: document),
                 defaults: document.defaults)
    }

    /// The document's records by the text of their keys.
    static func records(of document: SettingsDocument) -> [String: SiteValues] {
        var records: [String: SiteValues] = [:]
        for (key, record) in document.sites { records[key.text] = record.values }
        return records
    }

    /// Resolution over a URL's candidate keys (nil: unsupported).
    static func settings(keys: [String]?, records: [String: SiteValues], defaults: Defaults) -> Settings? {
        guard let keys else { return nil }
        let found = keys.lazy.compactMap { key in records[key].map { (key, $0) } }.first
        let values = found?.1 ?? SiteValues()
        // A theme this version does not know "resolves as the default theme" (the design): the
        // record's unknown name counts as no theme, so the popup shows "Default (Gray)".
        let siteTheme = values.theme.map(\.rawValue).flatMap { catalogue.contains($0) ? $0 : nil }
        let defaultTheme = catalogue.contains(defaults.theme.rawValue) ? defaults.theme.rawValue : builtInTheme
        return Settings(scope: found?.0, mode: values.mode ?? defaults.mode, theme: siteTheme ?? defaultTheme,
                        nativeDarkPolicy: values.nativeDarkPolicy ?? defaults.nativeDarkPolicy,
                        scheduleStart: defaults.schedule.start.minutes, scheduleEnd: defaults.schedule.end.minutes,
                        modeSource: values.mode == nil ? "default" : "site", themeSource: siteTheme == nil ? "default" : "site",
                        nativeDarkPolicySource: values.nativeDarkPolicy == nil ? "default" : "site")
    }

    /// The decision for a URL's settings: unsupported, then an active pause, then the mode,
    /// then a natively dark page under `respect`.
    static func decide(_ settings: Settings?, appearance: Appearance, now: EpochMillis, utcOffsetMinutes: Int,
                               pausedUntil: EpochMillis?, pageIsNativelyDark: Bool) -> ReferenceDecision {
        guard let settings else { return ReferenceDecision(enabled: false, reason: "unsupportedUrl", settings: nil) }
        if let pausedUntil, now < pausedUntil { return ReferenceDecision(enabled: false, reason: "paused", settings: settings) }
        let (on, reason): (Bool, String) = switch settings.mode {
        case .on: (true, "modeOn")
        case .off: (false, "modeOff")
        case .auto: appearance == .dark ? (true, "autoDark") : (false, "autoLight")
        case .scheduled:
            inWindow(minuteOfDay(now: now, utcOffsetMinutes: utcOffsetMinutes), start: settings.scheduleStart, end: settings.scheduleEnd)
                ? (true, "scheduleActive") : (false, "scheduleInactive")
        }
        if on, settings.nativeDarkPolicy == .respect, pageIsNativelyDark {
            return ReferenceDecision(enabled: false, reason: "nativeDark", settings: settings)
        }
        return ReferenceDecision(enabled: on, reason: reason, settings: settings)
    }

    /// The whole decision at once (tests, `harness resolve`'s checks).
    static func decide(url: String, document: SettingsDocument, context: DecisionContext,
                               suffixes: ReferenceSuffixList = .embedded) -> ReferenceDecision {
        decide(settings(url: url, document: document, suffixes: suffixes), appearance: context.appearance, now: context.now,
               utcOffsetMinutes: context.utcOffsetMinutes, pausedUntil: context.pausedUntil, pageIsNativelyDark: context.pageIsNativelyDark)
    }

    /// The local minute of the day at `now` (milliseconds since the epoch, UTC) at an offset.
    static func minuteOfDay(now: EpochMillis, utcOffsetMinutes: Int) -> Int {
        var minutes = (now + EpochMillis(utcOffsetMinutes) * 60_000) / 60_000
        // Before the epoch, division rounds toward zero: step back into the minute that holds it.
        if (now + EpochMillis(utcOffsetMinutes) * 60_000) % 60_000 < 0 { minutes -= 1 }
        let day = minutes % 1440
        return Int(day < 0 ? day + 1440 : day)
    }

    /// The half-open window [start, end), over midnight when end is before start; empty when equal.
    static func inWindow(_ minute: Int, start: Int, end: Int) -> Bool {
        if start < end { return start <= minute && minute < end }
        if start > end { return minute >= start || minute < end }
        return false
    }

    // MARK: - Against the product's decision

    /// The product's decision in the reference's terms.
    init(_ decision: Decision) {
        let settings = decision.settings
        enabled = decision.enabled
        reason = decision.reason.rawValue
        self.settings = Settings(scope: settings.scope?.text, mode: settings.mode, theme: settings.theme.rawValue,
                                 nativeDarkPolicy: settings.nativeDarkPolicy, scheduleStart: settings.schedule.start.minutes,
                                 scheduleEnd: settings.schedule.end.minutes, modeSource: settings.modeSource.rawValue,
                                 themeSource: settings.themeSource.rawValue, nativeDarkPolicySource: settings.nativeDarkPolicySource.rawValue)
    }

    init(enabled: Bool, reason: String, settings: Settings?) {
        self.enabled = enabled
        self.reason = reason
        self.settings = settings
    }

    /// The members a decision has, as `name=value`; with no settings (unsupported) only
    /// `enabled` and `reason`.
    var members: [(name: String, value: String)] {
        var members = [("enabled", "\(enabled)"), ("reason", reason)]
        if let settings {
            members += [("theme", settings.theme), ("mode", settings.mode.rawValue), ("nativeDarkPolicy", settings.nativeDarkPolicy.rawValue),
                        ("schedule", Self.time(settings.scheduleStart) + "-" + Self.time(settings.scheduleEnd)),
                        ("scope", settings.scope ?? "none"), ("source.mode", settings.modeSource), ("source.theme", settings.themeSource),
                        ("source.nativeDarkPolicy", settings.nativeDarkPolicySource)]
        }
        return members
    }

    /// Whether the product's decision agrees: every member the reference states (all of them,
    /// or for an unsupported URL, where the rules say nothing of settings, `enabled` and `reason`).
    func agrees(with product: ReferenceDecision) -> Bool {
        guard settings != nil else { return enabled == product.enabled && reason == product.reason }
        return self == product
    }

    /// The members that differ, each as `name=product (reference value)`.
    func differences(from product: ReferenceDecision) -> String {
        let mine = Dictionary(uniqueKeysWithValues: members)
        return product.members.compactMap { name, value in
            guard let wanted = mine[name], wanted != value else { return nil }
            return "\(name)=\(value) (reference \(wanted))"
        }.joined(separator: ", ")
    }

    /// `HH:MM`.
    static func time(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    var text: String { members.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }
}
