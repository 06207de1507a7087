#if canImport(Glibc)
import Glibc
#endif

/// Where the harness and the process executables built beside it are, and file chores of the
/// commands.
enum Executables {
    /// The path of the running executable.
    static var current: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    /// The folder of the running executable, which also holds `AppProcess`, `ExtensionProcess` and `NativeHandler`.
    static var directory: String {
        let path = current
        return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// Removes a folder a command made, and everything in it.
    static func removeTree(_ path: String) {
        guard let directory = opendir(path) else {
            unlink(path)
            return
        }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { unlink(child) }
        }
        closedir(directory)
        rmdir(path)
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
