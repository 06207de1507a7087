#if canImport(Glibc)
import Glibc
#endif

/// The App Group container on the real file system.
///
/// Files: `settings.json` (the document), `settings.json.tmp` (a write in progress),
/// `settings.previous.json` (the last good copy: the document as it was before the latest
/// replace), `settings.damaged-N.json` (documents set aside), `settings.lock` (the lock file),
/// and `group-preferences.json` (the first version's preferences, `{"colorInvertEnabled": …}`).
public struct FileContainer: ContainerStorage {
    public static let documentName = "settings.json"
    public static let temporaryName = "settings.json.tmp"
    public static let previousName = "settings.previous.json"
    public static let lockName = "settings.lock"
    public static let legacyPreferencesName = "group-preferences.json"

    public let directory: String
    /// Free-running (`harness soak`): `lock` waits for the lock as the real extension does,
    /// instead of taking a lock the harness has already granted.
    public let blocking: Bool
    /// One descriptor for the lock file per process: a second `open` would get its own lock.
    private var lockDescriptor: Int32 = -1
    /// Microseconds each blocking `lock` waited, not yet taken by `takeLockWaits`.
    private var lockWaits: [Int] = []

    public init(directory: String, blocking: Bool = false) {
        self.directory = directory
        self.blocking = blocking
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    public mutating func lock() throws(StoreError) {
        if lockDescriptor < 0 {
            lockDescriptor = open(path(Self.lockName), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            if lockDescriptor < 0 { throw StoreError("open lock", errno: errno) }
        }
        guard blocking else {
            // Non-blocking: the harness grants the lock before this runs, so a refusal is a bug
            // to report, not a wait.
            if flock(lockDescriptor, LOCK_EX | LOCK_NB) != 0 { throw StoreError("flock", errno: errno) }
            return
        }
        // The wait is timed on the frames' monotonic clock for the soak's report: an I/O layer
        // measuring itself, never an input to a state machine.
        let start = FrameClock.nowNanoseconds()
        while flock(lockDescriptor, LOCK_EX) != 0 {
            if errno != EINTR { throw StoreError("flock", errno: errno) }
        }
        lockWaits.append((FrameClock.nowNanoseconds() - start) / 1_000)
    }

    public mutating func takeLockWaits() -> [Int] {
        defer { lockWaits = [] }
        return lockWaits
    }

    public mutating func unlock() throws(StoreError) {
        guard lockDescriptor >= 0 else { return }
        if flock(lockDescriptor, LOCK_UN) != 0 {
            let error = StoreError("unlock", errno: errno)
            closeLock()
            throw error
        }
    }

    public mutating func closeLock() {
        guard lockDescriptor >= 0 else { return }
        close(lockDescriptor)
        lockDescriptor = -1
    }

    public func readDocument() throws(StoreError) -> [UInt8]? { try read(Self.documentName) }
    public func readPreviousDocument() throws(StoreError) -> [UInt8]? { try read(Self.previousName) }
    public func readLegacyPreferences() throws(StoreError) -> [UInt8]? { try read(Self.legacyPreferencesName) }

    public mutating func writeTemporary(_ bytes: [UInt8]) throws(StoreError) {
        try FileIO.writeSynced(bytes, to: path(Self.temporaryName), name: Self.temporaryName)
    }

    public mutating func writeDocumentInPlace(_ bytes: [UInt8]) throws(StoreError) {
        try FileIO.writeSynced(bytes, to: path(Self.documentName), name: Self.documentName)
    }

    public mutating func replaceDocument() throws(StoreError) {
        // Keep the current document as the last good copy: a hard link made under a temporary
        // name and renamed, so the previous copy is never half there.
        let previousTemporary = path(Self.previousName + ".tmp")
        unlink(previousTemporary)
        if link(path(Self.documentName), previousTemporary) == 0 {
            if rename(previousTemporary, path(Self.previousName)) != 0 { throw StoreError("keep previous", errno: errno) }
        } else if errno != ENOENT {
            throw StoreError("link previous", errno: errno)
        }
        if rename(path(Self.temporaryName), path(Self.documentName)) != 0 { throw StoreError("rename", errno: errno) }
        try syncDirectory()
    }

    public mutating func setAsideDocument() throws(StoreError) -> String {
        var n = 1
        while true {
            let name = "settings.damaged-\(n).json"
            if access(path(name), F_OK) != 0 {
                if rename(path(Self.documentName), path(name)) != 0 { throw StoreError("set aside", errno: errno) }
                try syncDirectory()
                return name
            }
            n += 1
        }
    }

    private func syncDirectory() throws(StoreError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw StoreError("open directory", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw StoreError("fsync directory", errno: errno) }
    }

    private func read(_ name: String) throws(StoreError) -> [UInt8]? {
        try FileIO.read(path(name), name: name)
    }
}
