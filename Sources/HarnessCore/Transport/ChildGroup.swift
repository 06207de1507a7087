import Glibc
import ProcessKit
import Synchronization

/// The children of one run, torn down together: `killAll` in a `defer` at the end of every run
/// guarantees that no child, frozen ones included, is left behind holding a pipe open (a stopped
/// orphan that holds the test runner's output open hangs CI until its time limit).
///
/// The group keeps its children alive until `killAll` or its own `deinit`, so a child cannot slip
/// out of the teardown by being released early; killing a child that has already ended is harmless.
final class ChildGroup: Sendable {
    private let members = Mutex<[ChildProcess]>([])

    init() {}

    deinit {
        killAll()
    }

    /// Starts a child (see `ChildProcess.init`) and adds it to the group.
    func spawn(executable: String, arguments: [String], environment: [String: String] = [:],
                      replyLimit: Int = Framing.replyLimit) throws(ChildProcess.SpawnError) -> ChildProcess {
        let child = try ChildProcess(executable: executable, arguments: arguments,
                                     environment: environment, replyLimit: replyLimit)
        add(child)
        return child
    }

    /// Adds a child started elsewhere, so that `killAll` ends it too.
    func add(_ child: ChildProcess) {
        members.withLock { $0.append(child) }
    }

    /// Lets a child the caller is done with leave the group (it is reaped when released), so a
    /// long run keeps the pipes of its live children only, not of every child it ever started.
    func remove(_ child: ChildProcess) {
        members.withLock { $0.removeAll { $0 === child } }
    }

    /// The children not yet torn down, in the order they joined.
    var children: [ChildProcess] {
        members.withLock { $0 }
    }

    /// Sends SIGKILL to every child's process group first (so they die in parallel; SIGKILL ends
    /// stopped children without a thaw), then reaps each one. Returns their statuses in the
    /// order they joined and empties the group. Children added meanwhile wait for the next call.
    @discardableResult
    func killAll() -> [ChildProcess.ExitStatus] {
        let doomed = members.withLock { members in
            let all = members
            members = []
            return all
        }
        for child in doomed { child.signalGroup(SIGKILL) }
        return doomed.map { $0.wait() }
    }
}
