#if canImport(Glibc)
import Glibc
#endif

/// Runs a child program to completion and collects its standard output.
///
/// Spawned with `posix_spawn`, not `Foundation.Process`: on Linux that class polls in
/// `waitUntilExit` (about 50 ms a wait), lets descriptors leak into children, and passes on the
/// spawning thread's blocked signals. Here every pipe is close-on-exec, the child gets default
/// signal handlers and an empty signal mask, its own process group, /dev/null as input, and the
/// parent drains output to end of file before it reaps, so a chatty child cannot deadlock it.
enum Subprocess {
    struct Result {
        var status: Int32
        var output: [UInt8]
    }

    enum Failure: Error, CustomStringConvertible {
        case spawn(String, Int32)
        var description: String {
            switch self {
            case .spawn(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    static func run(_ path: String, _ arguments: [String]) throws(Failure) -> Result {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .spawn(path, errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { if fds[0] >= 0 { close(fds[0]) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        close(fds[1])
        fds[1] = -1
        guard code == 0 else { throw .spawn(path, code) }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n > 0 { output.append(contentsOf: chunk[0..<n]); continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED/WEXITSTATUS are macros Swift does not import: decode by hand.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitStatus, output: output)
    }

    /// The path of the running executable.
    static var currentExecutable: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }
}
