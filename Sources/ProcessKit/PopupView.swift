import SiteSettings

/// What the popup shows for the active tab (DESIGN §7.8): the URL's scope keys, the selected
/// scope, each field as value and source ("Default (Gray)"), when a pause ends, and whether the
/// URL is unsupported. The background keeps it up to date while it is open.
public struct PopupView: Equatable, Sendable {
    public var tab: TabID
    public var url: String
    public var unsupported: Bool
    /// The keys this URL's records could have, most specific first (page, host, domain).
    public var scopes: [ScopeKey]
    /// Where an edit made now goes: the chosen scope, else the most specific existing record,
    /// else the host.
    public var selectedScope: ScopeKey?
    public var settings: EffectiveSettings?
    public var pausedUntil: EpochMillis?

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "tab": .string(tab.rawValue),
            "url": .string(url),
            "unsupported": .bool(unsupported),
            "scopes": .array(scopes.map { .string($0.text) }),
            "selectedScope": selectedScope.map { .string($0.text) } ?? .null,
            "pausedUntil": pausedUntil.map(JSONValue.integer) ?? .null,
        ]
        if let settings {
            func field(_ value: String, _ source: ValueSource) -> JSONValue {
                .object(["value": .string(value), "source": .string(source.rawValue)])
            }
            object["fields"] = .object([
                "mode": field(settings.mode.rawValue, settings.modeSource),
                "theme": field(settings.theme.rawValue, settings.themeSource),
                "nativeDarkPolicy": field(settings.nativeDarkPolicy.rawValue, settings.nativeDarkPolicySource),
            ])
        }
        return .object(object)
    }
}

/// A tab's identity as the harness names it (`t1`).
public struct TabID: RawRepresentable, Hashable, Comparable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { rawValue = name }
    public static func < (a: TabID, b: TabID) -> Bool { a.rawValue < b.rawValue }
}
