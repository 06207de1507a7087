import SiteSettings

/// What the background keeps in `storage.local`: the cache (the last valid snapshot from the
/// handler), its version, and the outbox of patches the handler has not acknowledged yet; what
/// tabs see is the cache with the outbox applied on top. Saved in one write, so cache and outbox
/// never disagree.
public struct LocalStorage: Equatable, Sendable {
    public var cache: SettingsDocument?
    /// The `(documentId, revision)` of the snapshot the cache was built from.
    public var snapshotVersion: DocumentVersion?
    /// Oldest first.
    public var outbox: [OutboxEntry]
    /// The number the next popup edit gets (its stamp's edit number and outbox key).
    public var nextEdit: UInt64

    public init(cache: SettingsDocument? = nil, snapshotVersion: DocumentVersion? = nil, outbox: [OutboxEntry] = [], nextEdit: UInt64 = 1) {
        self.cache = cache
        self.snapshotVersion = snapshotVersion
        self.outbox = outbox
        self.nextEdit = nextEdit
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "cache": cache.map(DocumentCodec.json) ?? .null,
            "outbox": .array(outbox.map { entry in
                var fields: [String: JSONValue] = ["edit": .integer(Int64(truncatingIfNeeded: entry.edit)), "request": entry.request.json]
                if entry.message != 0 { fields["message"] = .integer(Int64(entry.message)) }
                return .object(fields)
            }),
            "nextEdit": .integer(Int64(truncatingIfNeeded: nextEdit)),
        ]
        if let version = snapshotVersion {
            object["snapshotVersion"] = .object(["documentId": .string(version.documentId), "revision": .integer(version.revision)])
        }
        return .object(object)
    }

    /// Reads stored JSON; anything unreadable counts as no storage (a first run), never a crash.
    /// Reads the stored bytes of `local.json`; nil when there are none or they do not parse.
    public static func read(_ bytes: [UInt8]?) -> LocalStorage? {
        guard let bytes else { return nil }
        return memo.value(for: bytes) { bytes in decode(try? JSONParser.parseWritten(bytes)) }
    }

    /// The stores last read, by their bytes.
    private static let memo = Memo<[UInt8], LocalStorage?>(capacity: 16)

    public static func decode(_ json: JSONValue?) -> LocalStorage? {
        guard case .object(let members)? = json else { return nil }
        var storage = LocalStorage()
        if let cache = members["cache"], cache != .null {
            storage.cache = try? DocumentCodec.decode(cache).document
        }
        if case .object(let version)? = members["snapshotVersion"], case .string(let id)? = version["documentId"],
           case .integer(let revision)? = version["revision"] {
            storage.snapshotVersion = DocumentVersion(documentId: id, revision: revision)
        }
        if case .array(let entries)? = members["outbox"] {
            for entry in entries {
                guard case .object(let fields) = entry, case .integer(let edit)? = fields["edit"], edit > 0, let request = fields["request"],
                      let parsed = try? NativeRequest.parse(request, now: .max / 2) else { continue }
                var message = 0
                if case .integer(let number)? = fields["message"], let fits = Int(exactly: number) { message = fits }
                storage.outbox.append(OutboxEntry(edit: UInt64(edit), request: parsed, message: message))
            }
        }
        if case .integer(let next)? = members["nextEdit"], next > 0 { storage.nextEdit = UInt64(next) }
        return storage
    }
}
