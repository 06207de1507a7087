// Only Glibc: this file is linked into processes started once per request, where loading
// Foundation would cost several milliseconds of start-up.
import Glibc

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
