/// The values a site record overrides. A nil field is inherited from the defaults.
public struct SiteValues: Hashable, Sendable {
    public var mode: Mode?
    public var theme: Theme?
    public var nativeDarkPolicy: NativeDarkPolicy?

    public init(mode: Mode? = nil, theme: Theme? = nil, nativeDarkPolicy: NativeDarkPolicy? = nil) {
        self.mode = mode
        self.theme = theme
        self.nativeDarkPolicy = nativeDarkPolicy
    }

    public var isEmpty: Bool { mode == nil && theme == nil && nativeDarkPolicy == nil }

    /// The fields that hold a value, in a fixed order.
    public var fields: [SiteField] {
        SiteField.allCases.filter { has($0) }
    }

    public func has(_ field: SiteField) -> Bool {
        switch field {
        case .mode: mode != nil
        case .theme: theme != nil
        case .nativeDarkPolicy: nativeDarkPolicy != nil
        }
    }

    /// Copies one field's value (or its absence) from `other`.
    mutating func take(_ field: SiteField, from other: SiteValues) {
        switch field {
        case .mode: mode = other.mode
        case .theme: theme = other.theme
        case .nativeDarkPolicy: nativeDarkPolicy = other.nativeDarkPolicy
        }
    }
}

/// A site's overrides and when each field last changed, resets included, so that a delayed
/// older edit of a field cannot undo a newer change or reset of it.
public struct SiteRecord: Hashable, Sendable {
    public var values: SiteValues
    /// Every field ever changed on this key, with the stamp of its last change.
    public var changedAt: [SiteField: Stamp]

    public init(values: SiteValues = SiteValues(), changedAt: [SiteField: Stamp] = [:]) {
        self.values = values
        self.changedAt = changedAt
    }

    /// The time of the newest change to any field (the seed format's `modifiedAt`).
    public var modifiedAt: EpochMillis { changedAt.values.map(\.at).max() ?? 0 }

    /// Folds in another version of the same key: per field, the greater stamp wins.
    /// Returns whether anything changed. Commutative, associative and idempotent.
    @discardableResult
    mutating func join(_ other: SiteRecord) -> Bool {
        var changed = false
        for field in SiteField.allCases {
            guard let theirs = other.changedAt[field] else { continue }
            if let ours = changedAt[field], ours >= theirs { continue }
            changedAt[field] = theirs
            values.take(field, from: other.values)
            changed = true
        }
        return changed
    }
}

/// The global defaults. Every field always has a value; `changedAt` says when each was last set
/// (a field missing from it was never edited: imported, or filled in by normalization).
public struct Defaults: Hashable, Sendable {
    public var mode: Mode
    public var theme: Theme
    public var nativeDarkPolicy: NativeDarkPolicy
    public var schedule: Schedule
    public var changedAt: [DefaultsField: Stamp]

    public init(mode: Mode, theme: Theme, nativeDarkPolicy: NativeDarkPolicy, schedule: Schedule,
                changedAt: [DefaultsField: Stamp] = [:]) {
        self.mode = mode
        self.theme = theme
        self.nativeDarkPolicy = nativeDarkPolicy
        self.schedule = schedule
        self.changedAt = changedAt
    }

    /// What a missing document or a missing default field falls back to.
    public static let builtIn = Defaults(
        mode: .auto, theme: .dark, nativeDarkPolicy: .respect,
        schedule: Schedule(start: TimeOfDay("20:00")!, end: TimeOfDay("06:00")!))

    /// The theme pages get: the stored default theme, or the built-in one when the stored name
    /// is unknown to this version.
    public var renderedTheme: Theme { theme.isKnown ? theme : Defaults.builtIn.theme }
}

/// The shared configuration document, as it lives in the App Group container.
///
/// Only records that override at least one field are in `sites`; a key whose last field was
/// reset, or that was deleted, keeps its field stamps in `tombstones`, so an older delayed patch
/// cannot bring it back while a newer one can.
public struct SettingsDocument: Hashable, Sendable {
    /// The schema this version reads and writes. A document with a greater version is read-only.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var documentId: String?
    /// Incremented by every write that changes the document.
    public var revision: Int64
    public var defaults: Defaults
    public var sites: [ScopeKey: SiteRecord]
    public var tombstones: [ScopeKey: [SiteField: Stamp]]

    public init(schemaVersion: Int = SettingsDocument.currentSchemaVersion, documentId: String? = nil,
                revision: Int64 = 0, defaults: Defaults = .builtIn,
                sites: [ScopeKey: SiteRecord] = [:], tombstones: [ScopeKey: [SiteField: Stamp]] = [:]) {
        self.schemaVersion = schemaVersion
        self.documentId = documentId
        self.revision = revision
        self.defaults = defaults
        self.sites = sites
        self.tombstones = tombstones
    }

    /// True for a document written by a newer version: it may be read, never rewritten.
    public var isReadOnly: Bool { schemaVersion > SettingsDocument.currentSchemaVersion }

    /// The record for `key`, live or tombstoned, as one value.
    func entry(_ key: ScopeKey) -> SiteRecord {
        sites[key] ?? SiteRecord(changedAt: tombstones[key] ?? [:])
    }

    /// Stores an entry back: live when it overrides a field, a tombstone when it does not.
    mutating func store(_ record: SiteRecord, at key: ScopeKey) {
        if record.values.isEmpty {
            sites[key] = nil
            tombstones[key] = record.changedAt.isEmpty ? nil : record.changedAt
        } else {
            sites[key] = record
            tombstones[key] = nil
        }
    }
}
