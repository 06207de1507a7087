import Dispatch
import Synchronization

extension ExploreSession {
    /// Runs seeds on `workers` threads, each with its own session: worker w takes runs w,
    /// w + workers, ... while `seed` gives one for the run's number, and `ran` hears of every
    /// run (its finding, if new to that worker, and the runs done so far). The sessions are
    /// added up at the end. With `signatures`, each run's coverage signature is made too.
    package static func parallel(_ explorer: Explorer, workers: Int, replayCheck: Bool = false, digests: Bool = false, signatures: Bool = false,
                                 seed: @escaping @Sendable (Int) -> UInt64?,
                        ran: @escaping @Sendable (Finding?, Int) -> Void) -> ExploreSession {
        let sessions = Mutex<[ExploreSession]>([])
        let done = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var session = ExploreSession(explorer: explorer.folder(suffix: "-\(worker)"), replayCheck: replayCheck)
            if replayCheck { session.processSampleEvery = 50 }
            session.digests = digests
            session.signatures = signatures
            var run = worker
            while let next = seed(run) {
                let finding = session.explore(seed: next)
                run += workers
                ran(finding, done.withLock { $0 += 1; return $0 })
            }
            sessions.withLock { $0.append(session) }
        }
        var total = ExploreSession(explorer: explorer, replayCheck: replayCheck)
        total.digests = digests
        total.signatures = signatures
        for part in sessions.withLock({ $0 }) { total.absorb(part) }
        return total
    }
}
