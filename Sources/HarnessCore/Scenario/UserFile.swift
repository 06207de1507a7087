#if canImport(Glibc)
import Glibc
#endif
import ProcessKit

/// Reading a file a user named (a scenario, a document it points at): only a regular file, and
/// only up to a limit, so `/dev/zero`, a FIFO or a huge file is a clear error instead of a hang
/// or an allocation of gigabytes.
package enum UserFile {
    /// Why a file could not be read.
    package enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case missing
        /// A folder, a device, a FIFO or a socket.
        case notRegular
        case tooLarge(limit: Int)
        case system(String)

        package var description: String {
            switch self {
            case .missing: "no such file"
            case .notRegular: "not a regular file"
            case .tooLarge(let limit): "larger than \(limit) bytes"
            case .system(let message): message
            }
        }
    }

    /// The whole file, at most `limit` bytes.
    static func read(_ path: String, limit: Int) throws(Problem) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { throw errno == ENOENT ? .missing : .system(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notRegular }
        guard info.st_size <= limit else { throw .tooLarge(limit: limit) }
        let bytes: [UInt8]
        do { bytes = try FileIO.readToEnd(fd, name: path, limit: limit) } catch { throw .system(String(cString: strerror(error.errno))) }
        // The file may have grown since it was measured.
        if bytes.count > limit { throw .tooLarge(limit: limit) }
        return bytes
    }
}
