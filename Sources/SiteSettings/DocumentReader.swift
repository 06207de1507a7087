/// Turns parsed JSON into a `SettingsDocument`, normalizing on the way and collecting notes.
struct DocumentReader {
    /// 2^53: far beyond any real count of writes, and far from overflow when one is added.
    static let largestRevision: Int64 = 1 << 53

    let suffixes: PublicSuffixList
    var notes: [DocumentNote] = []

    init(suffixes: PublicSuffixList) {
        self.suffixes = suffixes
    }

    private mutating func note(_ path: JSONPath, _ message: String) {
        notes.append(DocumentNote(path: path, message: message))
    }

    func schemaVersion(_ json: JSONValue) throws(DocumentError) -> Int {
        let top = try object(json, at: .root)
        let path = JSONPath.root.key("schemaVersion")
        guard let value = top["schemaVersion"] else { return 1 }
        guard case .integer(let version) = value else { throw mismatch("an integer", value, path) }
        guard version >= 1, version <= 1_000_000 else {
            throw DocumentError(.invalidSchemaVersion("schemaVersion \(version) is not a version (1 or more)"), at: path)
        }
        return Int(version)
    }

    mutating func document(_ json: JSONValue, schemaVersion: Int) throws(DocumentError) -> SettingsDocument {
        let root = JSONPath.root
        let top = try object(json, at: root)
        var document = SettingsDocument(schemaVersion: schemaVersion)

        for (name, value) in top.sorted(by: { $0.key < $1.key }) {
            let path = root.key(name)
            switch name {
            case "schemaVersion":
                break
            case "documentId":
                guard case .string(let id) = value else { throw mismatch("a string", value, path) }
                let printable = id.utf8.allSatisfy { (0x21...0x7E).contains($0) }
                guard !id.isEmpty, id.utf8.count <= 128, printable else {
                    throw DocumentError(.invalidDocumentId("documentId must be 1 to 128 printable ASCII characters"), at: path)
                }
                document.documentId = id
            case "revision":
                guard case .integer(let revision) = value else { throw mismatch("an integer", value, path) }
                guard revision >= 0 else {
                    throw DocumentError(.invalidRevision("revision \(revision) is negative"), at: path)
                }
                guard revision <= Self.largestRevision else {
                    throw DocumentError(.invalidRevision("revision \(revision) is larger than \(Self.largestRevision)"), at: path)
                }
                document.revision = revision
            case "defaults":
                document.defaults = try defaults(value, at: path)
            case "sites":
                for (key, record) in try sortedMembers(value, at: path) {
                    let recordPath = path.key(key)
                    let scope = try scopeKey(key, at: recordPath)
                    let read = try siteRecord(record, at: recordPath)
                    merge(read, into: &document, at: scope, path: recordPath)
                }
            case "tombstones":
                for (key, tombstone) in try sortedMembers(value, at: path) {
                    let entryPath = path.key(key)
                    let scope = try scopeKey(key, at: entryPath)
                    let stamps = try tombstoneStamps(tombstone, at: entryPath)
                    merge(SiteRecord(changedAt: stamps), into: &document, at: scope, path: entryPath)
                }
            default:
                note(path, "unknown member, dropped")
            }
        }
        if top["defaults"] == nil { note(root.key("defaults"), "missing, built-in defaults used") }
        return document
    }

    /// Folds a record into the document. Two spellings of one key, or a key both live and
    /// tombstoned, are merged per field by their stamps.
    private mutating func merge(_ record: SiteRecord, into document: inout SettingsDocument, at key: ScopeKey, path: JSONPath) {
        let existing = document.sites[key] != nil || document.tombstones[key] != nil
        var entry = document.entry(key)
        entry.join(record)
        if existing { note(path, "merged with another entry for '\(key.text)'") }
        document.store(entry, at: key)
    }

    private mutating func scopeKey(_ text: String, at path: JSONPath) throws(DocumentError) -> ScopeKey {
        let key: ScopeKey
        do { key = try ScopeKey.parse(text, suffixes: suffixes) } catch {
            throw DocumentError(.invalidKey(error), at: path)
        }
        if key.text != text { note(path, "key written as '\(key.text)'") }
        return key
    }

    // MARK: - Defaults

    private mutating func defaults(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> Defaults {
        let members = try object(json, at: path)
        var result = Defaults.builtIn
        var stamps: [DefaultsField: Stamp] = [:]
        if let value = members["changedAt"] {
            for (name, stamp) in try sortedMembers(value, at: path.key("changedAt")) {
                let stampPath = path.key("changedAt").key(name)
                guard let field = DefaultsField(rawValue: name) else {
                    note(stampPath, "unknown field, dropped")
                    continue
                }
                stamps[field] = try self.stamp(stamp, at: stampPath)
            }
        }
        result.changedAt = stamps
        for field in DefaultsField.allCases where members[field.rawValue] == nil {
            note(path.key(field.rawValue), "missing, built-in default '\(builtInText(field))' used")
        }
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            let fieldPath = path.key(name)
            switch name {
            case "mode":
                if let mode = try enumValue(Mode.self, value, at: fieldPath, fallback: "built-in default '\(result.mode.rawValue)' used") {
                    result.mode = mode
                }
            case "theme":
                result.theme = try theme(value, at: fieldPath)
            case "nativeDarkPolicy":
                if let policy = try enumValue(NativeDarkPolicy.self, value, at: fieldPath, fallback: "built-in default '\(result.nativeDarkPolicy.rawValue)' used") {
                    result.nativeDarkPolicy = policy
                }
            case "schedule":
                result.schedule = try schedule(value, at: fieldPath)
            case "changedAt":
                break
            default:
                note(fieldPath, "unknown member, dropped")
            }
        }
        return result
    }

    private func builtInText(_ field: DefaultsField) -> String {
        let d = Defaults.builtIn
        switch field {
        case .mode: return d.mode.rawValue
        case .theme: return d.theme.rawValue
        case .nativeDarkPolicy: return d.nativeDarkPolicy.rawValue
        case .schedule: return "\(d.schedule.start)-\(d.schedule.end)"
        }
    }

    private func schedule(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> Schedule {
        let members = try object(json, at: path)
        func time(_ name: String) throws(DocumentError) -> TimeOfDay {
            let timePath = path.key(name)
            guard let value = members[name] else { throw mismatch("a time HH:MM", .null, timePath) }
            guard case .string(let text) = value else { throw mismatch("a time HH:MM", value, timePath) }
            guard let time = TimeOfDay(text) else { throw DocumentError(.invalidTimeOfDay(text), at: timePath) }
            return time
        }
        return Schedule(start: try time("start"), end: try time("end"))
    }

    // MARK: - Sites

    private mutating func siteRecord(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> SiteRecord {
        let members = try object(json, at: path)
        var values = SiteValues()
        var modifiedAt: EpochMillis?
        var stamps: [SiteField: Stamp]?
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            let fieldPath = path.key(name)
            switch name {
            case "mode":
                values.mode = try enumValue(Mode.self, value, at: fieldPath, fallback: "override dropped")
            case "theme":
                if value == .null { note(fieldPath, "null, override dropped") } else { values.theme = try theme(value, at: fieldPath) }
            case "nativeDarkPolicy":
                values.nativeDarkPolicy = try enumValue(NativeDarkPolicy.self, value, at: fieldPath, fallback: "override dropped")
            case "modifiedAt":
                modifiedAt = try time(value, at: fieldPath)
            case "changedAt":
                stamps = try fieldStamps(value, at: fieldPath)
            default:
                note(fieldPath, "unknown member, dropped")
            }
        }
        // The seed's form has one `modifiedAt` per record: each present field changed then.
        var changedAt = stamps ?? [:]
        for field in values.fields where changedAt[field] == nil {
            changedAt[field] = Stamp(at: modifiedAt ?? 0)
        }
        if values.isEmpty { note(path, "overrides no field, removed (kept as a tombstone)") }
        return SiteRecord(values: values, changedAt: changedAt)
    }

    private mutating func fieldStamps(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> [SiteField: Stamp] {
        var stamps: [SiteField: Stamp] = [:]
        for (name, value) in try sortedMembers(json, at: path) {
            guard let field = SiteField(rawValue: name) else {
                note(path.key(name), "unknown field, dropped")
                continue
            }
            stamps[field] = try stamp(value, at: path.key(name))
        }
        return stamps
    }

    /// A tombstone is a stamp (every field deleted then) or `{"changedAt": {field: stamp}}`.
    private mutating func tombstoneStamps(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> [SiteField: Stamp] {
        if case .object(let members) = json, let changed = members["changedAt"] {
            for name in members.keys.sorted() where name != "changedAt" { note(path.key(name), "unknown member, dropped") }
            return try fieldStamps(changed, at: path.key("changedAt"))
        }
        let deletion = try stamp(json, at: path)
        var stamps: [SiteField: Stamp] = [:]
        for field in SiteField.allCases { stamps[field] = deletion }
        return stamps
    }

    // MARK: - Values

    private mutating func enumValue<E: RawRepresentable<String>>(
        _ type: E.Type, _ json: JSONValue, at path: JSONPath, fallback: @autoclosure () -> String
    ) throws(DocumentError) -> E? {
        if json == .null {
            note(path, "null, \(fallback())")
            return nil
        }
        guard case .string(let text) = json else { throw mismatch("a string", json, path) }
        guard let value = E(rawValue: text) else {
            note(path, "unknown value '\(text)', \(fallback())")
            return nil
        }
        return value
    }

    private mutating func theme(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> Theme {
        guard case .string(let text) = json else { throw mismatch("a string", json, path) }
        let theme = Theme(rawValue: text)
        if !theme.isKnown { note(path, "unknown theme '\(text)' kept as written; it renders as the default theme") }
        return theme
    }

    private mutating func stamp(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> Stamp {
        if case .integer = json { return Stamp(at: try time(json, at: path)) }
        let members = try object(json, at: path, expected: "a time or a stamp object")
        guard let at = members["at"] else { throw mismatch("a time", .null, path.key("at")) }
        var stamp = Stamp(at: try time(at, at: path.key("at")))
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "at":
                break
            case "by":
                guard case .string(let text) = value else { throw mismatch("a string", value, path.key(name)) }
                guard let origin = EditOrigin(rawValue: text) else {
                    throw DocumentError(.invalidOrigin(text), at: path.key(name))
                }
                stamp.origin = origin
            case "edit":
                guard case .integer(let edit) = value, edit >= 0 else {
                    throw mismatch("a non-negative integer", value, path.key(name))
                }
                stamp.edit = UInt64(edit)
            default:
                note(path.key(name), "unknown member, dropped")
            }
        }
        return stamp
    }

    /// Milliseconds since the epoch; a stored value below 10^11 is seconds.
    private func time(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> EpochMillis {
        guard case .integer(let value) = json else {
            if case .double = json {
                throw DocumentError(.invalidTime("time must be a whole number of milliseconds"), at: path)
            }
            throw mismatch("a time in milliseconds", json, path)
        }
        guard value >= 0 else { throw DocumentError(.invalidTime("time \(value) is negative"), at: path) }
        let millis = value < DocumentCodec.secondsThreshold ? value * 1000 : value
        guard millis <= DocumentCodec.latestTime else {
            throw DocumentError(.invalidTime("time \(value) is after the year 9999"), at: path)
        }
        return millis
    }

    // MARK: - Shapes

    private func object(_ json: JSONValue, at path: JSONPath, expected: String = "an object") throws(DocumentError) -> [String: JSONValue] {
        guard case .object(let members) = json else { throw mismatch(expected, json, path) }
        return members
    }

    private func sortedMembers(_ json: JSONValue, at path: JSONPath) throws(DocumentError) -> [(key: String, value: JSONValue)] {
        try object(json, at: path).sorted { $0.key < $1.key }
    }

    private func mismatch(_ expected: String, _ found: JSONValue, _ path: JSONPath) -> DocumentError {
        DocumentError(.wrongType(expected: expected, found: found.kindName), at: path)
    }
}

extension JSONValue {
    /// The JSON type's name, for messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
