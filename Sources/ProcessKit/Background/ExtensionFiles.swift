#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// The files behind extension storage: the real file system or a simulated disk.
public protocol ExtensionFiles {
    func read(_ name: String) throws(StoreError) -> [UInt8]?
    /// Creates or truncates `name`, writes `bytes` and flushes them.
    mutating func writeSynced(_ bytes: [UInt8], as name: String) throws(StoreError)
    mutating func rename(_ name: String, to target: String) throws(StoreError)
}
