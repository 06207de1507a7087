/// New values for some default fields; nil leaves a field as it is.
public struct DefaultsValues: Hashable, Sendable {
    public var mode: Mode?
    public var theme: Theme?
    public var nativeDarkPolicy: NativeDarkPolicy?
    public var schedule: Schedule?

    public init(mode: Mode? = nil, theme: Theme? = nil, nativeDarkPolicy: NativeDarkPolicy? = nil,
                schedule: Schedule? = nil) {
        self.mode = mode
        self.theme = theme
        self.nativeDarkPolicy = nativeDarkPolicy
        self.schedule = schedule
    }

    public var isEmpty: Bool { mode == nil && theme == nil && nativeDarkPolicy == nil && schedule == nil }
}

/// One user action on the configuration. Edits are operations, never documents: each names the
/// fields it changes and carries the stamp of the action, so applying it to whatever the document
/// is now (under the lock) cannot erase a change it does not name.
public enum Edit: Hashable, Sendable {
    /// Set some default fields.
    case setDefaults(DefaultsValues, stamp: Stamp)
    /// Set some fields of one site and return others to their default. A record left with no
    /// field is removed and leaves a tombstone.
    case changeSite(ScopeKey, set: SiteValues, reset: [SiteField], stamp: Stamp)
    /// Remove a site: every field returns to its default, and a tombstone remembers when.
    case deleteSite(ScopeKey, stamp: Stamp)

    public var stamp: Stamp {
        switch self {
        case .setDefaults(_, let stamp), .changeSite(_, _, _, let stamp), .deleteSite(_, let stamp): stamp
        }
    }
}

/// Why an edit was refused. The document is unchanged in every case.
public enum EditError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The document was written by a newer version and is read-only here.
    case readOnly(schemaVersion: Int)
    /// A theme outside this version's catalogue. Only stored documents may carry unknown names.
    case unknownTheme(String)
    /// The same field both set and reset in one edit.
    case setAndReset(SiteField)
    /// The serialized result would be larger than the 1 MiB a native reply can carry.
    case tooLarge(bytes: Int)
    case negativeTime(EpochMillis)
    /// A time before 10^11 ms (1973-03-03): a stored time that small reads back as seconds, so
    /// no edit may carry one.
    case timeTooEarly(EpochMillis)

    public var description: String {
        switch self {
        case .readOnly(let v):
            "document has schemaVersion \(v), newer than \(SettingsDocument.currentSchemaVersion): it is read-only to this version"
        case .unknownTheme(let name):
            "unknown theme '\(name)' (known: \(Theme.catalogue.map(\.rawValue).joined(separator: ", ")))"
        case .setAndReset(let field): "field '\(field.rawValue)' is both set and reset"
        case .tooLarge(let bytes):
            "edit refused: the document would be \(bytes) bytes, over the limit of \(DocumentCodec.maximumBytes)"
        case .negativeTime(let t): "edit time \(t) is negative"
        case .timeTooEarly(let t): "edit time \(t) is before 10^11 ms (1973-03-03), which a stored document reads as seconds"
        }
    }
}

extension SettingsDocument {
    /// Applies an edit to this document as it is now. Per field, the edit wins only if its stamp
    /// is greater than the stamp of that field's last change; an edit that changes nothing (for
    /// example the same patch sent twice) leaves the document and its revision as they are.
    /// Returns whether the document changed; a change increments `revision`.
    @discardableResult
    public mutating func apply(_ edit: Edit) throws(EditError) -> Bool {
        try applyEncoded(edit) != nil
    }

    /// `apply`, returning the serialized document it checked against the size limit when the
    /// edit changed it (nil when it changed nothing), so a writer need not serialize it again.
    public mutating func applyEncoded(_ edit: Edit) throws(EditError) -> [UInt8]? {
        if isReadOnly { throw .readOnly(schemaVersion: schemaVersion) }
        try edit.validate()
        var next = self
        let changed: Bool
        switch edit {
        case .setDefaults(let values, let stamp):
            changed = next.defaults.set(values, stamp: stamp)
        case .changeSite(let key, let set, let reset, let stamp):
            var change = SiteRecord()
            for field in set.fields {
                change.changedAt[field] = stamp
                change.values.take(field, from: set)
            }
            for field in reset { change.changedAt[field] = stamp }
            changed = next.join(change, at: key)
        case .deleteSite(let key, let stamp):
            var change = SiteRecord()
            for field in SiteField.allCases { change.changedAt[field] = stamp }
            changed = next.join(change, at: key)
        }
        guard changed else { return nil }
        next.revision += 1
        let encoded = DocumentCodec.encode(next)
        if encoded.count > DocumentCodec.maximumBytes { throw .tooLarge(bytes: encoded.count) }
        self = next
        return encoded
    }

    private mutating func join(_ change: SiteRecord, at key: ScopeKey) -> Bool {
        var record = entry(key)
        guard record.join(change) else { return false }
        store(record, at: key)
        return true
    }
}

extension Edit {
    func validate() throws(EditError) {
        if stamp.at < 0 { throw .negativeTime(stamp.at) }
        switch self {
        case .setDefaults(let values, _):
            if let theme = values.theme, !theme.isKnown { throw .unknownTheme(theme.rawValue) }
        case .changeSite(_, let set, let reset, _):
            if let theme = set.theme, !theme.isKnown { throw .unknownTheme(theme.rawValue) }
            if let both = reset.first(where: { set.has($0) }) { throw .setAndReset(both) }
        case .deleteSite:
            break
        }
        if stamp.at < DocumentCodec.secondsThreshold { throw .timeTooEarly(stamp.at) }
    }
}

extension Defaults {
    /// Sets each given field whose last change is older than `stamp`. Returns whether any did.
    mutating func set(_ values: DefaultsValues, stamp: Stamp) -> Bool {
        var changed = false
        func newer(_ field: DefaultsField) -> Bool {
            if let last = changedAt[field], last >= stamp { return false }
            changedAt[field] = stamp
            changed = true
            return true
        }
        if let mode = values.mode, newer(.mode) { self.mode = mode }
        if let theme = values.theme, newer(.theme) { self.theme = theme }
        if let policy = values.nativeDarkPolicy, newer(.nativeDarkPolicy) { self.nativeDarkPolicy = policy }
        if let schedule = values.schedule, newer(.schedule) { self.schedule = schedule }
        return changed
    }
}
