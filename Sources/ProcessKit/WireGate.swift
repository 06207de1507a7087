#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// A yield gate for a child process: each yield point becomes a `yield` frame on stdout, and
/// the child blocks until the harness answers `continue` or `fail`. A frame it cannot read gets
/// an `error` frame and is otherwise ignored; if the harness goes away, the child exits.
public struct WireGate: YieldGate {
    private var reader: FrameReader
    private let writer: FrameWriter
    private var seq = 0
    /// The virtual time of the latest frame from the harness.
    public private(set) var now: EpochMillis

    public init(reader: FrameReader, writer: FrameWriter, now: EpochMillis) {
        self.reader = reader
        self.writer = writer
        self.now = now
    }

    /// The next frame from the harness that is a protocol message. A frame that is not gets an
    /// `error` frame back and is skipped; the end of input or an unreadable stream ends the child.
    public mutating func receive() -> ToChild {
        while true {
            let frame: [UInt8]?
            do { frame = try reader.next() } catch {
                send(.error(error.description))
                exit(ChildExit.harnessGone)
            }
            guard let frame else { exit(ChildExit.harnessGone) }
            do {
                let message = try ToChild.decode(frame)
                switch message {
                case .input(_, let now, _, _), .proceed(let now), .fail(_, let now): self.now = now
                }
                return message
            } catch {
                send(.error(error.description))
            }
        }
    }

    public mutating func yield(_ point: YieldPoint) -> YieldAnswer {
        seq += 1
        send(.yield(point, seq: seq))
        while true {
            switch receive() {
            case .proceed:
                return .proceed
            case .fail(let errno, _):
                return .fail(errno: errno)
            case .input:
                send(.error("an input arrived while waiting at yield point '\(point.rawValue)'; ignored"))
            }
        }
    }

    /// Writes a frame; a harness that has gone away ends the child.
    public func send(_ message: FromChild) {
        do { try writer.write(JSONWriter.compact(message.json)) } catch { exit(ChildExit.harnessGone) }
    }
}

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
}
