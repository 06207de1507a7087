import SiteSettings

/// What the containing app shows: the defaults, and every customized site with the fields it
/// overrides, the fields it inherits, and which overrides are redundant (equal to the default).
///
/// Wire form: `{"documentId": … (absent for a document never written), "revision": 42,
/// "readOnly": false, "defaults": {"mode": "auto", "theme": "dark", "nativeDarkPolicy":
/// "respect", "schedule": "20:00-06:00"}, "sites": [{"key": "docs.example.com", "overrides":
/// {"theme": "sepia"}, "inherited": ["mode", "nativeDarkPolicy"], "redundant": []}]}`.
public struct AppView: Equatable, Sendable {
    public var documentId: String?
    public var revision: Int64
    /// The document was written by a newer version: shown, not editable.
    public var readOnly: Bool
    /// The default values. The view shows values, not when they changed: `changedAt` is empty.
    public var defaults: Defaults
    /// Sorted by key.
    public var sites: [SiteSummary]

    public init(documentId: String?, revision: Int64, readOnly: Bool, defaults: Defaults, sites: [SiteSummary]) {
        self.documentId = documentId
        self.revision = revision
        self.readOnly = readOnly
        self.defaults = defaults
        self.defaults.changedAt = [:]
        self.sites = sites
    }

    public init(_ document: SettingsDocument) {
        documentId = document.documentId
        revision = document.revision
        readOnly = document.isReadOnly
        defaults = document.defaults
        defaults.changedAt = [:]
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
                "schedule": .string(defaults.schedule.text),
            ]),
            "sites": .array(sites.map(\.json)),
        ]
        if let documentId { object["documentId"] = .string(documentId) }
        return .object(object)
    }

    /// Reads a view back from its JSON form (`json`); anything else is an error naming the
    /// member at fault.
    public static func decode(_ json: JSONValue, at path: JSONPath = .root) throws(NativeMessageError) -> AppView {
        let view = try WireObject(json, at: path)
        try view.allow(["documentId", "revision", "readOnly", "defaults", "sites"])
        let defaults = try view.object("defaults")
        try defaults.allow(["mode", "theme", "nativeDarkPolicy", "schedule"])
        guard case .array(let rows)? = view["sites"] else { throw NativeMessageError(path.key("sites"), "expected an array") }
        var sites: [SiteSummary] = []
        for index in rows.indices {
            let row = try WireObject(rows[index], at: path.key("sites").index(index))
            try row.allow(["key", "overrides", "inherited", "redundant"])
            sites.append(SiteSummary(key: try row.scopeKey("key"), overrides: try row.siteValues("overrides"),
                                     inherited: try row.fields("inherited"), redundant: try row.fields("redundant")))
        }
        return AppView(documentId: view["documentId"] == nil ? nil : try view.string("documentId"),
                       revision: try view.integer("revision"), readOnly: try view.bool("readOnly"),
                       defaults: Defaults(mode: try defaults.choice("mode"), theme: try defaults.theme("theme"),
                                          nativeDarkPolicy: try defaults.choice("nativeDarkPolicy"), schedule: try defaults.schedule("schedule")),
                       sites: sites)
    }
}
