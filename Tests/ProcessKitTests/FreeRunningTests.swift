import Glibc
import ProcessKit
import SiteSettings
import Synchronization
import Testing

/// What the processes do differently when they run free (`--free`, for `harness soak`): no
/// yield frames, a lock that waits, and the waits reported in the `done` frame.
struct FreeRunningTests {
    @Test func aFreeGatePassesEveryYieldPointWithoutAFrame() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var gate = WireGate(reader: FrameReader(descriptor: -1, limit: 16), writer: FrameWriter(descriptor: ends[1]), free: true, role: .handler)
        for point in YieldPoint.allCases { #expect(gate.yield(point) == .proceed) }
        close(ends[1])
        var reader = FrameReader(descriptor: ends[0], limit: 1 << 16)
        #expect(try reader.next() == nil, "a free gate wrote a frame")
    }

    @Test func lockWaitsTravelInTheDoneFrameOnlyWhenThereAreAny() throws {
        let done = FromChild.done(.handler([.reply(.enabled(true))]), lockWaits: [0, 1250])
        #expect(try FromChild.decode(JSONWriter.compact(done.json), role: .handler) == done)
        let plain = FromChild.done(.handler([]))
        #expect(plain.json == .object(["kind": .string("done"), "directives": .array([])]))
        #expect(throws: WireError.self) {
            try FromChild.decode(Array(#"{"kind": "done", "directives": [], "lockWaits": [-1]}"#.utf8), role: .app)
        }
    }

    @Test func theExecutablesTakeFreeAfterTheirFolder() {
        func read(_ arguments: [String]) -> String {
            ChildExit.options(arguments, option: "--container").map { "\($0.directory) free=\($0.free)" } ?? "usage"
        }
        #expect(read(["--container", "/c"]) == "/c free=false")
        #expect(read(["--container", "/c", "--free"]) == "/c free=true")
        #expect(read(["--container", "/c", "--fre"]) == "usage")
        #expect(read(["--free", "--container", "/c"]) == "usage")
        #expect(read(["--storage", "/s"]) == "usage")
    }

    @Test func aBlockingLockWaitsForTheHolderAndSaysHowLong() throws {
        let folder = "/tmp/free-running-lock-\(getpid())"
        mkdir(folder, 0o755)
        defer {
            unlink(folder + "/" + FileContainer.lockName)
            rmdir(folder)
        }
        var holder = FileContainer(directory: folder, blocking: true)
        try holder.lock()
        #expect(holder.takeLockWaits().count == 1)
        // A second descriptor of the lock file gets its own lock, as another process's would.
        let order = Mutex<[String]>([])
        let waits = Mutex<[Int]>([])
        let waiter = Thread {
            var waiter = FileContainer(directory: folder, blocking: true)
            try? waiter.lock()
            order.withLock { $0.append("waiter locked") }
            try? waiter.unlock()
            waiter.closeLock()
            waits.withLock { $0 = waiter.takeLockWaits() }
        }
        usleep(50_000)
        order.withLock { $0.append("holder unlocks") }
        try holder.unlock()
        holder.closeLock()
        waiter.join()
        #expect(order.withLock { $0 } == ["holder unlocks", "waiter locked"])
        #expect(waits.withLock { $0.count } == 1)
        #expect(holder.takeLockWaits().isEmpty, "waits are handed over once")
    }
}

/// A thread, for a test that must block one side of a lock.
private final class Thread: Sendable {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let handle: pthread_t

    init(_ run: @escaping @Sendable () -> Void) {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        pthread_create(&handle, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        self.handle = handle
    }

    func join() { pthread_join(handle, nil) }
}
