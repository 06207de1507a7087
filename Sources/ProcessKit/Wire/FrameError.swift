// Only Glibc: this file is linked into processes started once per request, where loading
// Foundation would cost several milliseconds of start-up.
import Glibc

/// Why a frame could not be read or written. Lower-case messages naming the numbers.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// End of input inside the 4 length bytes.
    case truncatedHeader(received: Int)
    /// End of input inside the payload.
    case truncatedPayload(expected: Int, received: Int)
    /// The announced length is over the reader's limit; the reader never allocates it.
    case tooLarge(length: Int, limit: Int)
    /// Writing to a peer that has gone (EPIPE).
    case closed
    case timedOut(milliseconds: Int)
    case io(errno: Int32)
    /// The peer's first frame is not the `hello` of the role and protocol version expected.
    case handshake(String)

    public var description: String {
        switch self {
        case .truncatedHeader(let received):
            "input ended after \(received) of \(Framing.headerSize) length bytes"
        case .truncatedPayload(let expected, let received):
            "input ended after \(received) of \(expected) payload bytes"
        case .tooLarge(let length, let limit):
            "a frame of \(length) bytes is over the limit of \(limit) bytes"
        case .closed:
            "the peer has closed its end"
        case .timedOut(let milliseconds):
            "no complete frame within \(milliseconds) ms"
        case .io(let code):
            "i/o error \(code): \(FrameClock.errorText(code))"
        case .handshake(let problem):
            problem
        }
    }
}
