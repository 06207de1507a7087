import Synchronization
import SiteSettings

/// A disk in memory, shared by every process of an in-process run: the App Group container and
/// the extension storage live on it as files named `folder/name`. The container's lock has one
/// holder at a time, named by process; the harness frees it when the holder dies, as `flock`
/// does.
public final class SimulatedDisk: Sendable {
    struct State {
        var files: [String: [UInt8]] = [:]
        var lockHolder: String?
    }

    private let state: Mutex<State>

    public init(files: [String: [UInt8]] = [:]) {
        state = Mutex(State(files: files))
    }

    /// Every file by its full name.
    public var files: [String: [UInt8]] {
        get { state.withLock { $0.files } }
        set { state.withLock { $0.files = newValue } }
    }

    public func read(_ path: String) -> [UInt8]? { state.withLock { $0.files[path] } }
    public func write(_ path: String, _ bytes: [UInt8]?) { state.withLock { $0.files[path] = bytes } }

    /// Frees the lock if `owner` holds it.
    public func releaseLock(heldBy owner: String) {
        state.withLock { if $0.lockHolder == owner { $0.lockHolder = nil } }
    }

    public var lockHolder: String? { state.withLock { $0.lockHolder } }

    func withState<R>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }
}

/// The App Group container on a simulated disk, as one process sees it. Same file names and
/// semantics as `FileContainer`.
public struct SimulatedContainer: ContainerStorage, Sendable {
    public static let folder = "container/"
    public let disk: SimulatedDisk
    /// The process this view belongs to, for the lock.
    public let owner: String

    public init(disk: SimulatedDisk, owner: String) {
        self.disk = disk
        self.owner = owner
    }

    /// A container of its own with these files (by plain name), for tests of one process.
    public init(files: [String: [UInt8]] = [:]) {
        var named: [String: [UInt8]] = [:]
        for (name, bytes) in files { named[Self.folder + name] = bytes }
        self.init(disk: SimulatedDisk(files: named), owner: "process")
    }

    /// The container's files by plain name.
    public var files: [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for (path, bytes) in disk.files where path.hasPrefix(Self.folder) { result[String(path.dropFirst(Self.folder.count))] = bytes }
        return result
    }

    public var document: [UInt8]? { disk.read(Self.folder + FileContainer.documentName) }
    public var isLocked: Bool { disk.lockHolder != nil }

    private func path(_ name: String) -> String { Self.folder + name }

    public mutating func lock() throws(StoreError) {
        let owner = self.owner
        let taken = disk.withState { state -> Bool in
            guard state.lockHolder == nil || state.lockHolder == owner else { return false }
            state.lockHolder = owner
            return true
        }
        // EWOULDBLOCK, as a non-blocking flock reports a lock held elsewhere.
        if !taken { throw StoreError("flock", errno: 11) }
    }

    public mutating func unlock() throws(StoreError) { disk.releaseLock(heldBy: owner) }

    public func readDocument() throws(StoreError) -> [UInt8]? { disk.read(path(FileContainer.documentName)) }
    public func readPreviousDocument() throws(StoreError) -> [UInt8]? { disk.read(path(FileContainer.previousName)) }
    public func readLegacyPreferences() throws(StoreError) -> [UInt8]? { disk.read(path(FileContainer.legacyPreferencesName)) }

    public mutating func writeTemporary(_ bytes: [UInt8]) throws(StoreError) {
        disk.write(path(FileContainer.temporaryName), bytes)
    }

    public mutating func replaceDocument() throws(StoreError) {
        let temporary = path(FileContainer.temporaryName), document = path(FileContainer.documentName)
        let moved = disk.withState { state -> Bool in
            guard let bytes = state.files.removeValue(forKey: temporary) else { return false }
            if let current = state.files[document] { state.files[Self.folder + FileContainer.previousName] = current }
            state.files[document] = bytes
            return true
        }
        // ENOENT, as rename(2) reports a missing source.
        if !moved { throw StoreError("rename", errno: 2) }
    }

    public mutating func setAsideDocument() throws(StoreError) -> String {
        let document = path(FileContainer.documentName)
        let name = disk.withState { state -> String? in
            guard let current = state.files.removeValue(forKey: document) else { return nil }
            var n = 1
            while state.files[Self.folder + "settings.damaged-\(n).json"] != nil { n += 1 }
            state.files[Self.folder + "settings.damaged-\(n).json"] = current
            return "settings.damaged-\(n).json"
        }
        guard let name else { throw StoreError("set aside", errno: 2) }
        return name
    }
}

/// Extension storage on a simulated disk.
public struct SimulatedExtensionFolder: ExtensionFiles, Sendable {
    public static let folder = "extension-storage/"
    public let disk: SimulatedDisk

    public init(disk: SimulatedDisk) {
        self.disk = disk
    }

    public func read(_ name: String) throws(StoreError) -> [UInt8]? { disk.read(Self.folder + name) }

    public mutating func writeSynced(_ bytes: [UInt8], as name: String) throws(StoreError) {
        disk.write(Self.folder + name, bytes)
    }

    public mutating func rename(_ name: String, to target: String) throws(StoreError) {
        let source = Self.folder + name, destination = Self.folder + target
        let moved = disk.withState { state -> Bool in
            guard let bytes = state.files.removeValue(forKey: source) else { return false }
            state.files[destination] = bytes
            return true
        }
        if !moved { throw StoreError("rename \(target)", errno: 2) }
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
