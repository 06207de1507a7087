import SiteSettings

/// One row of the app's site list.
public struct SiteSummary: Equatable, Sendable {
    public var key: ScopeKey
    public var overrides: SiteValues
    public var inherited: [SiteField]
    public var redundant: [SiteField]

    public init(key: ScopeKey, overrides: SiteValues, inherited: [SiteField], redundant: [SiteField]) {
        self.key = key
        self.overrides = overrides
        self.inherited = inherited
        self.redundant = redundant
    }

    public var json: JSONValue {
        .object([
            "key": .string(key.text),
            "overrides": overrides.json,
            "inherited": .fields(inherited),
            "redundant": .fields(redundant),
        ])
    }
}
