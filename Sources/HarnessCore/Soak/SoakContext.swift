#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings
import Synchronization

/// What every part of a soak shares: where the executables and files are, the clock, the log,
/// the user's edits, the run's seed, and the group that kills every child at the end.
final class SoakContext: Sendable {
    let executables: ProcessExecutables
    let files: SoakFiles
    let seed: UInt64
    /// Known bugs switched on in every process, by name.
    let flaws: [String]
    let clock = SoakClock()
    let log: SoakLog
    let edits = SoakEdits()
    let group = ChildGroup()
    private let over = Atomic<Bool>(false)

    init(executables: ProcessExecutables, files: SoakFiles, seed: UInt64, flaws: Set<Flaw> = []) {
        self.executables = executables
        self.files = files
        self.seed = seed
        self.flaws = flaws.map(\.rawValue).sorted()
        log = SoakLog(clock: clock)
    }

    /// Whether the user, the app's user and the faults have stopped, for healing.
    var timeIsUp: Bool { over.load(ordering: .relaxed) }

    func endTime() { over.store(true, ordering: .relaxed) }

    /// A process died: invariant 1 at that moment, before anything can repair the files. A
    /// death the soak did not cause is a violation itself (invariant 18): an exit, a signal, or
    /// a SIGKILL the soak did not send (the system's, out of memory).
    func died(_ child: SoakChild, _ status: ChildProcess.ExitStatus) {
        if !child.wasKilled || status != .signaled(SIGKILL) {
            log.violation("\(child.label) died without a cause: it \(status) (invariant 18)")
        }
        checkFiles(when: "\(child.label) died")
    }

    func checkFiles(when event: String) {
        for problem in files.torn() { log.violation("\(problem) when \(event) (invariant 1)") }
    }
}
