#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ProcessKit

/// Writing to standard output and error by descriptor (C's `stdout` is not usable under strict
/// concurrency), and reading whole files.
enum Terminal {
    static func out(_ text: String) { write(1, text) }
    static func err(_ text: String) { write(2, text) }

    private static func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// Whether standard output takes colours: a terminal, and `NO_COLOR` not set (no-color.org).
    static let colours: Bool = isatty(1) == 1 && getenv("NO_COLOR").map { String(cString: $0).isEmpty } ?? true

    /// `text` in green (pass) or bold red (fail) when standard output takes colours.
    static func result(_ text: String, passed: Bool) -> String {
        guard colours else { return text }
        return (passed ? "\u{1B}[32m" : "\u{1B}[1;31m") + text + "\u{1B}[0m"
    }

    /// The bytes of a file, or an error naming the file and the reason.
    static func readFile(_ path: String, limit: Int = 64 << 20) throws(CommandError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw .invalidInput("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes: [UInt8]
        do { bytes = try FileIO.readToEnd(fd, name: path, limit: limit) } catch {
            throw .invalidInput("\(path): \(String(cString: strerror(error.errno)))")
        }
        if bytes.count > limit { throw .invalidInput("\(path): larger than \(limit) bytes") }
        return bytes
    }
}

/// A progress line on a terminal, rewritten in place at most ten times a second. Written to a
/// file or a pipe (a CI log), there is none: the command's own lines say what it did.
final class Progress {
    private let onTerminal = isatty(1) == 1
    private let clock = ContinuousClock()
    private var last: ContinuousClock.Instant?
    private var shown = false

    func show(_ text: String) {
        guard onTerminal else { return }
        let now = clock.now
        if let last, now - last < .milliseconds(100) { return }
        last = now
        Terminal.out("\r\u{1B}[K" + text)
        shown = true
    }

    /// Removes the line before other output.
    func clear() {
        guard shown else { return }
        Terminal.out("\r\u{1B}[K")
        shown = false
    }
}
