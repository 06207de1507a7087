#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// Exit statuses of the process executables.
public enum ChildExit {
    public static let success: Int32 = 0
    /// The harness closed the pipe or a frame could not be read: nothing more can be done.
    public static let harnessGone: Int32 = 75
    /// A usage error on the command line.
    public static let usage: Int32 = 64

    /// Writes a usage line to stderr (descriptor 2; C's `stderr` is unavailable under strict concurrency).
    public static func printUsage(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    /// The arguments `--NAME DIRECTORY`, then optionally `--free` (run straight through, with
    /// no yield frames and a blocking lock), or nil for anything else.
    public static func options(_ arguments: [String], option: String) -> (directory: String, free: Bool)? {
        guard arguments.count >= 2, arguments[0] == option else { return nil }
        switch arguments.dropFirst(2) {
        case []: return (arguments[1], false)
        case ["--free"]: return (arguments[1], true)
        default: return nil
        }
    }
}
