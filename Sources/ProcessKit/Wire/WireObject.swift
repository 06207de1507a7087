import SiteSettings

/// One JSON object of a wire message, read member by member. Every refusal is a
/// `NativeMessageError` naming the member's JSON path (`view.defaults.mode`) and the problem.
struct WireObject {
    let members: [String: JSONValue]
    let path: JSONPath

    init(_ json: JSONValue, at path: JSONPath) throws(NativeMessageError) {
        members = try NativeRequest.object(json, path)
        self.path = path
    }

    subscript(name: String) -> JSONValue? { members[name] }

    /// Refuses a member not named here.
    func allow(_ names: [String]) throws(NativeMessageError) {
        try NativeRequest.allow(members, names, path)
    }

    func value(_ name: String) throws(NativeMessageError) -> JSONValue {
        guard let value = members[name] else { throw NativeMessageError(path.key(name), "missing") }
        return value
    }

    func object(_ name: String) throws(NativeMessageError) -> WireObject {
        try WireObject(try value(name), at: path.key(name))
    }

    func string(_ name: String) throws(NativeMessageError) -> String {
        guard case .string(let value)? = members[name] else { throw NativeMessageError(path.key(name), "expected a string") }
        return value
    }

    func integer(_ name: String) throws(NativeMessageError) -> Int64 {
        guard case .integer(let value)? = members[name] else { throw NativeMessageError(path.key(name), "expected an integer") }
        return value
    }

    /// A member that is an array of strings.
    func strings(_ name: String) throws(NativeMessageError) -> [String] {
        guard case .array(let items) = try value(name) else { throw NativeMessageError(path.key(name), "expected an array") }
        var texts: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw NativeMessageError(path.key(name).index(index), "expected a string") }
            texts.append(text)
        }
        return texts
    }

    func bool(_ name: String) throws(NativeMessageError) -> Bool {
        guard case .bool(let value)? = members[name] else { throw NativeMessageError(path.key(name), "expected true or false") }
        return value
    }

    /// A member that must be present and may be `null`.
    func nullable(_ name: String) throws(NativeMessageError) -> JSONValue? {
        let value = try value(name)
        return value == .null ? nil : value
    }

    /// One of a fixed set of names (a mode, a reason, an error code).
    func choice<Choice: RawRepresentable<String> & CaseIterable>(_ name: String) throws(NativeMessageError) -> Choice {
        guard let value = Choice(rawValue: try string(name)) else {
            throw NativeMessageError(path.key(name), "expected one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// A theme name; any name, as documents keep themes this version does not know.
    func theme(_ name: String) throws(NativeMessageError) -> Theme {
        Theme(rawValue: try string(name))
    }

    /// A scope key, read into its canonical form.
    func scopeKey(_ name: String) throws(NativeMessageError) -> ScopeKey {
        let text = try string(name)
        do { return try ScopeKey.parse(text) } catch { throw NativeMessageError(path.key(name), error.description) }
    }

    /// A list of scope keys, each read into its canonical form.
    func scopeKeys(_ name: String) throws(NativeMessageError) -> [ScopeKey] {
        guard case .array(let items)? = members[name] else { throw NativeMessageError(path.key(name), "expected an array of scope keys") }
        var keys: [ScopeKey] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else { throw NativeMessageError(path.key(name).index(index), "expected a scope key string") }
            do { keys.append(try ScopeKey.parse(text)) } catch { throw NativeMessageError(path.key(name).index(index), error.description) }
        }
        return keys
    }

    /// A schedule written `HH:MM-HH:MM`.
    func schedule(_ name: String) throws(NativeMessageError) -> Schedule {
        guard let schedule = Schedule(text: try string(name)) else {
            throw NativeMessageError(path.key(name), "expected a schedule written HH:MM-HH:MM")
        }
        return schedule
    }

    /// Site values written `{"mode": …, "theme": …, "nativeDarkPolicy": …}`, each optional. Any
    /// theme name is kept; `NativeRequest.values` is the stricter reading for what users send.
    func siteValues(_ name: String) throws(NativeMessageError) -> SiteValues {
        let fields = try object(name)
        try fields.allow(["mode", "theme", "nativeDarkPolicy"])
        var values = SiteValues()
        if fields["mode"] != nil { values.mode = try fields.choice("mode") as Mode }
        if fields["theme"] != nil { values.theme = try fields.theme("theme") }
        if fields["nativeDarkPolicy"] != nil { values.nativeDarkPolicy = try fields.choice("nativeDarkPolicy") as NativeDarkPolicy }
        return values
    }

    /// A settings document, read as `DocumentCodec` reads one.
    func document(_ name: String) throws(NativeMessageError) -> SettingsDocument {
        let json = try value(name)
        do { return try DocumentCodec.decode(json).document } catch {
            throw NativeMessageError(path.key(name), "not a settings document: \(error)")
        }
    }

    /// Field names in the order written, none twice.
    func fields(_ name: String) throws(NativeMessageError) -> [SiteField] {
        try NativeRequest.fieldList(try value(name), path.key(name))
    }
}

extension SiteValues {
    /// The values as messages and views carry them: field names to strings, unset fields left out.
    var json: JSONValue { .object(jsonMembers) }

    var jsonMembers: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if let mode { members["mode"] = .string(mode.rawValue) }
        if let theme { members["theme"] = .string(theme.rawValue) }
        if let nativeDarkPolicy { members["nativeDarkPolicy"] = .string(nativeDarkPolicy.rawValue) }
        return members
    }
}

extension Schedule {
    /// The window as views show it: `20:00-06:00`.
    var text: String { "\(start)-\(end)" }

    /// Reads `HH:MM-HH:MM`; nil for anything else.
    init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = TimeOfDay(String(parts[0])), let end = TimeOfDay(String(parts[1])) else { return nil }
        self.init(start: start, end: end)
    }
}

extension JSONValue {
    /// A list of field names, as views and messages carry them.
    static func fields(_ fields: [SiteField]) -> JSONValue {
        .array(fields.map { .string($0.rawValue) })
    }
}
