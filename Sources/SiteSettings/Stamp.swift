/// Who made an edit. The order of the cases is the tie rule's rank: at equal times the app (the
/// control plane) wins over the extension, which wins over imported data.
public enum EditOrigin: String, CaseIterable, Sendable, Hashable, Comparable {
    /// A value with no recorded editor: a document written by an older version, a migration,
    /// or normalization filling a missing default.
    case imported
    /// The extension: the popup, or a seed-000 toggle.
    case `extension`
    /// The containing app.
    case app

    var rank: Int {
        switch self {
        case .imported: 0
        case .extension: 1
        case .app: 2
        }
    }

    public static func < (a: EditOrigin, b: EditOrigin) -> Bool { a.rank < b.rank }
}

/// When and by whom a field last changed. Merging keeps, per field, the change with the greater
/// stamp: the later user action wins; at equal times the higher-ranked origin wins, then the
/// higher edit number. An edit's time is the time of the user's action, carried with the edit.
public struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var at: EpochMillis
    public var origin: EditOrigin
    /// The editor's own sequence number for the edit (its outbox or save counter); 0 when unknown.
    public var edit: UInt64

    public init(at: EpochMillis, origin: EditOrigin = .imported, edit: UInt64 = 0) {
        self.at = at
        self.origin = origin
        self.edit = edit
    }

    public static func < (a: Stamp, b: Stamp) -> Bool {
        if a.at != b.at { return a.at < b.at }
        if a.origin != b.origin { return a.origin < b.origin }
        return a.edit < b.edit
    }

    public var description: String { "\(at)/\(origin.rawValue)/\(edit)" }
}
