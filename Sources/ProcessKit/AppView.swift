import SiteSettings

/// What the containing app shows: the defaults, and every customized site with the fields it
/// overrides, the fields it inherits, and which overrides are redundant (equal to the default).
public struct AppView: Equatable, Sendable {
    public var documentId: String?
    public var revision: Int64
    /// The document was written by a newer version: shown, not editable.
    public var readOnly: Bool
    public var defaults: Defaults
    /// Sorted by key.
    public var sites: [SiteSummary]

    public init(_ document: SettingsDocument) {
        documentId = document.documentId
        revision = document.revision
        readOnly = document.isReadOnly
        defaults = document.defaults
        let redundant = Dictionary(uniqueKeysWithValues: document.redundantOverrides().map { ($0.key, $0.fields) })
        sites = document.sites.keys.sorted().map { key in
            let values = document.sites[key]!.values
            return SiteSummary(key: key, overrides: values,
                               inherited: SiteField.allCases.filter { !values.has($0) },
                               redundant: redundant[key] ?? [])
        }
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "revision": .integer(revision),
            "readOnly": .bool(readOnly),
            "defaults": .object([
                "mode": .string(defaults.mode.rawValue),
                "theme": .string(defaults.theme.rawValue),
                "nativeDarkPolicy": .string(defaults.nativeDarkPolicy.rawValue),
                "schedule": .string("\(defaults.schedule.start)-\(defaults.schedule.end)"),
            ]),
            "sites": .array(sites.map(\.json)),
        ]
        if let documentId { object["documentId"] = .string(documentId) }
        return .object(object)
    }
}

/// One row of the app's site list.
public struct SiteSummary: Equatable, Sendable {
    public var key: ScopeKey
    public var overrides: SiteValues
    public var inherited: [SiteField]
    public var redundant: [SiteField]

    public var json: JSONValue {
        var overrides: [String: JSONValue] = [:]
        if let mode = self.overrides.mode { overrides["mode"] = .string(mode.rawValue) }
        if let theme = self.overrides.theme { overrides["theme"] = .string(theme.rawValue) }
        if let policy = self.overrides.nativeDarkPolicy { overrides["nativeDarkPolicy"] = .string(policy.rawValue) }
        return .object([
            "key": .string(key.text),
            "overrides": .object(overrides),
            "inherited": .array(inherited.map { .string($0.rawValue) }),
            "redundant": .array(redundant.map { .string($0.rawValue) }),
        ])
    }
}
