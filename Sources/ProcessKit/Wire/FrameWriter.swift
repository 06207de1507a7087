// Only Glibc: this file is linked into processes started once per request, where loading
// Foundation would cost several milliseconds of start-up.
import Glibc

/// Writes whole frames to a descriptor it does not own: header and payload in one buffer,
/// retrying EINTR and partial writes. A peer that has gone is `.closed` (EPIPE), which needs
/// SIGPIPE ignored in the writing process; with SIGPIPE at its default the write kills it.
public struct FrameWriter: Sendable {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes one frame, blocking until all of it is written.
    public func write(_ payload: [UInt8]) throws(FrameError) {
        try write(payload, until: nil)
    }

    /// Same, but gives up with `.timedOut` when the peer has not taken the whole frame within
    /// `timeoutMilliseconds` (a frozen peer with a full pipe). The timeout holds only for a
    /// non-blocking descriptor: on a blocking one the kernel keeps a large write until it is
    /// done. Part of the frame may be out by then, so after a timeout the stream is broken and
    /// the peer should be dropped.
    public func write(_ payload: [UInt8], timeoutMilliseconds: Int) throws(FrameError) {
        try write(payload, until: FrameClock.Deadline(after: timeoutMilliseconds))
    }

    private func write(_ payload: [UInt8], until deadline: FrameClock.Deadline?) throws(FrameError) {
        guard payload.count <= Int(UInt32.max) else {
            throw .tooLarge(length: payload.count, limit: Int(UInt32.max))
        }
        let frame = Framing.encode(payload)
        var written = 0
        while written < frame.count {
            if let deadline { try FrameClock.waitUntilReady(descriptor, for: Int16(POLLOUT), until: deadline) }
            let (fd, from) = (descriptor, written)
            let n = frame.withUnsafeBytes { bytes in
                Glibc.write(fd, bytes.baseAddress! + from, bytes.count - from)
            }
            if n >= 0 {
                written += n
                continue
            }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EPIPE:
                throw .closed
            case EAGAIN, EWOULDBLOCK:
                try FrameClock.waitUntilReady(descriptor, for: Int16(POLLOUT), until: deadline ?? .never)
            default:
                throw .io(errno: code)
            }
        }
    }
}
