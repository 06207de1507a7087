import SiteSettings
import Synchronization

/// What a soak counts as it runs, from every thread: operations by kind, faults, the lock waits
/// the processes reported, and violations, each kept with the operations around it so that it
/// can be read without a trace (a free run has no replayable one).
package final class SoakLog: Sendable {
    /// A broken property, with the operations just before and after it.
    package struct Violation: Sendable {
        let message: String
        /// Milliseconds since the run began.
        let at: EpochMillis
        let before: [String]
        fileprivate(set) var after: [String]
    }

    /// What the log holds at a moment, for the progress line and the report.
    package struct Counts: Sendable {
        var operations: [String: Int] = [:]
        var faults: [String: Int] = [:]
        /// Microseconds, in the order they were reported.
        var lockWaits: [Int] = []
        package var violations: [Violation] = []

        package var totalOperations: Int { operations.values.reduce(0, +) }
        package var totalFaults: Int { faults.values.reduce(0, +) }
    }

    private struct State {
        var counts = Counts()
        var recent: [String] = []
        var reported: Set<String> = []
    }

    /// How many operations a violation keeps on each side.
    static let context = 12
    private static let recentKept = 64

    private let clock: SoakClock
    private let state = Mutex(State())

    init(clock: SoakClock) { self.clock = clock }

    /// One operation of a process or of the simulated Safari, OS or user: counted by `kind`,
    /// kept with its time for the context of a violation.
    func operation(_ kind: String, _ detail: String) {
        let line = Trace.relative(clock.elapsed) + " " + detail
        state.withLock { state in
            state.counts.operations[kind, default: 0] += 1
            state.recent.append(line)
            if state.recent.count > Self.recentKept { state.recent.removeFirst(state.recent.count - Self.recentKept) }
            for index in state.counts.violations.indices where state.counts.violations[index].after.count < Self.context {
                state.counts.violations[index].after.append(line)
            }
        }
    }

    /// A moment worth seeing beside the operations (healing begins), not counted as one.
    func note(_ detail: String) {
        let line = Trace.relative(clock.elapsed) + " " + detail
        state.withLock { $0.recent.append(line) }
    }

    /// A fault the soak made: a kill, an unload, a restart.
    func fault(_ kind: String, _ detail: String) {
        state.withLock { $0.counts.faults[kind, default: 0] += 1 }
        operation("fault", detail)
    }

    func lockWaits(_ micros: [Int]) {
        guard !micros.isEmpty else { return }
        state.withLock { $0.counts.lockWaits += micros }
    }

    /// A broken property; the same message again (a check that keeps failing) is counted once.
    func violation(_ message: String) {
        let at = clock.elapsed
        state.withLock { state in
            guard state.reported.insert(message).inserted else { return }
            let before = Array(state.recent.suffix(Self.context))
            state.counts.violations.append(Violation(message: message, at: at, before: before, after: []))
        }
    }

    var counts: Counts { state.withLock { $0.counts } }
}
