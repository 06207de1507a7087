#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import Synchronization

/// `harness bench explore`: schedules explored per second at the default length, in process,
/// with one worker and with one per core, rounds alternating; medians printed with steps per
/// second. A schedule's cost includes its run, the checks after every step, healing, the
/// oracle and coverage (no failure is expected, so nothing is shrunk).
enum ExploreBench {
    static func run(runs: Int, rounds: Int) throws(CommandError) {
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let explorer = Explorer(executables: Executables.builtIn, directory: "/tmp/harness-bench-explore-\(getpid())")
        let clock = ContinuousClock()
        var rates: [Int: [(schedules: Double, steps: Double)]] = [:]
        for round in 1...rounds {
            for workers in Set([1, cores]).sorted() {
                let start = clock.now
                let session = ExploreSession.parallel(explorer, workers: workers, seed: { $0 < runs ? UInt64($0 + 1) : nil }, ran: { _, _ in })
                let seconds = Executables.seconds(clock.now - start)
                if !session.failures.isEmpty { throw .invalidInput("seed \(session.failures[0].seed) failed: \(session.failures[0].message)") }
                rates[workers, default: []].append((Double(runs) / seconds, Double(session.steps) / seconds))
                Terminal.out("  round \(round)/\(rounds): \(workers) worker(s): \(runs) schedules (\(session.steps) steps) in \(format(seconds)) s\n")
            }
        }
        Terminal.out("explore, \(explorer.steps) steps a schedule, in process (median of \(rounds) rounds):\n")
        let single = BenchCommand.median(rates[1]!.map(\.schedules))
        for (workers, measured) in rates.sorted(by: { $0.key < $1.key }) {
            let schedules = BenchCommand.median(measured.map(\.schedules)), steps = BenchCommand.median(measured.map(\.steps))
            Terminal.out("  \(workers) worker(s): \(format(schedules, places: 0)) schedules/s, \(format(steps, places: 0)) steps/s, \(format(schedules / single))x one worker\n")
        }
    }

    private static func format(_ value: Double, places: Int = 2) -> String { BenchCommand.format(value, places: places) }
}
