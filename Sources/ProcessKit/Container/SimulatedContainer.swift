import SiteSettings

/// The App Group container on a simulated disk, as one process sees it. Same file names and
/// semantics as `FileContainer`.
public struct SimulatedContainer: ContainerStorage, Sendable {
    public static let folder = "container/"
    public let disk: SimulatedDisk
    /// The process this view belongs to, for the lock.
    public let owner: String
    /// The disk's generation when the process started: after a power cut it does nothing more.
    private let generation: Int

    public init(disk: SimulatedDisk, owner: String) {
        self.disk = disk
        self.owner = owner
        generation = disk.generation
    }

    private func powered() throws(StoreError) { try disk.ensurePowered(since: generation) }

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
        try powered()
        // EWOULDBLOCK, as a non-blocking flock reports a lock held elsewhere.
        if !disk.takeLock(for: owner) { throw StoreError("flock", errno: 11) }
    }

    public mutating func unlock() throws(StoreError) {
        try powered()
        disk.releaseLock(heldBy: owner)
    }

    public mutating func closeLock() { disk.releaseLock(heldBy: owner) }

    public func readDocument() throws(StoreError) -> [UInt8]? {
        try powered()
        return disk.read(path(FileContainer.documentName))
    }

    public func readPreviousDocument() throws(StoreError) -> [UInt8]? {
        try powered()
        return disk.read(path(FileContainer.previousName))
    }

    public func readLegacyPreferences() throws(StoreError) -> [UInt8]? {
        try powered()
        return disk.read(path(FileContainer.legacyPreferencesName))
    }

    public mutating func writeTemporary(_ bytes: [UInt8]) throws(StoreError) {
        try powered()
        disk.write(path(FileContainer.temporaryName), bytes)
        disk.sync(path(FileContainer.temporaryName))
    }

    public mutating func writeDocumentInPlace(_ bytes: [UInt8]) throws(StoreError) {
        try powered()
        disk.write(path(FileContainer.documentName), bytes)
        disk.sync(path(FileContainer.documentName))
    }

    public mutating func replaceDocument() throws(StoreError) {
        try powered()
        let temporary = path(FileContainer.temporaryName), document = path(FileContainer.documentName)
        // ENOENT, as rename(2) reports a missing source.
        guard disk.read(temporary) != nil else { throw StoreError("rename", errno: 2) }
        if disk.read(document) != nil { disk.link(document, to: path(FileContainer.previousName)) }
        _ = disk.rename(temporary, to: document)
        disk.syncDirectory(Self.folder)
    }

    public mutating func setAsideDocument() throws(StoreError) -> String {
        try powered()
        let document = path(FileContainer.documentName)
        guard disk.read(document) != nil else { throw StoreError("set aside", errno: 2) }
        var n = 1
        while disk.read(path("settings.damaged-\(n).json")) != nil { n += 1 }
        _ = disk.rename(document, to: path("settings.damaged-\(n).json"))
        disk.syncDirectory(Self.folder)
        return "settings.damaged-\(n).json"
    }
}
