/// Reads and writes the settings document as JSON.
///
/// Reading normalizes: keys become canonical (colliding keys are merged field by field), times
/// below 10^11 are read as seconds, missing defaults are filled in, unknown modes and policies
/// are dropped, unknown themes are kept as written, unknown members are dropped. Each such change
/// is reported as a `DocumentNote`. Anything that cannot be read is a `DocumentError` naming its
/// JSON path. Writing is deterministic: sorted keys, times in milliseconds.
public enum DocumentCodec {
    /// The largest serialized document: the most a native reply can carry.
    public static let maximumBytes = 1 << 20
    /// Stored times below this are seconds, not milliseconds.
    public static let secondsThreshold: Int64 = 100_000_000_000
    /// 9999-12-31T23:59:59.999Z: later times are refused as garbage.
    public static let latestTime: Int64 = 253_402_300_799_999

    /// A document read from bytes, with what normalization changed on the way.
    public struct Decoded: Sendable {
        public var document: SettingsDocument
        public var notes: [DocumentNote]
    }

    public static func decode(_ bytes: [UInt8], suffixes: PublicSuffixList = .embedded) throws(DocumentError) -> Decoded {
        guard suffixes.isEmbedded else { return try read(bytes, suffixes: suffixes) }
        return try bytesMemo.value(for: bytes) { bytes in Result { () throws(DocumentError) in try read(bytes, suffixes: .embedded) } }.get()
    }

    public static func decode(_ bytes: some Collection<UInt8>, suffixes: PublicSuffixList = .embedded) throws(DocumentError) -> Decoded {
        try decode(Array(bytes), suffixes: suffixes)
    }

    /// The documents last decoded with the embedded list, by their bytes, by their JSON, and
    /// the JSON of the documents last written out.
    private static let bytesMemo = Memo<[UInt8], Result<Decoded, DocumentError>>(capacity: 16)
    /// JSON and documents are matched by their bits (a copy of what was remembered), not by
    /// `==`, whose strings compare by canonical equivalence.
    private static let jsonMemo = Memo<JSONValue, Result<Decoded, DocumentError>>(capacity: 8, matching: sameBits)
    private static let writtenMemo = Memo<SettingsDocument, JSONValue>(capacity: 8, matching: sameBits)

    private static func read(_ bytes: [UInt8], suffixes: PublicSuffixList) throws(DocumentError) -> Decoded {
        if bytes.count > maximumBytes { throw DocumentError(.tooLarge(bytes: bytes.count), at: nil) }
        let json: JSONValue
        do { json = try JSONParser.parseWritten(bytes) } catch { throw DocumentError(.syntax(error), at: nil) }
        return try read(json, suffixes: suffixes)
    }

    public static func decode(_ json: JSONValue, suffixes: PublicSuffixList = .embedded) throws(DocumentError) -> Decoded {
        if suffixes.isEmbedded {
            return try jsonMemo.value(for: json) { json in Result { () throws(DocumentError) in try read(json, suffixes: .embedded) } }.get()
        }
        return try read(json, suffixes: suffixes)
    }

    private static func read(_ json: JSONValue, suffixes: PublicSuffixList) throws(DocumentError) -> Decoded {
        var reader = DocumentReader(suffixes: suffixes)
        let version = try reader.schemaVersion(json)
        do {
            let document = try reader.document(json, schemaVersion: version)
            return Decoded(document: document, notes: reader.notes)
        } catch where version > SettingsDocument.currentSchemaVersion {
            throw DocumentError(.newerSchema(version: version, detail: error.description), at: error.path)
        }
    }

    /// The compact serialized form, as written to disk and sent in native replies.
    public static func encode(_ document: SettingsDocument) -> [UInt8] {
        JSONWriter.compactRemembered(json(document))
    }

    public static func json(_ document: SettingsDocument) -> JSONValue {
        writtenMemo.value(for: document, write)
    }

    private static func write(_ document: SettingsDocument) -> JSONValue {
        var top: [String: JSONValue] = [
            "schemaVersion": .integer(Int64(document.schemaVersion)),
            "revision": .integer(document.revision),
            "defaults": json(document.defaults),
        ]
        if let id = document.documentId { top["documentId"] = .string(id) }
        var sites: [String: JSONValue] = [:]
        sites.reserveCapacity(document.sites.count)
        for (key, record) in document.sites { sites[key.text] = json(record) }
        top["sites"] = .object(sites)
        var tombstones: [String: JSONValue] = [:]
        tombstones.reserveCapacity(document.tombstones.count)
        for (key, stamps) in document.tombstones { tombstones[key.text] = tombstoneJSON(stamps) }
        top["tombstones"] = .object(tombstones)
        return .object(top)
    }

    /// A time as stored: milliseconds, except below 10^11, which reading takes for seconds; such
    /// a time can only have come from seconds (edits cannot carry one), so it goes back as seconds.
    static func stored(_ time: EpochMillis) -> JSONValue {
        .integer(time < secondsThreshold ? time / 1000 : time)
    }

    static func json(_ stamp: Stamp) -> JSONValue {
        if stamp.origin == .imported && stamp.edit == 0 { return stored(stamp.at) }
        var object: [String: JSONValue] = ["at": stored(stamp.at), "by": .string(stamp.origin.rawValue)]
        if stamp.edit != 0 { object["edit"] = .integer(Int64(truncatingIfNeeded: stamp.edit)) }
        return .object(object)
    }

    private static func json(_ defaults: Defaults) -> JSONValue {
        var object: [String: JSONValue] = [
            "mode": .string(defaults.mode.rawValue),
            "theme": .string(defaults.theme.rawValue),
            "nativeDarkPolicy": .string(defaults.nativeDarkPolicy.rawValue),
            "schedule": .object(["start": .string(defaults.schedule.start.description),
                                 "end": .string(defaults.schedule.end.description)]),
        ]
        if !defaults.changedAt.isEmpty {
            var stamps: [String: JSONValue] = [:]
            for (field, stamp) in defaults.changedAt { stamps[field.rawValue] = json(stamp) }
            object["changedAt"] = .object(stamps)
        }
        return .object(object)
    }

    private static func json(_ record: SiteRecord) -> JSONValue {
        var object: [String: JSONValue] = [:]
        if let mode = record.values.mode { object["mode"] = .string(mode.rawValue) }
        if let theme = record.values.theme { object["theme"] = .string(theme.rawValue) }
        if let policy = record.values.nativeDarkPolicy { object["nativeDarkPolicy"] = .string(policy.rawValue) }
        let modifiedAt = record.modifiedAt
        object["modifiedAt"] = stored(modifiedAt)
        // The seed's short form (one `modifiedAt`) says everything when every present field was
        // last set at that time by an unknown editor and nothing was reset.
        let plain = Stamp(at: modifiedAt)
        let isPlain = record.changedAt.count == record.values.fields.count
            && record.values.fields.allSatisfy { record.changedAt[$0] == plain }
        if !isPlain { object["changedAt"] = stampsJSON(record.changedAt) }
        return .object(object)
    }

    private static func stampsJSON(_ stamps: [SiteField: Stamp]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (field, stamp) in stamps { object[field.rawValue] = json(stamp) }
        return .object(object)
    }

    /// A deletion (every field reset at one stamp) is written as that stamp alone.
    private static func tombstoneJSON(_ stamps: [SiteField: Stamp]) -> JSONValue {
        if stamps.count == SiteField.allCases.count, let first = stamps.values.first,
           stamps.values.allSatisfy({ $0 == first }) {
            return json(first)
        }
        return .object(["changedAt": stampsJSON(stamps)])
    }
}
