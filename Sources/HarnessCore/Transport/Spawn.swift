import Glibc

/// The process-level plumbing under `ChildProcess`: close-on-exec pipes, `posix_spawn` with a
/// clean signal state and its own process group, SIGPIPE ignored in the harness.
///
/// `posix_spawn`, not `Foundation.Process`: on these machines `Process.waitUntilExit` polls
/// (about 50 ms a wait), `Process` lets the harness's descriptors leak into children (its pipes
/// and internal sockets are not close-on-exec), and a child inherits the blocked signal mask of
/// whatever thread started it. Any of these hung or killed probes (shared PLATFORM.md).
enum Spawn {
    /// A pipe whose two ends are close-on-exec and above 2. `pipe2(O_CLOEXEC)` is not visible
    /// through Glibc, so the flag is set just after `pipe`; the short window in which another
    /// thread's spawn could inherit the ends is closed for our own children by the
    /// close-from-3 file action in `start`. Keeping the ends above 2 means the `dup2` onto
    /// 0, 1 and 2 in the child can never overwrite an end it has yet to duplicate, even in a
    /// harness that runs with a standard descriptor closed.
    static func makePipe() -> Result<(read: Int32, write: Int32), Errno> {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(Errno(errno)) }
        var result: [Int32] = []
        for end in ends {
            if end > 2 {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                result.append(end)
                continue
            }
            let moved = fcntl(end, F_DUPFD_CLOEXEC, Int32(3))
            let code = errno
            close(end)
            guard moved >= 0 else {
                for fd in result { close(fd) }
                if ends[1] != end { close(ends[1]) }
                return .failure(Errno(code))
            }
            result.append(moved)
        }
        return .success((result[0], result[1]))
    }

    /// Sets O_NONBLOCK on the harness's own end of a pipe, so that a write to a frozen child
    /// can time out instead of blocking in the kernel (a pipe end's flags are not shared with
    /// the child's end).
    static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Ignores SIGPIPE in the harness, once for the whole process, so that writing to a dead
    /// child fails with EPIPE instead of killing the harness. Children get SIGPIPE back at its
    /// default through the spawn attributes (an ignored signal would survive `exec`).
    static func ignoreSIGPIPE() {
        _ = sigpipeIgnored
    }

    /// Swift runs a global's initializer once, thread-safely: the idempotence comes for free.
    private static let sigpipeIgnored: Void = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        _ = sigaction(SIGPIPE, &action, nil)
    }()

    /// Starts `executable` with `stdin`, `stdout` and `stderr` as its descriptors 0, 1 and 2
    /// and nothing else open; an empty signal mask and every signal at its default; its own
    /// process group (so that it can be killed with anything it starts, and so that if the
    /// harness dies while the child is stopped, the group is orphaned and the kernel sends it
    /// SIGHUP and SIGCONT, which end it at their defaults); and exactly `environment`, sorted.
    /// `posix_spawn` reports a failed `exec` (no such file, not executable) as its own error,
    /// so a child that could not start never exists.
    static func start(executable: String, arguments: [String], environment: [String: String],
                      stdin: Int32, stdout: Int32, stderr: Int32) -> Result<pid_t, Errno> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Descriptors that some other code in the harness opened without close-on-exec
        // (Foundation's Pipe, for one) must not reach the child either.
        if let addCloseFrom { _ = addCloseFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        return code == 0 ? .success(pid) : .failure(Errno(code))
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later) does not import through
    /// Glibc, so it is looked up at run time; without it the pipes' close-on-exec flags remain.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// A descriptor that becomes readable when `pid` ends (close-on-exec, as pidfds always
    /// are), or -1 where the C library or the kernel has none. `pidfd_open` (glibc 2.36) does not
    /// import through Glibc, so it is looked up at run time.
    static func openPidDescriptor(_ pid: pid_t) -> Int32 {
        guard let pidfdOpen else { return -1 }
        return pidfdOpen(pid, 0)
    }

    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    private static let pidfdOpen: PidfdOpen? = {
        guard let symbol = dlsym(nil, "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: PidfdOpen.self)
    }()

    /// A point on the monotonic clock, for timed waits.
    struct Deadline {
        private let nanoseconds: Int

        init(after milliseconds: Int) {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let delta = milliseconds > Int.max / 1_000_000 ? Int.max : max(milliseconds, 0) * 1_000_000
            let (sum, overflow) = (now.tv_sec * 1_000_000_000 + now.tv_nsec).addingReportingOverflow(delta)
            nanoseconds = overflow ? Int.max : sum
        }

        /// Milliseconds left, rounded up so that a wait never ends before the deadline.
        var remainingMilliseconds: Int32 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = nanoseconds - (now.tv_sec * 1_000_000_000 + now.tv_nsec)
            return left <= 0 ? 0 : Int32(clamping: (left + 999_999) / 1_000_000)
        }
    }

    /// An errno value with its text.
    struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
        let code: Int32
        init(_ code: Int32) { self.code = code }
        /// strerror's text with a lower-case first letter, to fit lower-case messages.
        var description: String {
            guard let text = strerror(code) else { return "errno \(code)" }
            let message = String(cString: text)
            guard let first = message.first else { return "errno \(code)" }
            return first.lowercased() + message.dropFirst() + " (errno \(code))"
        }
    }
}
