#if canImport(Glibc)
import Glibc
#endif

/// The two file steps both stores (and the harness, for a run's files) need, with errors naming
/// the step and the errno.
public enum FileIO {
    /// The whole file, or nil when it does not exist.
    public static func read(_ path: String, name: String) throws(StoreError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw StoreError("open \(name)", errno: errno)
        }
        defer { close(fd) }
        return try readToEnd(fd, name: name)
    }

    /// Everything left to read from a descriptor, or, when there is more than `limit`, the
    /// first `limit` bytes and at least one more (the caller sees it was too much).
    public static func readToEnd(_ fd: Int32, name: String, limit: Int = .max) throws(StoreError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError("read \(name)", errno: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Creates or truncates the file, writes all of `bytes` and flushes them to the disk.
    public static func writeSynced(_ bytes: [UInt8], to path: String, name: String) throws(StoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw StoreError("open \(name)", errno: errno) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError("write \(name)", errno: errno)
            }
            offset += n
        }
        if fsync(fd) != 0 { throw StoreError("fsync \(name)", errno: errno) }
    }
}
