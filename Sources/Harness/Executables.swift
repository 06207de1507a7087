#if canImport(Glibc)
import Glibc
#endif
import HarnessCore

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

    /// Fails naming the first process executable missing beside the harness (a harness copied
    /// away from its build folder has none), before any process is started.
    static func requireProcesses() throws(CommandError) {
        for name in ["AppProcess", "ExtensionProcess", "NativeHandler"] where access(directory + "/" + name, X_OK) != 0 {
            throw .invalidInput("\(directory)/\(name): \(String(cString: strerror(errno))); the process executables are built beside the harness (swift build), which must run from there")
        }
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
