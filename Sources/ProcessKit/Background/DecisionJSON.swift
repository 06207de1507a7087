import SiteSettings

extension Decision {
    /// The decision as content scripts, traces and `harness resolve` show it: `enabled`, `theme`,
    /// `reason`, `scope` (or null), the effective `mode`, `nativeDarkPolicy` and `schedule`
    /// (`20:00-06:00`), and `source` (each of `mode`, `theme`, `nativeDarkPolicy`: `site` or
    /// `default`).
    public var json: JSONValue {
        .object([
            "enabled": .bool(enabled),
            "theme": .string(settings.theme.rawValue),
            "reason": .string(reason.rawValue),
            "scope": settings.scope.map { .string($0.text) } ?? .null,
            "mode": .string(settings.mode.rawValue),
            "nativeDarkPolicy": .string(settings.nativeDarkPolicy.rawValue),
            "schedule": .string(settings.schedule.text),
            "source": .object([
                "mode": .string(settings.modeSource.rawValue),
                "theme": .string(settings.themeSource.rawValue),
                "nativeDarkPolicy": .string(settings.nativeDarkPolicySource.rawValue),
            ]),
        ])
    }

    /// Reads a decision back from its JSON form (`json`); anything else is an error naming the
    /// member at fault.
    public static func decode(_ json: JSONValue, at path: JSONPath = .root) throws(NativeMessageError) -> Decision {
        let object = try WireObject(json, at: path)
        try object.allow(["enabled", "theme", "reason", "scope", "mode", "nativeDarkPolicy", "schedule", "source"])
        let source = try object.object("source")
        try source.allow(["mode", "theme", "nativeDarkPolicy"])
        var decision = Decision.template
        decision.enabled = try object.bool("enabled")
        decision.reason = try object.choice("reason")
        decision.settings.mode = try object.choice("mode")
        decision.settings.theme = try object.theme("theme")
        decision.settings.nativeDarkPolicy = try object.choice("nativeDarkPolicy")
        decision.settings.schedule = try object.schedule("schedule")
        decision.settings.scope = try object.nullable("scope") == nil ? nil : try object.scopeKey("scope")
        decision.settings.modeSource = try source.choice("mode")
        decision.settings.themeSource = try source.choice("theme")
        decision.settings.nativeDarkPolicySource = try source.choice("nativeDarkPolicy")
        return decision
    }

    /// A decision to overwrite member by member: `SiteSettings` builds decisions only by
    /// resolving, and every member of this one is replaced before it is used.
    static let template = Resolver(document: SettingsDocument()).decide(url: "", context: DecisionContext(now: 0))
}
