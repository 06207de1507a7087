import Dispatch
import ProcessKit
import Synchronization

/// How `harness explore` makes its schedules: each seed's own swarm schedule, or guided search.
package enum Search: String, CaseIterable, Sendable {
    case swarm, guided
}

/// Coverage-guided exploration. Runs go in batches of `batch` seeds. Within a batch each seed
/// gets either its own swarm schedule or a mutant (`ScheduleMutator`) of a schedule in the
/// corpus as it stood when the batch began; the seed alone decides which, which parent, and
/// which edits. After the batch the runs are offered to the corpus in seed order, and those
/// whose signature (`CoverageSignature`) holds a feature never seen join it. So the same first
/// seed, shard and batch size give the same schedules however many workers run them; each shard
/// runs a campaign of its own over its seeds.
package struct GuidedSearch: Sendable {
    var batch: Int
    /// `swarm` runs every seed's own schedule through the same batches (to compare the two
    /// searches run for run), with no signatures and no corpus.
    package var search = Search.guided
    /// Of the runs after the first batch, how many in `outOf` are mutants.
    var mutants = 1
    var outOf = 2

    package init(batch: Int = 100) { self.batch = batch }

    /// The schedule of run `seed`, from the corpus as the batch began: a mutant, or the seed's
    /// own swarm schedule.
    func plan(seed: UInt64, explorer: Explorer, corpus: Corpus) -> ExploreSession.Planned {
        func own() -> ExploreSession.Planned {
            let (options, steps) = explorer.schedule(seed: seed)
            return ExploreSession.Planned(seed: seed, options: options, steps: steps, parent: nil)
        }
        guard search == .guided, !corpus.isEmpty else { return own() }
        // Its own stream, apart from the one the seed's swarm schedule draws from.
        var random = SeededRandom(seed: seed ^ 0x6A09_E667_F3BC_C909)
        guard random.chance(mutants, in: outOf) else { return own() }
        let entries = corpus.entries
        let parent = entries[random.below(entries.count)]
        let donor = entries[random.below(entries.count)]
        let mutator = ScheduleMutator(limit: explorer.steps * 2)
        guard let steps = mutator.mutate(parent.steps, donor: donor.steps, seed: seed, random: &random) else { return own() }
        return ExploreSession.Planned(seed: seed, options: parent.options, steps: steps, parent: parent.seed)
    }

    /// Runs seeds batch by batch on `workers` threads, as `ExploreSession.parallel` does for
    /// swarm schedules: `seed` gives each run's seed (nil ends the exploration) and `ran` hears
    /// of every run. The session returned holds the corpus.
    package func explore(_ explorer: Explorer, workers: Int, replayCheck: Bool = false, digests: Bool = false, shrinking: Bool = true,
                         flawsOnly: Bool = false, seed: @escaping @Sendable (Int) -> UInt64?, ran: @escaping @Sendable (Finding?, Int) -> Void) -> ExploreSession {
        let sessions = Mutex((0..<workers).map { worker in
            var session = ExploreSession(explorer: explorer.folder(suffix: "-\(worker)"), replayCheck: replayCheck)
            if replayCheck { session.processSampleEvery = 50 }
            session.digests = digests
            session.signatures = search == .guided
            session.shrinking = shrinking
            session.flawsOnly = flawsOnly
            return session
        })
        var corpus = Corpus()
        let done = Mutex(0)
        var first = 0
        var ended = false
        while !ended {
            let next = Mutex(first)
            let stopped = Mutex(false)
            let offers = Mutex<[(run: Int, seed: UInt64, options: SwarmOptions, steps: [Step], signature: CoverageSignature)]>([])
            let frozen = corpus
            let end = first + batch
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var session = sessions.withLock { $0[worker] }
                while true {
                    let run = next.withLock { next in defer { next += 1 }; return next }
                    guard run < end else { break }
                    guard let seed = seed(run) else {
                        stopped.withLock { $0 = true }
                        break
                    }
                    let planned = plan(seed: seed, explorer: explorer, corpus: frozen)
                    let result = session.explore(seed: seed, planned: planned)
                    if let signature = result.signature {
                        offers.withLock { $0.append((run, seed, planned.options, planned.steps, signature)) }
                    }
                    ran(result.finding, done.withLock { $0 += 1; return $0 })
                }
                sessions.withLock { $0[worker] = session }
            }
            for offer in offers.withLock({ $0 }).sorted(by: { $0.run < $1.run }) {
                corpus.offer(seed: offer.seed, options: offer.options, steps: offer.steps, signature: offer.signature)
            }
            first = end
            ended = stopped.withLock { $0 }
        }
        var total = ExploreSession(explorer: explorer, replayCheck: replayCheck)
        total.digests = digests
        total.signatures = search == .guided
        for part in sessions.withLock({ $0 }) { total.absorb(part) }
        if search == .guided { total.corpus = corpus }
        return total
    }
}
