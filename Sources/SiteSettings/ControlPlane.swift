/// Questions the app's full settings screen asks of the model.
extension SettingsDocument {
    /// Site overrides equal to the current default: a site that overrides a field with the value
    /// it would inherit anyway. Sorted by key; fields in a fixed order.
    public func redundantOverrides() -> [(key: ScopeKey, fields: [SiteField])] {
        var result: [(key: ScopeKey, fields: [SiteField])] = []
        for key in sites.keys.sorted() {
            let values = sites[key]!.values
            var fields: [SiteField] = []
            if let mode = values.mode, mode == defaults.mode { fields.append(.mode) }
            if let theme = values.theme, theme == defaults.theme { fields.append(.theme) }
            if let policy = values.nativeDarkPolicy, policy == defaults.nativeDarkPolicy { fields.append(.nativeDarkPolicy) }
            if !fields.isEmpty { result.append((key, fields)) }
        }
        return result
    }

    /// The customized sites whose effective settings a proposed default change would change,
    /// with the fields that would change for each. Sites without a record all follow the
    /// defaults and are not listed. A schedule change affects the sites whose effective mode is
    /// `scheduled`.
    public func sitesAffected(by change: DefaultsValues) -> [(key: ScopeKey, fields: [DefaultsField])] {
        var proposed = defaults
        if let mode = change.mode { proposed.mode = mode }
        if let theme = change.theme { proposed.theme = theme }
        if let policy = change.nativeDarkPolicy { proposed.nativeDarkPolicy = policy }
        if let schedule = change.schedule { proposed.schedule = schedule }

        var result: [(key: ScopeKey, fields: [DefaultsField])] = []
        for key in sites.keys.sorted() {
            let values = sites[key]!.values
            let ownTheme = values.theme.flatMap { $0.isKnown ? $0 : nil }
            var fields: [DefaultsField] = []
            if values.mode == nil && proposed.mode != defaults.mode { fields.append(.mode) }
            if ownTheme == nil && proposed.renderedTheme != defaults.renderedTheme { fields.append(.theme) }
            if values.nativeDarkPolicy == nil && proposed.nativeDarkPolicy != defaults.nativeDarkPolicy {
                fields.append(.nativeDarkPolicy)
            }
            let modeAfter = values.mode ?? proposed.mode
            if modeAfter == .scheduled && proposed.schedule != defaults.schedule { fields.append(.schedule) }
            if !fields.isEmpty { result.append((key, fields)) }
        }
        return result
    }
}
