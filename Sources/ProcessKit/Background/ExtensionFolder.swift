#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// Extension storage in a folder of the real file system.
public struct ExtensionFolder: ExtensionFiles {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public func read(_ name: String) throws(StoreError) -> [UInt8]? {
        try FileIO.read(directory + "/" + name, name: name)
    }

    public mutating func writeSynced(_ bytes: [UInt8], as name: String) throws(StoreError) {
        try FileIO.writeSynced(bytes, to: directory + "/" + name, name: name)
    }

    /// Renames and flushes the folder, so a confirmed save survives a power loss.
    public mutating func rename(_ name: String, to target: String) throws(StoreError) {
        if Glibc.rename(directory + "/" + name, directory + "/" + target) != 0 { throw StoreError("rename \(target)", errno: errno) }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw StoreError("open storage folder", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw StoreError("fsync storage folder", errno: errno) }
    }
}
