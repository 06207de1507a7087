import SiteSettings

/// Extension storage on a simulated disk: one folder per Safari profile.
public struct SimulatedExtensionFolder: ExtensionFiles, Sendable {
    /// The default profile's folder.
    public static let folder = "extension-storage/"
    public let disk: SimulatedDisk
    /// This profile's folder on the disk (`extension-storage/` for the default profile).
    public let location: String
    /// The disk's generation when the process started: after a power cut it does nothing more.
    private let generation: Int

    public init(disk: SimulatedDisk, location: String = Self.folder) {
        self.disk = disk
        self.location = location
        generation = disk.generation
    }

    private func powered() throws(StoreError) { try disk.ensurePowered(since: generation) }

    public func read(_ name: String) throws(StoreError) -> [UInt8]? {
        try powered()
        return disk.read(location + name)
    }

    public mutating func writeSynced(_ bytes: [UInt8], as name: String) throws(StoreError) {
        try powered()
        disk.write(location + name, bytes)
        disk.sync(location + name)
    }

    public mutating func rename(_ name: String, to target: String) throws(StoreError) {
        try powered()
        if !disk.rename(location + name, to: location + target) { throw StoreError("rename \(target)", errno: 2) }
        disk.syncDirectory(location)
    }
}
