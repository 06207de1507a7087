/// Answers "what applies to this URL" for one document: the most specific record that exists
/// (page, then host, then domain), each missing field filled from the defaults, never fields
/// merged across scopes. Build one per document and reuse it: it indexes the records once.
public struct Resolver: Sendable {
    public let document: SettingsDocument
    private let suffixes: PublicSuffixList
    private let pages: [String: SiteValues]
    private let hosts: [String: SiteValues]
    /// Domain records keyed by the registrable domain, without the leading dot.
    private let domains: [String: SiteValues]

    public init(document: SettingsDocument, suffixes: PublicSuffixList = .embedded) {
        self.document = document
        self.suffixes = suffixes
        var pages: [String: SiteValues] = [:], hosts: [String: SiteValues] = [:], domains: [String: SiteValues] = [:]
        for (key, record) in document.sites {
            switch key.kind {
            case .page: pages[key.text] = record.values
            case .host: hosts[key.text] = record.values
            case .domain: domains[key.host] = record.values
            }
        }
        self.pages = pages
        self.hosts = hosts
        self.domains = domains
    }

    /// The record that applies to an address, and its key.
    public func record(for address: PageAddress) -> (key: ScopeKey, values: SiteValues)? {
        if !pages.isEmpty {
            let key = address.pageKey
            if let values = pages[key.text] { return (key, values) }
        }
        if let values = hosts[address.host.text] { return (.host(address.host), values) }
        if !domains.isEmpty, let key = address.domainKey(suffixes: suffixes), let values = domains[key.host] {
            return (key, values)
        }
        return nil
    }

    /// The effective settings for an address, with provenance.
    public func settings(for address: PageAddress) -> EffectiveSettings {
        settings(record(for: address))
    }

    private func settings(_ match: (key: ScopeKey, values: SiteValues)?) -> EffectiveSettings {
        let defaults = document.defaults
        let values = match?.values ?? SiteValues()
        let siteTheme = values.theme.flatMap { $0.isKnown ? $0 : nil }
        return EffectiveSettings(
            mode: values.mode ?? defaults.mode,
            theme: siteTheme ?? defaults.renderedTheme,
            nativeDarkPolicy: values.nativeDarkPolicy ?? defaults.nativeDarkPolicy,
            schedule: defaults.schedule,
            scope: match?.key,
            modeSource: values.mode == nil ? .default : .site,
            themeSource: siteTheme == nil ? .default : .site,
            nativeDarkPolicySource: values.nativeDarkPolicy == nil ? .default : .site)
    }

    /// The rendering decision for a URL string, in this order: an unsupported URL is off; an
    /// active pause is off; then the effective mode decides (auto reads the appearance, scheduled
    /// the local time); an "on" answer under the `respect` policy on a natively dark page is off.
    public func decide(url: String, context: DecisionContext) -> Decision {
        switch PageAddress.parse(url) {
        case .success(let address): decide(address: address, context: context)
        case .failure: Decision(enabled: false, reason: .unsupportedURL, settings: settings(nil))
        }
    }

    public func decide(address: PageAddress, context: DecisionContext) -> Decision {
        let settings = settings(for: address)
        if let until = context.pausedUntil, context.now < until {
            return Decision(enabled: false, reason: .paused, settings: settings)
        }
        let (on, reason): (Bool, DecisionReason) = switch settings.mode {
        case .on: (true, .modeOn)
        case .off: (false, .modeOff)
        case .auto: context.appearance == .dark ? (true, .autoDark) : (false, .autoLight)
        case .scheduled: settings.schedule.contains(context.localTime) ? (true, .scheduleActive) : (false, .scheduleInactive)
        }
        if on && settings.nativeDarkPolicy == .respect && context.pageIsNativelyDark {
            return Decision(enabled: false, reason: .nativeDark, settings: settings)
        }
        return Decision(enabled: on, reason: reason, settings: settings)
    }
}
