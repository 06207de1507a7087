import SiteSettings

/// What the popup shows for the active tab (DESIGN §7.8): the URL's scope keys, the selected
/// scope, each field as value and source ("Default (Gray)"), when a pause ends, and whether the
/// URL is unsupported. The background keeps it up to date while it is open.
///
/// Wire form: `{"tab": "t1", "url": …, "unsupported": false, "scopes": ["docs.example.com/guide",
/// "docs.example.com", ".example.com"], "selectedScope": "docs.example.com" or null, "pausedUntil":
/// N or null}`, and for a supported URL also `"fields": {"mode": {"value": "on", "source":
/// "site"}, "theme": {…}, "nativeDarkPolicy": {…}}`, `"recordScope"` (the key of the record the
/// values come from, or null) and `"schedule": "20:00-06:00"`.
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

    public init(tab: TabID, url: String, unsupported: Bool, scopes: [ScopeKey], selectedScope: ScopeKey?,
                settings: EffectiveSettings?, pausedUntil: EpochMillis?) {
        self.tab = tab
        self.url = url
        self.unsupported = unsupported
        self.scopes = scopes
        self.selectedScope = selectedScope
        self.settings = settings
        self.pausedUntil = pausedUntil
    }

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
            object["recordScope"] = settings.scope.map { .string($0.text) } ?? .null
            object["schedule"] = .string(settings.schedule.text)
        }
        return .object(object)
    }

    /// Reads a view back from its JSON form (`json`); anything else is an error naming the
    /// member at fault.
    public static func decode(_ json: JSONValue, at path: JSONPath = .root) throws(NativeMessageError) -> PopupView {
        let object = try WireObject(json, at: path)
        var view = PopupView(tab: TabID(try object.string("tab")), url: try object.string("url"), unsupported: try object.bool("unsupported"),
                             scopes: try object.scopeKeys("scopes"), selectedScope: nil, settings: nil, pausedUntil: nil)
        if try object.nullable("selectedScope") != nil { view.selectedScope = try object.scopeKey("selectedScope") }
        if try object.nullable("pausedUntil") != nil { view.pausedUntil = try object.integer("pausedUntil") }
        guard object["fields"] != nil else {
            try object.allow(["tab", "url", "unsupported", "scopes", "selectedScope", "pausedUntil"])
            return view
        }
        try object.allow(["tab", "url", "unsupported", "scopes", "selectedScope", "pausedUntil", "fields", "recordScope", "schedule"])
        let fields = try object.object("fields")
        try fields.allow(["mode", "theme", "nativeDarkPolicy"])
        let mode = try fields.object("mode"), theme = try fields.object("theme"), policy = try fields.object("nativeDarkPolicy")
        for field in [mode, theme, policy] { try field.allow(["value", "source"]) }
        var settings = Decision.template.settings
        settings.mode = try mode.choice("value")
        settings.modeSource = try mode.choice("source")
        settings.theme = try theme.theme("value")
        settings.themeSource = try theme.choice("source")
        settings.nativeDarkPolicy = try policy.choice("value")
        settings.nativeDarkPolicySource = try policy.choice("source")
        settings.scope = try object.nullable("recordScope") == nil ? nil : try object.scopeKey("recordScope")
        settings.schedule = try object.schedule("schedule")
        view.settings = settings
        return view
    }
}
