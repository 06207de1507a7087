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
        }
    }
}

/// Reads frames from a descriptor it does not own (it never closes it).
///
/// Input is buffered: bytes read past the current frame wait for the next call, and a frame
/// that is only partly there when a timeout strikes stays buffered, so a timeout never loses or
/// splits a frame and the reader stays usable after it. A frame over the limit or cut short is
/// not skipped: the reader stays at it and reports it again on every later call (end of file
/// on a pipe is final), rather than reading its payload as the next header. A copy of a reader
/// shares the descriptor but not the buffer: use one reader per stream.
public struct FrameReader: Sendable {
    public let descriptor: Int32
    public let limit: Int

    /// Bytes read from the descriptor; `storage[head..<tail]` are not yet part of a returned frame.
    private var storage: [UInt8] = []
    private var head = 0
    private var tail = 0

    /// Bytes asked of each `read` when not waiting for a large payload.
    private static let chunk = 64 << 10
    /// Above this the buffer is released once empty, so that one large frame does not pin its
    /// size for the life of the process.
    private static let retained = (1 << 20) + chunk

    public init(descriptor: Int32, limit: Int) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next frame's payload, or nil at a clean end of input (end of file exactly between frames).
    /// Blocks until the frame is complete; retries EINTR.
    public mutating func next() throws(FrameError) -> [UInt8]? {
        try next(until: nil)
    }

    /// Same, but gives up with `.timedOut` once `timeoutMilliseconds` have passed without a
    /// complete frame (0 takes only what is already there). The partial frame stays buffered.
    public mutating func next(timeoutMilliseconds: Int) throws(FrameError) -> [UInt8]? {
        try next(until: FrameClock.Deadline(after: timeoutMilliseconds))
    }

    private mutating func next(until deadline: FrameClock.Deadline?) throws(FrameError) -> [UInt8]? {
        guard try fill(Framing.headerSize, until: deadline) else {
            if tail == head { return nil }
            throw .truncatedHeader(received: tail - head)
        }
        let length = storage.withUnsafeBytes { bytes in
            Int(bytes[head]) | Int(bytes[head + 1]) << 8 | Int(bytes[head + 2]) << 16 | Int(bytes[head + 3]) << 24
        }
        // Checked before a byte of the payload is waited for or allocated.
        guard length <= limit else { throw .tooLarge(length: length, limit: limit) }
        let frameSize = Framing.headerSize + length
        guard try fill(frameSize, until: deadline) else {
            throw .truncatedPayload(expected: length, received: tail - head - Framing.headerSize)
        }
        let payload = Self.copy(storage, from: head + Framing.headerSize, count: length)
        head += frameSize
        if head == tail {
            head = 0
            tail = 0
            if storage.count > Self.retained { storage = [] }
        }
        return payload
    }

    /// Reads until at least `count` unreturned bytes are buffered. False at end of input first.
    private mutating func fill(_ count: Int, until deadline: FrameClock.Deadline?) throws(FrameError) -> Bool {
        while tail - head < count {
            makeRoom(for: count)
            if let deadline { try FrameClock.waitUntilReady(descriptor, for: Int16(POLLIN), until: deadline) }
            let (fd, start) = (descriptor, tail)
            let n = storage.withUnsafeMutableBytes { bytes in
                read(fd, bytes.baseAddress! + start, bytes.count - start)
            }
            if n > 0 {
                tail += n
            } else if n == 0 {
                return false
            } else {
                let code = errno
                switch code {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    // A non-blocking descriptor: wait for input like a blocking read would.
                    try FrameClock.waitUntilReady(descriptor, for: Int16(POLLIN), until: deadline ?? .never)
                default:
                    throw .io(errno: code)
                }
            }
        }
        return true
    }

    /// Ensures space after `tail` for the rest of a `count`-byte frame, and at least one chunk.
    private mutating func makeRoom(for count: Int) {
        let wanted = max(count - (tail - head), Self.chunk)
        if storage.count - tail >= wanted { return }
        if head > 0 {
            let (from, length) = (head, tail - head)
            storage.withUnsafeMutableBytes { bytes in
                let base = bytes.baseAddress!
                _ = memmove(base, base + from, length)
            }
            tail = length
            head = 0
        }
        if storage.count - tail < wanted {
            storage = Self.copy(storage, from: 0, count: tail, capacity: tail + wanted)
        }
    }

    /// `count` bytes of `source` from `start` in a new array of `capacity` bytes (zeros after
    /// the copy). Done with memcpy and memset: the generic element-wise paths are orders of
    /// magnitude slower in debug builds, which the tests and a debug harness run.
    private static func copy(_ source: [UInt8], from start: Int, count: Int, capacity: Int? = nil) -> [UInt8] {
        let size = capacity ?? count
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            guard let target = buffer.baseAddress else { return }
            source.withUnsafeBytes { bytes in
                if count > 0 { _ = memcpy(target, bytes.baseAddress! + start, count) }
            }
            if size > count { _ = memset(target + count, 0, size - count) }
            initialized = size
        }
    }
}

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

/// Deadlines on the monotonic clock and `poll` for the timed reads and writes.
enum FrameClock {
    struct Deadline {
        /// The timeout as asked, for the error message.
        let milliseconds: Int
        /// Monotonic nanoseconds, or nil for no deadline.
        let instant: Int?

        static let never = Deadline(milliseconds: -1, instant: nil)

        init(after milliseconds: Int) {
            self.milliseconds = milliseconds
            let delta = milliseconds > Int.max / 1_000_000 ? Int.max : max(milliseconds, 0) * 1_000_000
            let (sum, overflow) = FrameClock.nowNanoseconds().addingReportingOverflow(delta)
            // A deadline past the end of the clock is no deadline.
            instant = overflow ? nil : sum
        }

        private init(milliseconds: Int, instant: Int?) {
            self.milliseconds = milliseconds
            self.instant = instant
        }

        /// Milliseconds left, rounded up so that a poll never returns before the deadline; -1 for none.
        var remaining: Int32 {
            guard let instant else { return -1 }
            let left = instant - FrameClock.nowNanoseconds()
            if left <= 0 { return 0 }
            return Int32(clamping: (left + 999_999) / 1_000_000)
        }
    }

    /// The monotonic clock, read only for wall-time limits on reading and writing frames (and
    /// for a free-running lock's wait, which the soak reports): I/O measuring itself, never an
    /// input to a state machine. Only the harness's side of a pipe asks for a deadline; a
    /// child's `WireGate` reads without one.
    static func nowNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    /// Returns once `descriptor` is ready for `events` (or has an error or hang-up for the next
    /// read or write to report); throws `.timedOut` at the deadline.
    static func waitUntilReady(_ descriptor: Int32, for events: Int16, until deadline: Deadline) throws(FrameError) {
        while true {
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let n = poll(&entry, 1, deadline.remaining)
            if n > 0 {
                if entry.revents & Int16(POLLNVAL) != 0 { throw .io(errno: EBADF) }
                return
            }
            if n == 0 {
                // poll may wake a little early by the kernel's reckoning: only a passed deadline counts.
                if deadline.remaining == 0 { throw .timedOut(milliseconds: deadline.milliseconds) }
                continue
            }
            let code = errno
            if code != EINTR { throw .io(errno: code) }
        }
    }

    /// strerror's text with a lower-case first letter, to fit lower-case messages.
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        let message = String(cString: text)
        guard let first = message.first else { return message }
        return first.lowercased() + message.dropFirst()
    }
}
