import SiteSettings

/// The App Group container in memory, for the in-process transport and for tests. Same file
/// names and the same semantics as `FileContainer`, without a disk.
public struct SimulatedContainer: ContainerStorage, Sendable {
    /// The files by name.
    public var files: [String: [UInt8]] = [:]
    public private(set) var isLocked = false

    public init(files: [String: [UInt8]] = [:]) {
        self.files = files
    }

    public var document: [UInt8]? { files[FileContainer.documentName] }

    public mutating func lock() throws(StoreError) {
        // EWOULDBLOCK: a second holder in one process means the harness granted the lock twice.
        if isLocked { throw StoreError("flock", errno: 11) }
        isLocked = true
    }

    public mutating func unlock() throws(StoreError) { isLocked = false }

    public func readDocument() throws(StoreError) -> [UInt8]? { files[FileContainer.documentName] }
    public func readPreviousDocument() throws(StoreError) -> [UInt8]? { files[FileContainer.previousName] }
    public func readLegacyPreferences() throws(StoreError) -> [UInt8]? { files[FileContainer.legacyPreferencesName] }

    public mutating func writeTemporary(_ bytes: [UInt8]) throws(StoreError) {
        files[FileContainer.temporaryName] = bytes
    }

    public mutating func replaceDocument() throws(StoreError) {
        // ENOENT, as rename(2) reports a missing source.
        guard let temporary = files.removeValue(forKey: FileContainer.temporaryName) else { throw StoreError("rename", errno: 2) }
        if let current = files[FileContainer.documentName] { files[FileContainer.previousName] = current }
        files[FileContainer.documentName] = temporary
    }

    public mutating func setAsideDocument() throws(StoreError) -> String {
        guard let current = files.removeValue(forKey: FileContainer.documentName) else { throw StoreError("set aside", errno: 2) }
        var n = 1
        while files["settings.damaged-\(n).json"] != nil { n += 1 }
        files["settings.damaged-\(n).json"] = current
        return "settings.damaged-\(n).json"
    }
}

/// A yield gate that lets every step proceed, except those a test or scheduler scripts to fail,
/// and records the points in order.
public struct RecordingGate: YieldGate, Sendable {
    public private(set) var points: [YieldPoint] = []
    /// Answers by position: the n-th yield (0-based) fails with the errno given here.
    public var failures: [Int: Int32]

    public init(failures: [Int: Int32] = [:]) {
        self.failures = failures
    }

    public mutating func yield(_ point: YieldPoint) -> YieldAnswer {
        defer { points.append(point) }
        if let errno = failures[points.count] { return .fail(errno: errno) }
        return .proceed
    }
}
