import SiteSettings

extension Decision {
    /// The decision as content scripts, traces and `harness resolve` show it: `enabled`, `theme`,
    /// `reason`, `scope` (or null), the effective `mode` and `nativeDarkPolicy`, and `source`
    /// (each of `mode`, `theme`, `nativeDarkPolicy`: `site` or `default`).
    public var json: JSONValue {
        .object([
            "enabled": .bool(enabled),
            "theme": .string(settings.theme.rawValue),
            "reason": .string(reason.rawValue),
            "scope": settings.scope.map { .string($0.text) } ?? .null,
            "mode": .string(settings.mode.rawValue),
            "nativeDarkPolicy": .string(settings.nativeDarkPolicy.rawValue),
            "source": .object([
                "mode": .string(settings.modeSource.rawValue),
                "theme": .string(settings.themeSource.rawValue),
                "nativeDarkPolicy": .string(settings.nativeDarkPolicySource.rawValue),
            ]),
        ])
    }
}
