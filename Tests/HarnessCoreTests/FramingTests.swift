import Glibc
@testable import HarnessCore
import ProcessKit
import Synchronization
import Testing

extension ProcessTests {
    /// Frames through plain pipes: round trips, every way a read can fail, timeouts, EPIPE.
    @Suite struct FramingTests {
        @Test func encodesLittleEndianLength() {
            #expect(Framing.encode([]) == [0, 0, 0, 0])
            #expect(Framing.encode([7, 8]) == [2, 0, 0, 0, 7, 8])
            #expect(Framing.encode([UInt8](repeating: 1, count: 0x1_02_03)).prefix(4) == [0x03, 0x02, 0x01, 0x00])
        }

        @Test func roundTripsEmptySmallAndOneMebibyte() async throws {
            let oneMebibyte = (0..<Framing.replyLimit).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
            let payloads: [[UInt8]] = [[], Array("{\"ok\":true}".utf8), oneMebibyte, [], [0xff]]
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            // The 1 MiB frame is larger than a pipe holds, so the writer runs on its own thread.
            async let written: Void = blocking {
                let writer = FrameWriter(descriptor: pipe.write)
                for payload in payloads { try writer.write(payload) }
                pipe.closeWrite()
            }
            let received = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: Framing.replyLimit)
                var frames: [[UInt8]] = []
                while let frame = try reader.next(timeoutMilliseconds: 10_000) { frames.append(frame) }
                return frames
            }
            try await written
            #expect(received.map(\.count) == payloads.map(\.count))
            let same = received == payloads  // compared outside #expect, which would print 1 MiB
            #expect(same)
        }

        @Test func cleanEndOfInputIsNil() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            try FrameWriter(descriptor: pipe.write).write([1, 2, 3])
            pipe.closeWrite()
            let (first, second, third) = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: 16)
                return (try reader.next(timeoutMilliseconds: 5000), try reader.next(timeoutMilliseconds: 5000), try reader.next())
            }
            #expect(first == [1, 2, 3])
            #expect(second == nil)
            #expect(third == nil)
        }

        @Test func headerCutShort() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            pipe.writeRaw([5, 0])
            pipe.closeWrite()
            let (first, again) = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: 16)
                return (Result { () throws(FrameError) in try reader.next(timeoutMilliseconds: 5000) },
                        Result { () throws(FrameError) in try reader.next() })
            }
            #expect(first.failure == .truncatedHeader(received: 2))
            // The reader stays at the broken frame and reports it again.
            #expect(again.failure == .truncatedHeader(received: 2))
        }

        @Test func payloadCutShort() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            pipe.writeRaw([10, 0, 0, 0, 1, 2, 3])
            pipe.closeWrite()
            let result = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: 16)
                return Result { () throws(FrameError) in try reader.next() }
            }
            #expect(result.failure == .truncatedPayload(expected: 10, received: 3))
        }

        /// A header announcing 4 GiB with no payload behind it and the pipe left open: a reader
        /// that allocated or waited for the payload would time out (or run out of memory); the
        /// right one fails as soon as it has the header.
        @Test func lengthOverLimitFailsRightAfterTheHeader() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            pipe.writeRaw([0xff, 0xff, 0xff, 0xff])
            let (result, elapsed) = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: Framing.replyLimit)
                let start = Monotonic.now
                let result = Result { () throws(FrameError) in try reader.next(timeoutMilliseconds: 3000) }
                return (result, Monotonic.now - start)
            }
            #expect(result.failure == .tooLarge(length: 0xffff_ffff, limit: Framing.replyLimit))
            #expect(elapsed < 1.0)
            #expect(FrameError.tooLarge(length: 4_294_967_295, limit: 1_048_576).description
                == "a frame of 4294967295 bytes is over the limit of 1048576 bytes")
        }

        @Test func limitIsInclusive() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            try FrameWriter(descriptor: pipe.write).write([1, 2, 3, 4])
            let frame = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: 4)
                return try reader.next(timeoutMilliseconds: 5000)
            }
            #expect(frame == [1, 2, 3, 4])
        }

        /// Two header bytes, a timeout, the rest of the header and part of the payload, another
        /// timeout, then the rest: the reader keeps what it has and returns the whole frame.
        @Test func timeoutKeepsPartialFrame() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            let payload = Array("partial frame".utf8)
            let frame = Framing.encode(payload)
            let (firstTimeout, secondTimeout, whole, next) = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: 64)
                pipe.writeRaw(Array(frame[0..<2]))
                let first = Result { () throws(FrameError) in try reader.next(timeoutMilliseconds: 100) }
                pipe.writeRaw(Array(frame[2..<7]))
                let second = Result { () throws(FrameError) in try reader.next(timeoutMilliseconds: 50) }
                pipe.writeRaw(Array(frame[7...]) + Framing.encode([42]))
                let whole = Result { () throws(FrameError) in try reader.next(timeoutMilliseconds: 5000) }
                let next = Result { () throws(FrameError) in try reader.next(timeoutMilliseconds: 5000) }
                return (first, second, whole, next)
            }
            #expect(firstTimeout.failure == .timedOut(milliseconds: 100))
            #expect(secondTimeout.failure == .timedOut(milliseconds: 50))
            #expect(try whole.get() == payload)
            #expect(try next.get() == [42])
        }

        @Test func timeoutWaitsAtLeastItsDuration() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            let elapsed = try await blocking {
                var reader = FrameReader(descriptor: pipe.read, limit: 64)
                let start = Monotonic.now
                _ = try? reader.next(timeoutMilliseconds: 120)
                return Monotonic.now - start
            }
            #expect(elapsed >= 0.12)
            #expect(elapsed < 2.0)
        }

        @Test func writingToAClosedPipeIsClosed() throws {
            ChildProcess.ignoreSIGPIPE()
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            pipe.closeRead()
            // With SIGPIPE at its default this write would end the test process.
            #expect(throws: FrameError.closed) { try FrameWriter(descriptor: pipe.write).write([1]) }
            #expect(FrameError.closed.description == "the peer has closed its end")
        }

        @Test func writeToAFullNonBlockingPipeTimesOut() async throws {
            let pipe = try TestPipe()
            defer { pipe.closeAll() }
            let flags = fcntl(pipe.write, F_GETFL)
            _ = fcntl(pipe.write, F_SETFL, flags | O_NONBLOCK)
            let result = try await blocking {
                Result { () throws(FrameError) in
                    try FrameWriter(descriptor: pipe.write).write([UInt8](repeating: 1, count: 1 << 20), timeoutMilliseconds: 100)
                }
            }
            #expect(result.failure == .timedOut(milliseconds: 100))
        }
    }
}

// MARK: - Support shared by the tests

/// Runs `body` on a thread of its own and waits for it without holding a thread of Swift's
/// cooperative pool: blocking reads and waits there starve or deadlock parallel tests. After
/// `seconds` the wait fails with `TimeLimitExceeded` and leaves the thread behind, so that a
/// broken timeout fails its test instead of hanging the run (Swift Testing's time limit cannot
/// end a wait on a thread that never returns).
func blocking<T: Sendable>(seconds: Double = 60, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let outcome = Outcome(continuation)
        startThread { outcome.resume(with: Result { try body() }) }
        startThread {
            let deadline = Monotonic.now + seconds
            while Monotonic.now < deadline {
                if outcome.isSettled { return }
                usleep(10_000)
            }
            outcome.resume(with: .failure(TimeLimitExceeded(seconds: seconds)))
        }
    }
}

struct TimeLimitExceeded: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "a blocking step took more than \(seconds) s" }
}

/// A continuation resumed by whichever comes first, the body or the time limit.
final class Outcome<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Mutex(continuation)
    }

    var isSettled: Bool { continuation.withLock { $0 == nil } }

    func resume(with result: Result<T, any Error>) {
        let pending = continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }
        pending?.resume(with: result)
    }
}

/// Starts a detached pthread running `body`.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let code = pthread_create(&thread, nil, { context in
        Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }, context)
    precondition(code == 0, "cannot start a thread: errno \(code)")
    pthread_detach(thread)
}

/// A close-on-exec pipe whose ends can be closed early, once each.
final class TestPipe: Sendable {
    let read: Int32
    let write: Int32
    private let open = Mutex((read: true, write: true))

    struct Failure: Error { let errno: Int32 }

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw Failure(errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        (read, write) = (ends[0], ends[1])
    }

    func closeRead() {
        if open.withLock({ ends in defer { ends.read = false }; return ends.read }) { close(read) }
    }

    func closeWrite() {
        if open.withLock({ ends in defer { ends.write = false }; return ends.write }) { close(write) }
    }

    func closeAll() {
        closeRead()
        closeWrite()
    }

    /// Writes bytes as they are, no framing; small writes to a pipe never block. A failure
    /// shows in what the reader gets; it must not stop the process, since a thread left behind
    /// by a timed-out test may write after the test has closed the pipe.
    func writeRaw(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(write, $0.baseAddress, $0.count) }
    }
}

/// Seconds on the monotonic clock.
enum Monotonic {
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension Result {
    /// The error, or nil on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
