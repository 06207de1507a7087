import SiteSettings

/// A message the extension's JavaScript sends with `sendNativeMessage`, after validation.
///
/// Wire form (JSON objects; unknown members are refused):
/// - `{"type": "getSnapshot", "known": {"documentId": "…", "revision": 42}}` (`known` optional)
/// - `{"type": "patch", "scope": "docs.example.com", "set": {"theme": "sepia"}, "reset": ["mode"], "at": 1783936800000, "edit": 7}`
/// - `{"type": "deleteSite", "scope": "docs.example.com", "at": 1783936800000, "edit": 8}`
/// - `{"type": "getEnabled"}` and `{"type": "toggleEnabled"}`: the first version's protocol.
public enum NativeRequest: Equatable, Sendable {
    case getSnapshot(known: DocumentVersion?)
    case patch(scope: ScopeKey, set: SiteValues, reset: [SiteField], stamp: Stamp)
    case deleteSite(scope: ScopeKey, stamp: Stamp)
    case getEnabled
    case toggleEnabled
    /// The popup-full-snapshot flaw: the extension's whole cached document, to be stored as is.
    /// Accepted only with that flaw switched on.
    case putDocument(SettingsDocument)
    /// Any other JSON value: a message of the extension's own design (`{"type": "getDefault"}`,
    /// `{"name": "REQ_PLATFORM"}`, a string), or one of the forms above with members it does not
    /// have. Carried to the handler as it was sent; the built-in handler answers it with its
    /// `invalidMessage` error.
    case other(JSONValue)

    /// How far in the future (relative to the handler's `now`) an edit's time may be: clocks of
    /// the extension and the handler are the same device's, so a minute covers any skew.
    public static let futureTolerance: EpochMillis = 60_000
    /// The most fields a `reset` list may name.
    static let maximumResetFields = SiteField.allCases.count

    /// Validates a message. Anything that is not exactly one of the forms above is an error that
    /// names the JSON path and the problem; nothing here touches the document.
    public static func parse(_ json: JSONValue, now: EpochMillis, suffixes: PublicSuffixList = .embedded,
                             flaws: Set<Flaw> = []) throws(NativeMessageError) -> NativeRequest {
        let root = JSONPath.root
        let members = try object(json, root)
        guard let typeValue = members["type"] else { throw .init(root.key("type"), "missing") }
        guard case .string(let type) = typeValue else { throw .init(root.key("type"), "expected a string") }
        switch type {
        case "putDocument" where flaws.contains(.popupFullSnapshot):
            guard let document = members["document"], let decoded = try? DocumentCodec.decode(document, suffixes: suffixes) else {
                throw .init(root.key("document"), "expected a settings document")
            }
            return .putDocument(decoded.document)
        case "getSnapshot":
            try allow(members, ["type", "known"], root)
            guard let known = members["known"] else { return .getSnapshot(known: nil) }
            let path = root.key("known")
            let fields = try object(known, path)
            try allow(fields, ["documentId", "revision"], path)
            guard case .string(let id)? = fields["documentId"], !id.isEmpty, id.utf8.count <= 128 else {
                throw .init(path.key("documentId"), "expected a document id string of 1 to 128 bytes")
            }
            guard case .integer(let revision)? = fields["revision"], revision >= 0 else {
                throw .init(path.key("revision"), "expected a non-negative integer")
            }
            return .getSnapshot(known: DocumentVersion(documentId: id, revision: revision))
        case "patch":
            try allow(members, ["type", "scope", "set", "reset", "at", "edit"], root)
            let scope = try scopeKey(members, root, suffixes)
            let set = try values(members["set"], root.key("set"))
            let reset = try resetFields(members["reset"], root.key("reset"))
            if let both = reset.first(where: { set.has($0) }) {
                throw .init(root.key("reset"), "field '\(both.rawValue)' is both set and reset")
            }
            if set.isEmpty && reset.isEmpty { throw .init(root, "a patch must set or reset at least one field") }
            return .patch(scope: scope, set: set, reset: reset, stamp: try stamp(members, root, now: now))
        case "deleteSite":
            try allow(members, ["type", "scope", "at", "edit"], root)
            return .deleteSite(scope: try scopeKey(members, root, suffixes), stamp: try stamp(members, root, now: now))
        case "getEnabled":
            try allow(members, ["type"], root)
            return .getEnabled
        case "toggleEnabled":
            try allow(members, ["type"], root)
            return .toggleEnabled
        default:
            throw .init(root.key("type"), "unknown message type '\(type.prefix(64))' (known: getSnapshot, patch, deleteSite, getEnabled, toggleEnabled)")
        }
    }

    /// The record a patch or deletion changes.
    public var scope: ScopeKey? {
        switch self {
        case .patch(let scope, _, _, _), .deleteSite(let scope, _): scope
        case .getSnapshot, .getEnabled, .toggleEnabled, .putDocument, .other: nil
        }
    }

    /// Its `type` on the wire.
    public var name: String {
        switch self {
        case .getSnapshot: "getSnapshot"
        case .patch: "patch"
        case .deleteSite: "deleteSite"
        case .getEnabled: "getEnabled"
        case .toggleEnabled: "toggleEnabled"
        case .putDocument: "putDocument"
        case .other(let json): if case .object(let members) = json, case .string(let type)? = members["type"] { String(type.prefix(64)) } else { "message" }
        }
    }

    /// The JSON form of a request, as the extension sends it.
    public var json: JSONValue {
        switch self {
        case .getSnapshot(let known):
            var object: [String: JSONValue] = ["type": .string("getSnapshot")]
            if let known { object["known"] = .object(["documentId": .string(known.documentId), "revision": .integer(known.revision)]) }
            return .object(object)
        case .patch(let scope, let set, let reset, let stamp):
            return .object(["type": .string("patch"), "scope": .string(scope.text), "set": set.json, "reset": .fields(reset),
                            "at": .integer(stamp.at), "edit": .integer(Int64(truncatingIfNeeded: stamp.edit))])
        case .deleteSite(let scope, let stamp):
            return .object(["type": .string("deleteSite"), "scope": .string(scope.text),
                            "at": .integer(stamp.at), "edit": .integer(Int64(truncatingIfNeeded: stamp.edit))])
        case .getEnabled:
            return .object(["type": .string("getEnabled")])
        case .toggleEnabled:
            return .object(["type": .string("toggleEnabled")])
        case .putDocument(let document):
            return .object(["type": .string("putDocument"), "document": DocumentCodec.json(document)])
        case .other(let json):
            return json
        }
    }

    /// Reads a request back from its JSON form (`json`), as the harness reads what the extension
    /// sends: the exact inverse of `json`, with none of the handler's checks of times, sizes and
    /// sense, so that even a message the handler must refuse is read as it was sent. A message
    /// that is none of the design's forms is `.other`, as it was sent: native messages are the
    /// extension's own, and the harness never refuses one. The wire names no origin: a stamp read
    /// here is the extension's. `parse` is the handler's reading.
    public static func decode(_ json: JSONValue) -> NativeRequest {
        do { return try design(json) } catch { return .other(json) }
    }

    /// `json` as one of the design's forms, or why it is none.
    private static func design(_ json: JSONValue, at path: JSONPath = .root) throws(NativeMessageError) -> NativeRequest {
        let message = try WireObject(json, at: path)
        func stamp() throws(NativeMessageError) -> Stamp {
            Stamp(at: try message.integer("at"), origin: .extension, edit: UInt64(bitPattern: try message.integer("edit")))
        }
        let type = try message.string("type")
        switch type {
        case "getSnapshot":
            try message.allow(["type", "known"])
            guard message["known"] != nil else { return .getSnapshot(known: nil) }
            let known = try message.object("known")
            try known.allow(["documentId", "revision"])
            return .getSnapshot(known: DocumentVersion(documentId: try known.string("documentId"), revision: try known.integer("revision")))
        case "patch":
            try message.allow(["type", "scope", "set", "reset", "at", "edit"])
            return .patch(scope: try message.scopeKey("scope"), set: try message.siteValues("set"), reset: try message.fields("reset"),
                          stamp: try stamp())
        case "deleteSite":
            try message.allow(["type", "scope", "at", "edit"])
            return .deleteSite(scope: try message.scopeKey("scope"), stamp: try stamp())
        case "getEnabled":
            try message.allow(["type"])
            return .getEnabled
        case "toggleEnabled":
            try message.allow(["type"])
            return .toggleEnabled
        case "putDocument":
            try message.allow(["type", "document"])
            return .putDocument(try message.document("document"))
        default:
            throw .init(path.key("type"), "unknown message type '\(type.prefix(64))'")
        }
    }

    // MARK: - Pieces

    static func object(_ json: JSONValue, _ path: JSONPath) throws(NativeMessageError) -> [String: JSONValue] {
        guard case .object(let members) = json else { throw .init(path, "expected an object") }
        return members
    }

    /// Refuses a member not named in `names`; of several, the first in sorted order is named.
    static func allow(_ members: [String: JSONValue], _ names: [String], _ path: JSONPath) throws(NativeMessageError) {
        guard members.keys.contains(where: { !names.contains($0) }) else { return }
        let extra = members.keys.sorted().first { !names.contains($0) }!
        throw .init(path.key(String(extra.prefix(64))), "unknown member")
    }

    static func scopeKey(_ members: [String: JSONValue], _ path: JSONPath, _ suffixes: PublicSuffixList) throws(NativeMessageError) -> ScopeKey {
        try scopeKey(try scopeText(members, path), path.key("scope"), suffixes)
    }

    /// The `scope` member as written, before it is read as a key.
    static func scopeText(_ members: [String: JSONValue], _ path: JSONPath) throws(NativeMessageError) -> String {
        guard case .string(let text)? = members["scope"] else { throw .init(path.key("scope"), "expected a scope key string") }
        return text
    }

    /// A scope key a user or the extension wrote, at `path`, in its canonical form.
    static func scopeKey(_ text: String, _ path: JSONPath, _ suffixes: PublicSuffixList) throws(NativeMessageError) -> ScopeKey {
        guard text.utf8.count <= 253 + 1 + ScopeKey.maximumPathBytes else {
            throw .init(path, "scope key of \(text.utf8.count) bytes is too long")
        }
        do {
            return try ScopeKey.parse(text, suffixes: suffixes)
        } catch {
            throw .init(path, error.description)
        }
    }

    static func values(_ json: JSONValue?, _ path: JSONPath) throws(NativeMessageError) -> SiteValues {
        guard let json else { return SiteValues() }
        var result = SiteValues()
        for (name, value) in try object(json, path).sorted(by: { $0.key < $1.key }) {
            let fieldPath = path.key(String(name.prefix(64)))
            guard case .string(let text) = value else { throw .init(fieldPath, "expected a string") }
            switch name {
            case "mode":
                guard let mode = Mode(rawValue: text) else { throw .init(fieldPath, "unknown mode '\(text.prefix(64))'") }
                result.mode = mode
            case "theme":
                let theme = Theme(rawValue: text)
                guard theme.isKnown else { throw .init(fieldPath, "unknown theme '\(text.prefix(64))'") }
                result.theme = theme
            case "nativeDarkPolicy":
                guard let policy = NativeDarkPolicy(rawValue: text) else { throw .init(fieldPath, "unknown policy '\(text.prefix(64))'") }
                result.nativeDarkPolicy = policy
            default:
                throw .init(fieldPath, "unknown field")
            }
        }
        return result
    }

    /// The fields a `reset` list names, sorted; none when the list is absent.
    static func resetFields(_ json: JSONValue?, _ path: JSONPath) throws(NativeMessageError) -> [SiteField] {
        guard let json else { return [] }
        return try fieldList(json, path).sorted()
    }

    /// A list of field names in the order written: each a field a site has, none twice.
    static func fieldList(_ json: JSONValue, _ path: JSONPath) throws(NativeMessageError) -> [SiteField] {
        guard case .array(let items) = json else { throw .init(path, "expected an array of field names") }
        if items.count > maximumResetFields { throw .init(path, "\(items.count) fields, more than the \(maximumResetFields) a site has") }
        var fields: [SiteField] = []
        for (index, item) in items.enumerated() {
            guard case .string(let name) = item, let field = SiteField(rawValue: name) else {
                throw .init(path.index(index), "expected one of mode, theme, nativeDarkPolicy")
            }
            if fields.contains(field) { throw .init(path.index(index), "field '\(name)' listed twice") }
            fields.append(field)
        }
        return fields
    }

    private static func stamp(_ members: [String: JSONValue], _ path: JSONPath, now: EpochMillis) throws(NativeMessageError) -> Stamp {
        guard case .integer(let at)? = members["at"] else { throw .init(path.key("at"), "expected the edit's time in milliseconds") }
        if at < 0 { throw .init(path.key("at"), "time \(at) is negative") }
        if at < DocumentCodec.secondsThreshold { throw .init(path.key("at"), "time \(at) is before 10^11 ms (1973-03-03)") }
        if at > now + futureTolerance { throw .init(path.key("at"), "time \(at) is more than \(futureTolerance) ms after now (\(now))") }
        guard case .integer(let edit)? = members["edit"], edit >= 0 else {
            throw .init(path.key("edit"), "expected the edit's number, a non-negative integer")
        }
        return Stamp(at: at, origin: .extension, edit: UInt64(edit))
    }
}
