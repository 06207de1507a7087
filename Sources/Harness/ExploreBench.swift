#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import Synchronization

/// `harness bench explore`: schedules explored per second at the default length, in process,
/// with one worker and with one per core, and guided search with one per core, rounds
/// alternating; medians printed with steps per second. A schedule's cost includes its run, the checks after every step, healing, the
/// oracle and coverage (no failure is expected, so nothing is shrunk).
enum ExploreBench {
    static func run(runs: Int, rounds: Int) throws(CommandError) {
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let explorer = Explorer(executables: Executables.builtIn, directory: "/tmp/harness-bench-explore-\(getpid())")
        let clock = ContinuousClock()
        var rates: [Int: [(schedules: Double, steps: Double)]] = [:]
        var guidedRates: [(schedules: Double, steps: Double)] = []
        for round in 1...rounds {
            for workers in Set([1, cores]).sorted() {
                let start = clock.now
                let session = ExploreSession.parallel(explorer, workers: workers, seed: { $0 < runs ? UInt64($0 + 1) : nil }, ran: { _, _ in })
                let seconds = Executables.seconds(clock.now - start)
                if !session.failures.isEmpty { throw .invalidInput("seed \(session.failures[0].seed) failed: \(session.failures[0].message)") }
                rates[workers, default: []].append((Double(runs) / seconds, Double(session.steps) / seconds))
                Terminal.out("  round \(round)/\(rounds): \(workers) worker(s): \(runs) schedules (\(session.steps) steps) in \(format(seconds)) s\n")
            }
            let start = clock.now
            // Guided search may find what no seed's own schedule shows: it is counted, not shrunk.
            let session = GuidedSearch(batch: 100).explore(explorer, workers: cores, shrinking: false, seed: { $0 < runs ? UInt64($0 + 1) : nil }, ran: { _, _ in })
            let seconds = Executables.seconds(clock.now - start)
            guidedRates.append((Double(runs) / seconds, Double(session.steps) / seconds))
            let failed = session.broken.values.reduce(0) { $0 + $1.seeds }
            Terminal.out("  round \(round)/\(rounds): guided, \(cores) worker(s): \(runs) schedules (\(session.steps) steps, \(session.mutants) mutants, \(failed) failing) in \(format(seconds)) s\n")
        }
        Terminal.out("explore, \(explorer.steps) steps a schedule, in process (median of \(rounds) rounds):\n")
        let single = BenchCommand.median(rates[1]!.map(\.schedules))
        for (workers, measured) in rates.sorted(by: { $0.key < $1.key }) {
            let schedules = BenchCommand.median(measured.map(\.schedules)), steps = BenchCommand.median(measured.map(\.steps))
            Terminal.out("  \(workers) worker(s): \(format(schedules, places: 0)) schedules/s, \(format(steps, places: 0)) steps/s, \(format(schedules / single))x one worker\n")
        }
        let swarm = BenchCommand.median(rates[cores]!.map(\.schedules))
        let guided = BenchCommand.median(guidedRates.map(\.schedules)), guidedSteps = BenchCommand.median(guidedRates.map(\.steps))
        Terminal.out("  guided, \(cores) worker(s): \(format(guided, places: 0)) schedules/s, \(format(guidedSteps, places: 0)) steps/s, \(format(guided / swarm))x swarm\n")
    }

    private static func format(_ value: Double, places: Int = 2) -> String { BenchCommand.format(value, places: places) }
}
