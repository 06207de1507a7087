// Only Glibc: this file is linked into processes started once per request, where loading
// Foundation would cost several milliseconds of start-up.
import Glibc

/// The framing browsers use for native messaging: a 4-byte little-endian unsigned length, then
/// that many bytes of payload. The payload is UTF-8 JSON by convention; framing never looks inside.
public enum Framing {
    public static let headerSize = 4
    /// 1 MiB: the most a native handler may send (browsers' limit for a native reply).
    public static let replyLimit = 1 << 20
    /// 64 MiB: the most anyone sends to a child.
    public static let requestLimit = 64 << 20

    /// The payload behind its length header, in one buffer so that a frame leaves in one write
    /// and a reader never sees a header without the chance of its payload following at once.
    /// A payload of 4 GiB or more cannot be framed and stops the process.
    public static func encode(_ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= Int(UInt32.max), "a payload of \(payload.count) bytes does not fit a 4-byte length")
        let length = UInt32(payload.count)
        var frame: [UInt8] = []
        frame.reserveCapacity(headerSize + payload.count)
        frame.append(UInt8(truncatingIfNeeded: length))
        frame.append(UInt8(truncatingIfNeeded: length >> 8))
        frame.append(UInt8(truncatingIfNeeded: length >> 16))
        frame.append(UInt8(truncatingIfNeeded: length >> 24))
        frame.append(contentsOf: payload)
        return frame
    }
}
