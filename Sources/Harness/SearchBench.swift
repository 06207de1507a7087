#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import Synchronization

/// `harness bench search`: for each catalogued flaw, how many schedules each search runs
/// before one fails with the flaw on, swarm against guided, side by side. Each round starts
/// from its own seed (1, 1000001, 2000001, ...) and both searches run the same seeds in the
/// same batches; a search that finds nothing within --runs schedules counts as more than that.
/// A failure counts only when its schedule passes with the flaw off: it is the flaw's.
/// Medians are printed beside every round's count, and the goals are checked against them.
enum SearchBench {
    /// What guided search must do: find every other flaw within `everyFlaw` schedules, and the
    /// rarest interleaving in the catalogue within `rarest`.
    static let everyFlaw = 2_000
    static let rarest = (flaw: Flaw.timeoutFromTheLastInput, within: 10_000)

    static func run(runs: Int, rounds: Int, flaws: [Flaw], workers: Int) throws(CommandError) {
        let clock = ContinuousClock()
        Terminal.out("search: schedules until the first failure with each flaw on (budget \(runs), \(rounds) rounds from seeds "
                     + (0..<rounds).map { "\(seed(round: $0))" }.joined(separator: ", ") + ", \(workers) workers, batch 100)\n")
        Terminal.out(pad("flaw", 36) + pad("swarm (median; rounds)", 34) + "guided (median; rounds)\n")
        var medians: [Flaw: (swarm: Int?, guided: Int?)] = [:]
        var rates: [Search: (runs: Int, seconds: Double)] = [:]
        for flaw in flaws {
            var found: [Search: [Int?]] = [:]
            for round in 0..<rounds {
                for search in Search.allCases {
                    let start = clock.now
                    let result = firstFailure(flaw: flaw, search: search, from: seed(round: round), budget: runs, workers: workers)
                    let seconds = Executables.seconds(clock.now - start)
                    rates[search, default: (0, 0)].runs += result.ran
                    rates[search, default: (0, 0)].seconds += seconds
                    found[search, default: []].append(result.schedules)
                }
            }
            let swarm = median(found[.swarm]!), guided = median(found[.guided]!)
            medians[flaw] = (swarm, guided)
            Terminal.out(pad(flaw.rawValue, 36) + pad(cell(swarm, found[.swarm]!, budget: runs), 34) + cell(guided, found[.guided]!, budget: runs) + "\n")
        }
        for search in Search.allCases {
            guard let rate = rates[search] else { continue }
            // Failing runs are run again with the flaw off: bench explore measures throughput.
            Terminal.out("\(search.rawValue): \(rate.runs) schedules in \(BenchCommand.format(rate.seconds, places: 1)) s\n")
        }
        let missed = flaws.filter { flaw in flaw != rarest.flaw && medians[flaw]!.guided.map { $0 > everyFlaw } ?? true }
        Terminal.out("goal, every flaw but \(rarest.flaw.rawValue) within \(everyFlaw) schedules (guided median): "
                     + (missed.isEmpty ? "met\n" : "missed for \(missed.map(\.rawValue).joined(separator: ", "))\n"))
        if flaws.contains(rarest.flaw) {
            let guided = medians[rarest.flaw]!.guided
            Terminal.out("goal, \(rarest.flaw.rawValue) within \(rarest.within) schedules (guided median): "
                         + (guided.map { $0 <= rarest.within } == true ? "met\n" : "missed\n"))
        }
    }

    /// The first seed of round `round` (from 0).
    static func seed(round: Int) -> UInt64 { 1 + UInt64(round) * 1_000_000 }

    /// How many schedules `search` ran up to and including the first that failed (nil when
    /// none did within `budget`), and how many it ran in all (whole batches).
    static func firstFailure(flaw: Flaw, search: Search, from first: UInt64, budget: Int, workers: Int) -> (schedules: Int?, ran: Int) {
        let explorer = Explorer(flaws: [flaw], executables: Executables.builtIn, directory: "/tmp/harness-bench-search-\(getpid())")
        let failed = Mutex(false)
        var guided = GuidedSearch(batch: 100)
        guided.search = search
        let session = guided.explore(explorer, workers: workers, shrinking: false, flawsOnly: true, seed: { run in
            // Runs are handed out in order, so every run below a failing one has started.
            run < budget && !failed.withLock { $0 } ? first + UInt64(run) : nil
        }, ran: { finding, _ in
            if finding != nil { failed.withLock { $0 = true } }
        })
        let lowest = session.failures.map(\.seed).min()
        return (lowest.map { Int($0 - first) + 1 }, session.runs)
    }

    /// The median of counts where nil (not found) counts as more than any number.
    static func median(_ counts: [Int?]) -> Int? {
        let sorted = counts.sorted { ($0 ?? .max) < ($1 ?? .max) }
        return sorted[(sorted.count - 1) / 2]
    }

    private static func cell(_ median: Int?, _ rounds: [Int?], budget: Int) -> String {
        func text(_ count: Int?) -> String { count.map(String.init) ?? ">\(budget)" }
        return "\(text(median)); \(rounds.map(text).joined(separator: ", "))"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
