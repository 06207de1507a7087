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

/// A popup change waiting for the handler's acknowledgement.
public struct OutboxEntry: Equatable, Sendable {
    public var edit: UInt64
    /// A `patch` or `deleteSite` request, stamped with the time of the user's action.
    public var request: NativeRequest
    /// The popup's number for the message that made it, to answer it if the handler refuses.
    public var message: Int

    public init(edit: UInt64, request: NativeRequest, message: Int = 0) {
        self.edit = edit
        self.request = request
        self.message = message
    }

    /// Whether this change, made later, sets or clears every field `earlier` does on the same
    /// record, so that `earlier` changes nothing once this one is applied.
    public func replaces(_ earlier: OutboxEntry) -> Bool {
        guard let mine = changed, let theirs = earlier.changed else { return false }
        return mine.scope == theirs.scope && theirs.fields.isSubset(of: mine.fields)
    }

    /// The record a patch or deletion changes, and the fields it sets or clears.
    private var changed: (scope: ScopeKey, fields: Set<SiteField>)? {
        switch request {
        case .patch(let scope, let set, let reset, _): (scope, Set(set.fields).union(reset))
        case .deleteSite(let scope, _): (scope, Set(SiteField.allCases))
        case .getSnapshot, .getEnabled, .toggleEnabled, .putDocument: nil
        }
    }

    /// The same change as a model edit, for applying to the cache.
    public var modelEdit: Edit? {
        switch request {
        case .patch(let scope, let set, let reset, let stamp): .changeSite(scope, set: set, reset: reset, stamp: stamp)
        case .deleteSite(let scope, let stamp): .deleteSite(scope, stamp: stamp)
        case .getSnapshot, .getEnabled, .toggleEnabled, .putDocument: nil
        }
    }
}

/// What the background keeps in `storage.session`: it survives an unload of the background but
/// not a restart of Safari.
public struct SessionStorage: Equatable, Sendable {
    /// The end of the extension-wide pause.
    public var pausedUntil: EpochMillis?
    /// The open tabs whose content script reported a natively dark page. Only a content script
    /// can tell, and it says so when it asks; a background woken later learns the open tabs'
    /// pages from Safari, not how they look, so it keeps this where an unload cannot lose it.
    public var nativelyDarkTabs: Set<TabID>

    public init(pausedUntil: EpochMillis? = nil, nativelyDarkTabs: Set<TabID> = []) {
        self.pausedUntil = pausedUntil
        self.nativelyDarkTabs = nativelyDarkTabs
    }

    public var json: JSONValue {
        .object(["pausedUntil": pausedUntil.map(JSONValue.integer) ?? .null,
                 "nativelyDarkTabs": .array(nativelyDarkTabs.map(\.rawValue).sorted().map(JSONValue.string))])
    }

    public static func decode(_ json: JSONValue?) -> SessionStorage? {
        guard case .object(let members)? = json else { return nil }
        var session = SessionStorage()
        if case .integer(let until)? = members["pausedUntil"] { session.pausedUntil = until }
        if case .array(let tabs)? = members["nativelyDarkTabs"] {
            for case .string(let tab) in tabs { session.nativelyDarkTabs.insert(TabID(tab)) }
        }
        return session
    }
}
