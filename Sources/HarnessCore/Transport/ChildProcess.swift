import Glibc
import ProcessKit
import Synchronization

/// One child process the harness talks to in frames: the harness writes frames to the child's
/// stdin and reads frames from its stdout; its stderr is kept as a 4 KiB tail.
///
/// Spawned with `posix_spawn`, not `Foundation.Process`, which polls in `waitUntilExit`, leaks
/// descriptors into children and passes on the spawning thread's signal mask (PLATFORM.md; see
/// `Spawn`). The child's descriptors 0, 1 and 2 are its own pipes and nothing else of the
/// harness is open in it; it runs in its own process group with an empty signal mask and every
/// signal at its default, SIGPIPE included; the harness ignores SIGPIPE, so writing to a dead
/// child is `FrameError.closed`.
///
/// No child outlives its `ChildProcess`: `deinit` kills the process group and reaps the child
/// if that has not happened yet. Use a `ChildGroup` to tear several down at once on every path
/// out of a run.
///
/// Sendable through locks rather than `@unchecked`: each piece of mutable state sits in its own
/// `Mutex`, so a thread blocked in `receive` holds up neither `send` nor `kill`, and a kill from
/// another thread ends any blocked call (the read sees end of file, the write EPIPE, the wait
/// returns). Reaping happens only under the `reaped` lock, and signals are sent only under it
/// while the child is unreaped, so a signal can never reach another process that was given the
/// pid after the child was reaped.
package final class ChildProcess: Sendable {
    /// How a child ended: it exited with a code, or a signal ended it.
    package struct ExitStatus: Equatable, Sendable, CustomStringConvertible {
        /// The code it passed to `exit` (0-255), or nil if a signal ended it.
        let code: Int32?
        /// The signal that ended it, or nil if it exited.
        let signal: Int32?

        static func exited(_ code: Int32) -> ExitStatus { ExitStatus(code: code, signal: nil) }
        static func signaled(_ signal: Int32) -> ExitStatus { ExitStatus(code: nil, signal: signal) }
        /// Neither is known: something outside `ChildProcess` reaped the child (SIGCHLD set to
        /// be ignored, or a `waitpid(-1)` elsewhere in the process), and its status went with it.
        package static let unknown = ExitStatus(code: nil, signal: nil)

        private init(code: Int32?, signal: Int32?) {
            self.code = code
            self.signal = signal
        }

        /// Decodes a `waitpid` status for a child that has ended. WIFEXITED and friends are
        /// macros that Swift does not import, hence the bit fiddling.
        init(waitStatus status: Int32) {
            if status & 0x7f == 0 {
                self = .exited((status >> 8) & 0xff)
            } else {
                // The 0x80 bit says whether a core was dumped; the signal is the low 7 bits.
                self = .signaled(status & 0x7f)
            }
        }

        package var description: String {
            if let code { return "exited with code \(code)" }
            if let signal { return "ended by signal \(signal)\(Self.names[signal].map { " (\($0))" } ?? "")" }
            return "status unknown: the child was reaped elsewhere"
        }

        private static let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2",
        ]
    }

    /// Why a child could not be started.
    package enum SpawnError: Error, Equatable, CustomStringConvertible {
        /// No pipe for the child's standard descriptors (descriptor table full).
        case pipe(executable: String, errno: Int32)
        /// No thread to drain the child's stderr.
        case thread(executable: String, errno: Int32)
        /// `posix_spawn` failed, `exec` included (no such file, not executable).
        case spawn(executable: String, errno: Int32)

        package var description: String {
            switch self {
            case .pipe(let executable, let code):
                "cannot start \(executable): no pipe: \(Spawn.Errno(code))"
            case .thread(let executable, let code):
                "cannot start \(executable): no thread for its stderr: \(Spawn.Errno(code))"
            case .spawn(let executable, let code):
                "cannot start \(executable): \(Spawn.Errno(code))"
            }
        }
    }

    /// Why a request about the process itself could not be carried out.
    enum StateError: Error, Equatable, CustomStringConvertible {
        /// The child had ended (or ended meanwhile), so it cannot be frozen.
        case notRunning(pid: Int32, status: ExitStatus)

        var description: String {
            switch self {
            case .notRunning(let pid, let status): "child \(pid) is not running: it \(status)"
            }
        }
    }

    let pid: Int32
    let executable: String
    /// The role it plays, whose codec reads its frames (nil: a child outside the protocol).
    let role: WireProtocol.Role?
    /// The largest frame `receive` accepts from this child.
    let replyLimit: Int

    /// The harness's end of the child's stdin, -1 once closed.
    private let input: Mutex<Int32>
    /// Reads the child's stdout; its descriptor is closed in `deinit`, when no call can be using it.
    private let output: Mutex<Output>
    private let outputDescriptor: Int32
    /// The status once reaped.
    private let reaped = Mutex<ExitStatus?>(nil)
    private let stderrDrain: StderrDrain

    /// How long `wait` and `kill` give the stderr thread to read the last bytes after the child
    /// is reaped. It needs microseconds; the bound only matters when a descendant that left the
    /// child's process group still holds stderr open.
    private static let stderrGraceMilliseconds = 1000

    /// Starts `executable` (a path; no search of PATH) with `arguments` and exactly
    /// `environment` as its environment, nothing inherited from the harness, so that runs do
    /// not depend on the machine's variables. `replyLimit` bounds each frame `receive` accepts.
    /// Ignores SIGPIPE in the harness (once, process-wide). On any failure nothing is left
    /// behind: no descriptor, no thread, no process.
    /// With a `role`, the child's first frame must be its `hello` for that role in this
    /// protocol version: `receive` reads and checks it before the first frame it returns.
    package init(executable: String, arguments: [String], environment: [String: String] = [:],
                replyLimit: Int = Framing.replyLimit, role: WireProtocol.Role? = nil) throws(SpawnError) {
        Spawn.ignoreSIGPIPE()
        let stdinPipe: (read: Int32, write: Int32)
        let stdoutPipe: (read: Int32, write: Int32)
        let stderrPipe: (read: Int32, write: Int32)
        switch Spawn.makePipe() {
        case .success(let ends): stdinPipe = ends
        case .failure(let error): throw .pipe(executable: executable, errno: error.code)
        }
        switch Spawn.makePipe() {
        case .success(let ends): stdoutPipe = ends
        case .failure(let error):
            Self.close(stdinPipe.read, stdinPipe.write)
            throw .pipe(executable: executable, errno: error.code)
        }
        switch Spawn.makePipe() {
        case .success(let ends): stderrPipe = ends
        case .failure(let error):
            Self.close(stdinPipe.read, stdinPipe.write, stdoutPipe.read, stdoutPipe.write)
            throw .pipe(executable: executable, errno: error.code)
        }
        // The drain thread starts before the child so that nothing can fail once the child
        // exists: a failed spawn only has to close the write end for the thread to end.
        let drain = StderrDrain(descriptor: stderrPipe.read)
        let threadError = drain.start()
        guard threadError == 0 else {
            Self.close(stdinPipe.read, stdinPipe.write, stdoutPipe.read, stdoutPipe.write, stderrPipe.read, stderrPipe.write)
            throw .thread(executable: executable, errno: threadError)
        }
        let started = Spawn.start(executable: executable, arguments: arguments, environment: environment,
                                  stdin: stdinPipe.read, stdout: stdoutPipe.write, stderr: stderrPipe.write)
        // The child has its own copies (or never started): the harness keeps only its ends, so
        // that the child's exit is end of file on stdout and stderr.
        Self.close(stdinPipe.read, stdoutPipe.write, stderrPipe.write)
        let pid: pid_t
        switch started {
        case .success(let started):
            pid = started
            Self.census.withLock { census in
                census.running.insert(started)
                census.mostAtOnce = max(census.mostAtOnce, census.running.count)
            }
        case .failure(let error):
            Self.close(stdinPipe.write, stdoutPipe.read)
            throw .spawn(executable: executable, errno: error.code)
        }
        Spawn.setNonBlocking(stdinPipe.write)
        self.pid = pid
        self.executable = executable
        self.role = role
        self.replyLimit = replyLimit
        self.input = Mutex(stdinPipe.write)
        self.output = Mutex(Output(reader: FrameReader(descriptor: stdoutPipe.read, limit: replyLimit), awaitedHello: role))
        self.outputDescriptor = stdoutPipe.read
        self.stderrDrain = drain
    }

    deinit {
        signalGroup(SIGKILL)
        _ = waitForExit()
        input.withLock { descriptor in
            if descriptor >= 0 { Glibc.close(descriptor) }
        }
        Glibc.close(outputDescriptor)
    }

    /// Writes one frame to the child's stdin. Over `Framing.requestLimit` is `.tooLarge` and
    /// nothing is written; a child that has closed its stdin or ended, or input already closed
    /// here, is `.closed`. Without a timeout this blocks while the child does not read (a frozen
    /// child with a full pipe) until it reads or is killed. With one, `.timedOut` may leave part
    /// of the frame written: the stream is broken and the child should be killed.
    func send(_ payload: [UInt8], timeoutMilliseconds: Int? = nil) throws(FrameError) {
        guard payload.count <= Framing.requestLimit else {
            throw .tooLarge(length: payload.count, limit: Framing.requestLimit)
        }
        try input.withLock { (descriptor: inout Int32) throws(FrameError) in
            guard descriptor >= 0 else { throw .closed }
            let writer = FrameWriter(descriptor: descriptor)
            if let timeoutMilliseconds {
                try writer.write(payload, timeoutMilliseconds: timeoutMilliseconds)
            } else {
                try writer.write(payload)
            }
        }
    }

    /// The next frame from the child's stdout (at most `replyLimit` bytes), nil at the end of its
    /// output. `.timedOut` keeps a partly received frame for the next call; a frame over the
    /// limit or cut short is reported again by every later call, never read past.
    /// A child started with a role must open with its `hello`: one that does not, or names
    /// another role or version, is `.handshake`, reported again by every later call.
    package func receive(timeoutMilliseconds: Int? = nil) throws(FrameError) -> [UInt8]? {
        try output.withLock { [executable] (output: inout Output) throws(FrameError) -> [UInt8]? in
            guard try output.hello(timeoutMilliseconds, executable: executable) else { return nil }
            return try output.next(timeoutMilliseconds)
        }
    }

    /// Reads the child's `hello` now, unless it was read: true once it came, false when the
    /// output ended first. One that is not the `hello` expected is `.handshake`, as for `receive`.
    func awaitHello(timeoutMilliseconds: Int?) throws(FrameError) -> Bool {
        try output.withLock { [executable] (output: inout Output) throws(FrameError) -> Bool in
            try output.hello(timeoutMilliseconds, executable: executable)
        }
    }

    /// What is wrong with a child's first frame as the `hello` of `role`, or nil.
    static func handshakeProblem(_ frame: [UInt8], role: WireProtocol.Role, executable: String) -> String? {
        let named = "the \(role.rawValue) executable \(executable)"
        guard case .hello(let said, let version)? = try? FromChild.decode(frame, role: role) else {
            return "\(named) did not open with a hello frame: its first frame was \(String(decoding: frame.prefix(200), as: UTF8.self))"
        }
        if version != WireProtocol.version {
            return "\(named) speaks protocol \(version); this harness speaks protocol \(WireProtocol.version)"
        }
        if said != role.rawValue { return "\(named) says it plays the role '\(said.prefix(40))'" }
        return nil
    }

    /// The child's output: its frames, and the `hello` still to be read first.
    private struct Output {
        var reader: FrameReader
        var awaitedHello: WireProtocol.Role?
        /// Set when the first frame was not the `hello` expected.
        var refusal: FrameError?

        /// Reads the `hello` still to be read, if any: false when the output ended first.
        mutating func hello(_ timeoutMilliseconds: Int?, executable: String) throws(FrameError) -> Bool {
            if let role = awaitedHello {
                guard let first = try next(timeoutMilliseconds) else { return false }
                if let problem = ChildProcess.handshakeProblem(first, role: role, executable: executable) {
                    refusal = .handshake(problem)
                }
                awaitedHello = nil
            }
            if let refusal { throw refusal }
            return true
        }

        mutating func next(_ timeoutMilliseconds: Int?) throws(FrameError) -> [UInt8]? {
            if let timeoutMilliseconds { return try reader.next(timeoutMilliseconds: timeoutMilliseconds) }
            return try reader.next()
        }
    }

    /// Closes the child's stdin: it reads end of input once it has read what was sent. Waits
    /// for a `send` in progress. Later sends are `.closed`.
    func closeInput() {
        input.withLock { descriptor in
            if descriptor >= 0 {
                Glibc.close(descriptor)
                descriptor = -1
            }
        }
    }

    /// Stops the child's process group with SIGSTOP and returns once the child is really stopped
    /// (a frozen child reads nothing and answers nothing until `thaw`). Freezing a frozen child
    /// returns at once. Throws `StateError.notRunning` if the child has ended.
    /// Do not race it with `thaw` from another thread: a thaw that lands before the stop is
    /// observed leaves this call waiting for the next stop or the child's end.
    func freeze() throws {
        let sent = reaped.withLock { status in
            guard status == nil else { return false }
            _ = killpg(pid, SIGSTOP)
            _ = Glibc.kill(pid, SIGSTOP)
            return true
        }
        guard sent else { throw StateError.notRunning(pid: pid, status: wait()) }
        // waitid with WNOWAIT sees the stop (or the end) without consuming it, so this can block
        // outside the lock and never reaps: the stop stays visible to a second freeze, and an
        // end is reaped under the lock by `wait`.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WSTOPPED | WEXITED | WNOWAIT) != 0 {
            if errno != EINTR { throw StateError.notRunning(pid: pid, status: wait()) }
        }
        if info.si_code == Int32(CLD_STOPPED) || info.si_code == Int32(CLD_TRAPPED) { return }
        throw StateError.notRunning(pid: pid, status: wait())
    }

    /// Resumes a frozen child's process group with SIGCONT; nothing if it is not frozen or has
    /// ended. No wait for WCONTINUED: the kernel makes stopped threads runnable within the
    /// `kill` call itself, so the child is running when this returns.
    func thaw() {
        signalGroup(SIGCONT)
    }

    /// Ends the child and its process group with SIGKILL, which also ends a frozen child (no
    /// thaw needed), then reaps it. Nothing if it has already been reaped.
    func kill() {
        signalGroup(SIGKILL)
        _ = wait()
    }

    /// Reaps the child, blocking until it ends (a blocking wait in the kernel, no polling), and
    /// returns how it ended; later calls return the same status. A frozen child does not end:
    /// thaw or kill it first. Once the child is reaped, this gives the stderr thread a moment to
    /// read the last of stderr, so that `stderrTail` is complete.
    package func wait() -> ExitStatus {
        let status = waitForExit()
        stderrDrain.waitUntilFinished(milliseconds: Self.stderrGraceMilliseconds)
        return status
    }

    /// Same, but gives up after `timeoutMilliseconds` and returns nil if the child is still
    /// running (or frozen) by then, so that a child that does not exit when told can be killed
    /// instead of hanging the harness. Waits on a pidfd where the kernel has them (no polling);
    /// elsewhere it checks every millisecond.
    package func wait(timeoutMilliseconds: Int) -> ExitStatus? {
        let deadline = Spawn.Deadline(after: timeoutMilliseconds)
        var watch: Int32 = -1
        // Opened under the lock, while the pid is certainly still this child's.
        if let status = reaped.withLock({ status in
            let ended = Self.reap(pid, &status)
            if ended == nil { watch = Spawn.openPidDescriptor(pid) }
            return ended
        }) {
            stderrDrain.waitUntilFinished(milliseconds: Self.stderrGraceMilliseconds)
            return status
        }
        defer { if watch >= 0 { Glibc.close(watch) } }
        while true {
            let left = deadline.remainingMilliseconds
            if watch >= 0 {
                // A pidfd becomes readable when the process ends.
                var entry = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, left) < 0 && errno != EINTR {
                    Glibc.close(watch)
                    watch = -1
                }
            } else if left > 0 {
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
            }
            if let status = reaped.withLock({ status in Self.reap(pid, &status) }) {
                stderrDrain.waitUntilFinished(milliseconds: Self.stderrGraceMilliseconds)
                return status
            }
            if left == 0 { return nil }
        }
    }

    /// True until the child has ended (a frozen child is running). Reaps a child that has ended.
    var isRunning: Bool {
        reaped.withLock { status in Self.reap(pid, &status) == nil }
    }

    /// The last 4 KiB of what the child wrote to stderr so far. A dedicated thread reads stderr
    /// continuously, so a child that writes a lot there never blocks on it.
    var stderrTail: String {
        stderrDrain.tail
    }

    /// Ignores SIGPIPE in this process, once and idempotently, so that writing to a pipe whose
    /// reader has gone is EPIPE (`FrameError.closed`) rather than death. `init` calls it; a
    /// harness that writes to pipes before starting any child calls it first.
    static func ignoreSIGPIPE() {
        Spawn.ignoreSIGPIPE()
    }

    /// Sends `signal` to the child's process group, and to the child itself in case it moved
    /// to another group, unless the child has been reaped. An ended but unreaped child still
    /// holds its pid, so the signal cannot reach a stranger that was given the pid later.
    func signalGroup(_ signal: Int32) {
        reaped.withLock { status in
            guard status == nil else { return }
            _ = killpg(pid, signal)
            _ = Glibc.kill(pid, signal)
        }
    }

    private func waitForExit() -> ExitStatus {
        while true {
            if let status = reaped.withLock({ status in Self.reap(pid, &status) }) { return status }
            // Blocks until the child has ended without reaping it, so that reaping stays under
            // the lock. Any failure (ECHILD: reaped elsewhere) loops back to `reap`, which settles it.
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
        }
    }

    /// The child's status if it has ended (reaping it now if need be), nil while it runs.
    /// Call only with the `reaped` lock held.
    private static func reap(_ pid: pid_t, _ status: inout ExitStatus?) -> ExitStatus? {
        if let status { return status }
        var raw: Int32 = 0
        while true {
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid {
                status = ExitStatus(waitStatus: raw)
                _ = census.withLock { $0.running.remove(pid) }
                return status
            }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            status = .unknown
            _ = census.withLock { $0.running.remove(pid) }
            return status
        }
    }

    /// The children of this process not yet reaped, and the most there were at once: for
    /// measuring the memory of a run (`harness bench memory`).
    package struct Census: Sendable {
        package var running: Set<pid_t> = []
        package var mostAtOnce = 0
    }

    package static let census = Mutex(Census())

    private static func close(_ descriptors: Int32...) {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}

/// Reads a child's stderr to its end on a dedicated thread, keeping the last 4 KiB. A pthread,
/// not a Swift concurrency task: a blocking read on the cooperative pool (2 threads on these
/// machines) starves or deadlocks everything else that runs there, parallel tests included.
///
/// `@unchecked Sendable`: the mutable state is guarded by a pthread mutex, chosen over
/// `Synchronization.Mutex` because the end-of-drain wait needs a condition variable with a timeout.
private final class StderrDrain: @unchecked Sendable {
    static let capacity = 4096

    /// Owned by the thread, which closes it at end of file.
    private let descriptor: Int32
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var bytes: [UInt8] = []
    /// Whether bytes were dropped from the front, so the tail may begin inside a character.
    private var cut = false
    private var finished = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Starts the thread; 0, or the errno of `pthread_create`. The thread keeps the drain alive
    /// until end of file, so it never reads into freed memory.
    func start() -> Int32 {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let code = pthread_create(&thread, nil, { context in
            Unmanaged<StderrDrain>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard code == 0 else {
            Unmanaged<StderrDrain>.fromOpaque(context).release()
            return code
        }
        pthread_detach(thread)
        return 0
    }

    private func run() {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                keep(chunk[..<n])
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(descriptor)
        pthread_mutex_lock(mutex)
        finished = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    private func keep(_ chunk: ArraySlice<UInt8>) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if chunk.count >= Self.capacity {
            bytes = Array(chunk.suffix(Self.capacity))
            cut = true
            return
        }
        bytes.append(contentsOf: chunk)
        if bytes.count > Self.capacity {
            bytes.removeFirst(bytes.count - Self.capacity)
            cut = true
        }
    }

    /// The kept bytes as text, without a character cut in half at the front.
    var tail: String {
        pthread_mutex_lock(mutex)
        var kept = bytes[...]
        let wasCut = cut
        pthread_mutex_unlock(mutex)
        if wasCut {
            // UTF-8 continuation bytes (10xxxxxx) at the front belong to a dropped character.
            while let first = kept.first, first & 0xc0 == 0x80 { kept = kept.dropFirst() }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// Returns once stderr has reached end of file, or after `milliseconds`.
    func waitUntilFinished(milliseconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = deadline.tv_nsec + (milliseconds % 1000) * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !finished {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return }
        }
    }
}
