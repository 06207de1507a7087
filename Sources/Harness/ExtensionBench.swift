#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit

/// `harness bench extension`: what a JavaScript background costs beside the built-in one, on
/// real processes: every named scenario played with each, in turn scenario by scenario in every
/// round, and explored schedules per second with each. The JavaScript background runs two ways:
/// each incarnation a context of one node host that the runs share (the default), and each a
/// node process of its own (`--isolated`). Its cost model: a context costs its realm and its
/// scripts' compilation; a process costs node's start too; the launcher opens or starts each
/// next incarnation ahead, while the run goes on, so a scenario pays what the run cannot hide.
enum ExtensionBench {
    static let folder = "Scenarios/extensions/site-settings"

    private struct Variant {
        let name: String
        let executables: ProcessExecutables
        var isJavaScript: Bool { ExtensionRuntime.runs(executables.background) }
        var times: [String: [Double]] = [:]
        var incarnations = 0
        var rates: [Double] = []

        init(_ name: String, _ executables: ProcessExecutables) {
            self.name = name
            self.executables = executables
        }

        var total: Double { times.values.reduce(0) { $0 + BenchCommand.median($1) } }
    }

    static func run(runs: Int, rounds: Int) throws(CommandError) {
        guard ExtensionRuntime.installedNode != nil else { throw .invalidInput(ExtensionRuntime.Unavailable.noNode.description) }
        let builtIn = Executables.builtIn
        var variants = [Variant("built-in", builtIn)]
        for (name, base) in [("JavaScript, contexts of one host", builtIn), ("JavaScript, a process each", builtIn.isolated)] {
            switch ExtensionRuntime.background(replacing: base, extension: folder, transport: .process) {
            case .success(let chosen): variants.append(Variant(name, chosen))
            case .failure(let reason): throw .invalidInput("\(folder): \(reason)")
            }
        }
        let scenarios = try ScenarioFiles.load(try ScenarioFiles.files([])).filter { scenario in
            !scenario.steps.contains { if case .extensionFolder = $0 { true } else { false } }
        }
        let clock = ContinuousClock()
        for round in 1...rounds {
            var totals = [Double](repeating: 0, count: variants.count)
            for (index, scenario) in scenarios.enumerated() {
                // Each goes first in turn, so none always runs on a warmer machine.
                for turn in 0..<variants.count {
                    let which = (index + round + turn) % variants.count
                    let directory = "/tmp/harness-bench-extension-\(getpid())"
                    defer { Folder.remove(directory) }
                    let runner = ScenarioRunner(scenario, transport: .process, seed: 1, executables: variants[which].executables, directory: directory)
                    let start = clock.now
                    let outcome: ScenarioRunner.Outcome
                    do { outcome = try runner.run() } catch { throw .invalidInput("\(scenario.name): \(error)") }
                    let seconds = Executables.seconds(clock.now - start)
                    guard outcome.passed else { throw .invalidInput("\(scenario.name) fails with the \(variants[which].name) background: \(outcome.failures.first ?? "")") }
                    variants[which].times[scenario.name, default: []].append(seconds)
                    totals[which] += seconds
                    if round == 1 { variants[which].incarnations += outcome.trace.count { $0.contains(#""type":"started""#) && $0.contains(" background#") } }
                }
            }
            Terminal.out("  round \(round)/\(rounds): \(scenarios.count) scenarios, " + zip(variants, totals).map { "\($0.name) \(format($1)) s" }.joined(separator: ", ") + "\n")
        }
        Terminal.out("named scenarios on real processes, the built-in background against \(folder) (median of \(rounds) rounds):\n")
        let builtInTimes = variants[0].times
        for variant in variants {
            Terminal.out("  \(variant.name): \(format(variant.total)) s for \(scenarios.count) scenarios, \(format(variant.total / Double(scenarios.count) * 1000, places: 1)) ms each, \(variant.incarnations) background incarnations\n")
            guard variant.isJavaScript else { continue }
            let ratios = variant.times.map { BenchCommand.median($0.value) / BenchCommand.median(builtInTimes[$0.key]!) }.sorted()
            Terminal.out("    against the built-in: ratio of the totals \(format(variant.total / variants[0].total))x; per scenario: median \(format(BenchCommand.median(ratios)))x, "
                         + "fastest \(format(ratios.first ?? 0))x, slowest \(format(ratios.last ?? 0))x\n")
        }

        // Explored schedules per second, one worker each, in turn.
        for round in 1...rounds {
            for turn in 0..<variants.count {
                let which = (round + turn) % variants.count
                var explorer = Explorer(transport: .process, executables: variants[which].executables, directory: "/tmp/harness-bench-extension-explore-\(getpid())")
                explorer.extensionFolder = variants[which].isJavaScript ? folder : nil
                let start = clock.now
                let session = ExploreSession.parallel(explorer, workers: 1, seed: { $0 < runs ? UInt64($0 + 1) : nil }, ran: { _, _ in })
                let seconds = Executables.seconds(clock.now - start)
                if !session.failures.isEmpty { throw .invalidInput("seed \(session.failures[0].seed) failed: \(session.failures[0].message)") }
                variants[which].rates.append(Double(runs) / seconds)
                Terminal.out("  round \(round)/\(rounds): explore, \(variants[which].name): \(runs) schedules in \(format(seconds)) s\n")
            }
        }
        Terminal.out("explored schedules on real processes, one worker (median of \(rounds) rounds):\n")
        let builtInRate = BenchCommand.median(variants[0].rates)
        for variant in variants {
            let rate = BenchCommand.median(variant.rates)
            Terminal.out("  \(variant.name): \(format(rate)) schedules/s" + (variant.isJavaScript ? ", \(format(builtInRate / rate))x slower than the built-in" : "") + "\n")
        }
    }

    private static func format(_ value: Double, places: Int = 2) -> String { BenchCommand.format(value, places: places) }
}
