import Glibc
@testable import HarnessCore
import ProcessKit
import Synchronization
import Testing

/// Frames and child processes, one test at a time: the descriptor tests look at the whole
/// process's descriptor table, which a test running alongside would change.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProcessTests {}

extension ProcessTests {
    /// `ChildProcess` and `ChildGroup` against the echo child.
    @Suite struct ChildProcessTests {
        @Test func thousandEchoRoundTrips() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            let times = try await blocking {
                var times: [Double] = []
                for index in 0..<1000 {
                    let payload = Array("{\"seq\":\(index),\"pad\":\"\(String(repeating: "x", count: index % 97))\"}".utf8)
                    let start = Monotonic.now
                    try child.send(payload, timeoutMilliseconds: 5000)
                    let echoed = try child.receive(timeoutMilliseconds: 5000)
                    times.append(Monotonic.now - start)
                    guard echoed == payload else { throw Mismatch(what: "echo \(index)") }
                }
                return times
            }
            #expect(times.count == 1000)
            print("echo round trip: median \(microseconds(median(times))) µs over \(times.count) frames")
        }

        @Test func echoesOneMebibyte() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            let payload = (0..<Framing.replyLimit).map { UInt8(truncatingIfNeeded: $0 % 251) }
            let echoed = try await blocking {
                try child.send(payload, timeoutMilliseconds: 10_000)
                return try child.receive(timeoutMilliseconds: 10_000)
            }
            #expect(echoed?.count == payload.count)
            let same = echoed == payload  // compared outside #expect, which would print 1 MiB
            #expect(same)
        }

        @Test func replyOverTheLimitIsRejected() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            let payload = [UInt8](repeating: 0x61, count: Framing.replyLimit + 1)
            let (first, again) = try await blocking {
                try child.send(payload, timeoutMilliseconds: 10_000)
                return (Result { () throws(FrameError) in try child.receive(timeoutMilliseconds: 5000) },
                        Result { () throws(FrameError) in try child.receive(timeoutMilliseconds: 5000) })
            }
            #expect(first.failure == .tooLarge(length: Framing.replyLimit + 1, limit: Framing.replyLimit))
            #expect(again.failure == first.failure)
        }

        @Test func requestOverTheLimitIsNotSent() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            let huge = [UInt8](repeating: 0, count: Framing.requestLimit + 1)
            #expect(throws: FrameError.tooLarge(length: Framing.requestLimit + 1, limit: Framing.requestLimit)) {
                try child.send(huge, timeoutMilliseconds: 5000)
            }
            #expect(try await ask(child, "still framed") == "still framed")
        }

        @Test func floodOfStderrDoesNotBlockTheChild() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            #expect(try await ask(child, "!stderr 1048576", timeout: 10_000) == "wrote 1048576")
            child.closeInput()
            #expect(try await receiveText(child) == "eof")
            let status = try await blocking { child.wait() }
            #expect(status == .exited(0))
            let tail = child.stderrTail
            #expect(tail == String(repeating: "e", count: 4096 - 14) + "end of stderr\n")
        }

        @Test func exitCodeIsDecoded() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            try child.send(Array("!exit 3".utf8))
            #expect(try await receiveText(child) == nil)
            let status = try await blocking { child.wait() }
            #expect(status == .exited(3))
            #expect(status.code == 3 && status.signal == nil)
            #expect(status.description == "exited with code 3")
            #expect(child.wait() == .exited(3))
            #expect(!child.isRunning)
        }

        @Test func timedWaitGivesUpOnARunningOrFrozenChild() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            let (running, elapsed) = try await blocking {
                let start = Monotonic.now
                return (child.wait(timeoutMilliseconds: 150), Monotonic.now - start)
            }
            #expect(running == nil)
            #expect(elapsed >= 0.15 && elapsed < 5)
            try await blocking { try child.freeze() }
            #expect(try await blocking { child.wait(timeoutMilliseconds: 100) } == nil)
            child.thaw()
            try child.send(Array("!exit 4".utf8))
            let (ended, waited) = try await blocking {
                let start = Monotonic.now
                return (child.wait(timeoutMilliseconds: 10_000), Monotonic.now - start)
            }
            #expect(ended == .exited(4))
            #expect(waited < 5)
            #expect(child.wait(timeoutMilliseconds: 0) == .exited(4))
        }

        @Test func killIsSignalNine() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            #expect(child.isRunning)
            try await blocking { child.kill() }
            #expect(!child.isRunning)
            #expect(child.wait() == .signaled(SIGKILL))
            #expect(child.wait().description == "ended by signal 9 (SIGKILL)")
            #expect(isGone(child.pid))
            child.kill()
            #expect(child.wait() == .signaled(9))
        }

        @Test func frozenChildAnswersOnlyAfterThaw() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            #expect(try await ask(child, "warm up") == "warm up")
            try await blocking { try child.freeze() }
            try await blocking { try child.freeze() }  // a second freeze returns at once
            #expect(child.isRunning)
            try child.send(Array("while frozen".utf8))
            let frozen = try await blocking {
                Result { () throws(FrameError) in try child.receive(timeoutMilliseconds: 300) }
            }
            #expect(frozen.failure == .timedOut(milliseconds: 300))
            child.thaw()
            #expect(try await receiveText(child) == "while frozen")
            // Frozen and thawed again: a stale stop must not make the next freeze return early.
            try await blocking { try child.freeze() }
            try child.send(Array("second round".utf8))
            let again = try await blocking {
                Result { () throws(FrameError) in try child.receive(timeoutMilliseconds: 200) }
            }
            #expect(again.failure == .timedOut(milliseconds: 200))
            child.thaw()
            #expect(try await receiveText(child) == "second round")
        }

        @Test func sendToAFrozenChildWithAFullPipeTimesOut() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            try await blocking { try child.freeze() }
            let result = try await blocking {
                Result { () throws(FrameError) in
                    try child.send([UInt8](repeating: 0x61, count: 1 << 20), timeoutMilliseconds: 200)
                }
            }
            #expect(result.failure == .timedOut(milliseconds: 200))
        }

        @Test func killReapsAFrozenChild() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            try await blocking { try child.freeze() }
            try await blocking { child.kill() }
            #expect(child.wait() == .signaled(SIGKILL))
            #expect(isGone(child.pid))
            #expect(throws: ChildProcess.StateError.notRunning(pid: child.pid, status: .signaled(SIGKILL))) {
                try child.freeze()
            }
        }

        @Test func killFromAnotherThreadEndsABlockedReceive() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            try child.send(Array("!block".utf8))
            async let outcome = blocking {
                let start = Monotonic.now
                let result = Result { () throws(FrameError) in try child.receive(timeoutMilliseconds: 20_000) }
                return (result, Monotonic.now - start)
            }
            try await Task.sleep(for: .milliseconds(100))
            try await blocking { child.kill() }
            let (result, elapsed) = try await outcome
            #expect(try result.get() == nil)
            #expect(elapsed < 10)
        }

        @Test func releasingTheLastReferenceKillsTheChild() async throws {
            let watchdog = Watchdog()
            defer { watchdog.finish() }
            let pid = try await blocking {
                let child = try ChildProcess(executable: echoChildPath, arguments: [])
                watchdog.watch(child.pid)
                try child.send(Array("alive".utf8))
                guard try child.receive(timeoutMilliseconds: 5000) == Array("alive".utf8) else { throw Mismatch(what: "echo") }
                return child.pid
            }
            #expect(isGone(pid))
        }

        @Test func releasingAFrozenChildOnAnErrorPathKillsIt() async throws {
            let watchdog = Watchdog()
            defer { watchdog.finish() }
            let pid = Mutex<Int32>(0)
            await #expect(throws: Mismatch.self) {
                try await blocking {
                    let child = try ChildProcess(executable: echoChildPath, arguments: [])
                    watchdog.watch(child.pid)
                    pid.withLock { $0 = child.pid }
                    try child.freeze()
                    throw Mismatch(what: "an error while the child is frozen")
                }
            }
            let released = pid.withLock { $0 }
            #expect(released > 0)
            #expect(isGone(released))
        }

        @Test func groupTearsDownRunningAndFrozenChildren() async throws {
            let watchdog = Watchdog()
            defer { watchdog.finish() }
            let group = ChildGroup()
            var pids: [Int32] = []
            for _ in 0..<4 {
                let child = try group.spawn(executable: echoChildPath, arguments: [])
                watchdog.watch(child.pid)
                pids.append(child.pid)
                #expect(try await ask(child, "up") == "up")
            }
            let members = group.children
            try await blocking {
                try members[1].freeze()
                try members[3].freeze()
            }
            let statuses = try await blocking { group.killAll() }
            #expect(statuses == Array(repeating: .signaled(SIGKILL), count: 4))
            #expect(group.children.isEmpty)
            for pid in pids { #expect(isGone(pid)) }
            #expect(members.allSatisfy { !$0.isRunning })
        }

        /// The classic leak: the second child inherits the harness's end of the first child's
        /// stdin, so closing it here does not end the first child's input. The receive has a
        /// timeout, so a leak fails the test instead of hanging it.
        @Test func childSeesEndOfInputWhileAnotherChildLives() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let first = try children.spawn()
            let second = try children.spawn()
            #expect(try await ask(first, "one") == "one")
            #expect(try await ask(second, "two") == "two")
            first.closeInput()
            #expect(try await receiveText(first, timeout: 3000) == "eof")
            #expect(try await blocking { first.wait() } == .exited(0))
            #expect(throws: FrameError.closed) { try first.send([1]) }
            second.closeInput()
            #expect(try await receiveText(second, timeout: 3000) == "eof")
        }

        @Test func childHasOnlyItsStandardDescriptors() async throws {
            let children = TestChildren()
            defer { children.finish() }
            // A descriptor of the harness that is not close-on-exec, as Foundation's Pipe makes them.
            var stray: [Int32] = [-1, -1]
            #expect(pipe(&stray) == 0)
            defer { for fd in stray { close(fd) } }
            let child = try children.spawn()
            let sibling = try children.spawn()
            #expect(try await ask(child, "!fds") == "0,1,2")
            #expect(try await ask(sibling, "!fds") == "0,1,2")
        }

        /// Code that spawns without closing descriptors (Foundation's Process, a plain
        /// posix_spawn) must not inherit the pipes of a live child: they are close-on-exec.
        @Test func pipesAreCloseOnExecForOtherSpawners() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            // This process's ends of the child's three pipes, found by the pipes themselves: a
            // before-and-after difference of the descriptor table is disturbed by suites
            // running alongside, which open and close descriptors of their own.
            let childPipes = Set((0...2).compactMap { descriptorTarget("/proc/\(child.pid)/fd/\($0)") })
            let ours = Set(openDescriptors().filter { descriptorTarget("/proc/self/fd/\($0)").map(childPipes.contains) == true })
            #expect(childPipes.count == 3)
            #expect(ours.count >= 3)
            let output = try TestPipe()
            defer { output.closeAll() }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, output.write, 1)
            let argv = [strdup(echoChildPath), strdup("--report-fds"), nil]
            defer { for pointer in argv { free(pointer) } }
            var pid = pid_t()
            #expect(posix_spawn(&pid, echoChildPath, &actions, nil, argv, environ) == 0)
            output.closeWrite()
            let reportingPid = pid
            let report = try await blocking {
                var reader = FrameReader(descriptor: output.read, limit: 4096)
                let report = try reader.next(timeoutMilliseconds: 5000)
                var status: Int32 = 0
                while waitpid(reportingPid, &status, 0) < 0 && errno == EINTR {}
                return report
            }
            let inherited = Set(String(decoding: try #require(report), as: UTF8.self).split(separator: ",").compactMap { Int32($0) })
            #expect(inherited.isSuperset(of: [0, 1, 2]))
            #expect(inherited.isDisjoint(with: ours), "inherited \(inherited.sorted()), the child's pipes are \(ours.sorted())")
            #expect(try await ask(child, "ok") == "ok")
        }

        /// Spawned from a thread that blocks signals, in a harness that ignores SIGPIPE: the
        /// child still starts with an empty mask, nothing ignored, in its own process group.
        @Test func childStartsWithCleanSignalState() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try await blocking {
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, SIGUSR1)
                sigaddset(&blocked, SIGTERM)
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                return try children.spawn()
            }
            var action = sigaction()
            sigaction(SIGPIPE, nil, &action)
            #expect(unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1, "the harness ignores SIGPIPE")
            #expect(try await ask(child, "!info") == "pid=\(child.pid) pgid=\(child.pid) blocked=none ignored=none")
        }

        @Test func writingToAnExitedChildIsClosedNotDeath() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            try child.send(Array("!exit 0".utf8))
            #expect(try await receiveText(child) == nil)
            #expect(try await blocking { child.wait() } == .exited(0))
            // With SIGPIPE at its default this would end the test process.
            #expect(throws: FrameError.closed) { try child.send(Array("anyone there?".utf8)) }
            #expect(throws: FrameError.closed) { try child.send(Array("anyone there?".utf8), timeoutMilliseconds: 100) }
        }

        @Test func sendAfterCloseInputIsClosed() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn()
            child.closeInput()
            child.closeInput()
            #expect(throws: FrameError.closed) { try child.send([1]) }
            #expect(try await receiveText(child) == "eof")
        }

        @Test func failedSpawnNamesTheExecutableAndLeaksNothing() throws {
            let before = openDescriptors().count
            for _ in 0..<100 {
                #expect(throws: ChildProcess.SpawnError.spawn(executable: "/nonexistent/child", errno: ENOENT)) {
                    _ = try ChildProcess(executable: "/nonexistent/child", arguments: [])
                }
            }
            // Each failure would leak six descriptors; allow for anything else in the process.
            #expect(openDescriptors().count - before < 20)
            let error = ChildProcess.SpawnError.spawn(executable: "/nonexistent/child", errno: ENOENT)
            #expect(error.description == "cannot start /nonexistent/child: no such file or directory (errno 2)")
            #expect(throws: ChildProcess.SpawnError.spawn(executable: "/", errno: EACCES)) {
                _ = try ChildProcess(executable: "/", arguments: [])
            }
        }

        @Test func environmentIsExactlyWhatWasGiven() async throws {
            let children = TestChildren()
            defer { children.finish() }
            let child = try children.spawn(environment: ["ECHO_TEST": "1"])
            #expect(try await ask(child, "plain") == "plain")
        }

        /// Start-up cost: spawn, one round trip, end of input, exit, reap.
        @Test func spawnRoundTripExit() async throws {
            let watchdog = Watchdog()
            defer { watchdog.finish() }
            let times = try await blocking {
                var times: [Double] = []
                for _ in 0..<40 {
                    let start = Monotonic.now
                    let child = try ChildProcess(executable: echoChildPath, arguments: [])
                    watchdog.watch(child.pid)
                    try child.send(Array("{\"hello\":1}".utf8), timeoutMilliseconds: 5000)
                    guard try child.receive(timeoutMilliseconds: 5000) == Array("{\"hello\":1}".utf8) else { throw Mismatch(what: "echo") }
                    child.closeInput()
                    guard try child.receive(timeoutMilliseconds: 5000) == Array("eof".utf8) else { throw Mismatch(what: "eof") }
                    guard child.wait() == .exited(0) else { throw Mismatch(what: "exit") }
                    times.append(Monotonic.now - start)
                }
                return times
            }
            print("spawn + round trip + exit: median \(microseconds(median(times))) µs over \(times.count) children")
        }
    }
}

// MARK: - Support for tests with children

struct Mismatch: Error {
    let what: String
}

/// The echo child, built next to the test bundle (`EchoChild` where it is a support target of
/// the project, `echochild` in a package of its own).
let echoChildPath: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let executable = String(decoding: buffer[0..<max(n, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let folder = executable[..<(executable.lastIndex(of: "/") ?? executable.endIndex)]
    for name in ["EchoChild", "echochild"] where access("\(folder)/\(name)", X_OK) == 0 {
        return "\(folder)/\(name)"
    }
    return "\(folder)/echochild"
}()

/// The children of one test: torn down at its end, and killed by a watchdog if the test runs
/// too long, so that a broken `wait` or `freeze` fails the test instead of hanging the run.
final class TestChildren: Sendable {
    private let group = ChildGroup()
    private let watchdog = Watchdog()

    func spawn(environment: [String: String] = [:]) throws -> ChildProcess {
        let child = try group.spawn(executable: echoChildPath, arguments: [], environment: environment)
        watchdog.watch(child.pid)
        return child
    }

    func finish() {
        group.killAll()
        watchdog.finish()
    }
}

/// Kills the processes (and their groups) it watches after `seconds` unless finished first; a
/// kill counts as a failure of the test that finishes it.
final class Watchdog: Sendable {
    private struct State {
        var pids: [Int32] = []
        var finished = false
        var fired = false
    }

    private let state = Mutex(State())

    init(seconds: Double = 30) {
        let deadline = Monotonic.now + seconds
        startThread { [self] in
            while Monotonic.now < deadline {
                if state.withLock({ $0.finished }) { return }
                usleep(20_000)
            }
            state.withLock { state in
                guard !state.finished else { return }
                state.fired = true
                for pid in state.pids {
                    kill(-pid, SIGKILL)
                    kill(pid, SIGKILL)
                }
            }
        }
    }

    func watch(_ pid: Int32) {
        state.withLock { $0.pids.append(pid) }
    }

    func finish() {
        let fired = state.withLock { state in
            state.finished = true
            return state.fired
        }
        if fired { Issue.record("the watchdog had to kill the test's children") }
    }
}

/// True once `pid` names no process at all, not even a zombie: the child was killed and reaped.
func isGone(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}

/// Sends `text` and returns the answer as text (nil at end of output), each step with a timeout.
func ask(_ child: ChildProcess, _ text: String, timeout: Int = 5000) async throws -> String? {
    try await blocking {
        try child.send(Array(text.utf8), timeoutMilliseconds: timeout)
        return try child.receive(timeoutMilliseconds: timeout).map { String(decoding: $0, as: UTF8.self) }
    }
}

func receiveText(_ child: ChildProcess, timeout: Int = 5000) async throws -> String? {
    try await blocking {
        try child.receive(timeoutMilliseconds: timeout).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The descriptors open in this process. Not being able to list them fails the test: an empty
/// set would make a check for leaked descriptors pass without looking.
func openDescriptors() -> Set<Int32> {
    guard let directory = opendir("/proc/self/fd") else {
        Issue.record("cannot list /proc/self/fd: errno \(errno)")
        return []
    }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var found: Set<Int32> = []
    while let entry = readdir(directory) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
        if let fd = Int32(name), fd != own { found.insert(fd) }
    }
    return found
}

/// What a descriptor link in `/proc` names (`pipe:[1234]` for a pipe), or nil when it is gone.
func descriptorTarget(_ link: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let n = readlink(link, &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func microseconds(_ seconds: Double) -> Int {
    Int((seconds * 1e6).rounded())
}
