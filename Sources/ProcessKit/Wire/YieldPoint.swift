import SiteSettings

/// The named points inside a container operation where the harness may let the process go on,
/// run another process first, kill it, freeze it, or make the step fail. The one shared
/// executor stops at them, never the storage implementations, so both transports reach the
/// same points.
public enum YieldPoint: String, CaseIterable, Sendable, Hashable {
    case lock
    case read
    case writeTemp = "write-temp"
    case rename
    case unlock
    /// Moving a damaged document aside before recovering.
    case setAside = "set-aside"
    /// The same steps in the background's extension storage.
    case storageRead = "storage-read"
    case storageWriteTemp = "storage-write-temp"
    case storageRename = "storage-rename"

    // Compared and hashed by case, not by the text of the raw value (as they would be by
    // default): the harness counts and looks up arrivals at every step.
    public static func == (a: YieldPoint, b: YieldPoint) -> Bool { a.position == b.position }
    public func hash(into hasher: inout Hasher) { hasher.combine(position) }

    /// Its place in `allCases`.
    public var position: Int {
        switch self {
        case .lock: 0
        case .read: 1
        case .writeTemp: 2
        case .rename: 3
        case .unlock: 4
        case .setAside: 5
        case .storageRead: 6
        case .storageWriteTemp: 7
        case .storageRename: 8
        }
    }
}
