#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit

/// `harness bench extension`: what a JavaScript background costs beside the built-in one, on
/// real processes: every named scenario played with each, alternating scenario by scenario in
/// every round, and explored schedules per second with each. Its cost model: a background
/// incarnation is a node process (started ahead of need, while the run goes on), so a
/// scenario pays for each incarnation's start that the run could not hide.
enum ExtensionBench {
    static let folder = "Scenarios/extensions/site-settings"

    static func run(runs: Int, rounds: Int) throws(CommandError) {
        guard ExtensionRuntime.installedNode != nil else { throw .invalidInput(ExtensionRuntime.Unavailable.noNode.description) }
        let builtIn = Executables.builtIn
        let javaScript: ProcessExecutables
        switch ExtensionRuntime.background(replacing: builtIn, extension: folder, transport: .process) {
        case .success(let chosen): javaScript = chosen
        case .failure(let reason): throw .invalidInput("\(folder): \(reason)")
        }
        let scenarios = try ScenarioFiles.load(try ScenarioFiles.files([])).filter { scenario in
            !scenario.steps.contains { if case .extensionFolder = $0 { true } else { false } }
        }
        let clock = ContinuousClock()
        // Each scenario's wall time with each background, every round.
        var times: [String: (swift: [Double], javaScript: [Double])] = [:]
        var incarnations = (swift: 0, javaScript: 0)
        for round in 1...rounds {
            var totals = (swift: 0.0, javaScript: 0.0)
            for (index, scenario) in scenarios.enumerated() {
                // Alternate which goes first, so neither always runs on a warmer machine.
                for javaScriptFirst in (index + round).isMultiple(of: 2) ? [true, false] : [false, true] {
                    let directory = "/tmp/harness-bench-extension-\(getpid())"
                    defer { Folder.remove(directory) }
                    let runner = ScenarioRunner(scenario, transport: .process, seed: 1, executables: javaScriptFirst ? javaScript : builtIn, directory: directory)
                    let start = clock.now
                    let outcome: ScenarioRunner.Outcome
                    do { outcome = try runner.run() } catch { throw .invalidInput("\(scenario.name): \(error)") }
                    let seconds = Executables.seconds(clock.now - start)
                    guard outcome.passed else { throw .invalidInput("\(scenario.name) fails with the \(javaScriptFirst ? "JavaScript" : "built-in") background: \(outcome.failures.first ?? "")") }
                    let started = outcome.trace.count { $0.contains(#""type":"started""#) && $0.contains(" background#") }
                    if javaScriptFirst {
                        times[scenario.name, default: ([], [])].javaScript.append(seconds)
                        totals.javaScript += seconds
                        if round == 1 { incarnations.javaScript += started }
                    } else {
                        times[scenario.name, default: ([], [])].swift.append(seconds)
                        totals.swift += seconds
                        if round == 1 { incarnations.swift += started }
                    }
                }
            }
            Terminal.out("  round \(round)/\(rounds): \(scenarios.count) scenarios, built-in \(format(totals.swift)) s, JavaScript \(format(totals.javaScript)) s\n")
        }
        let ratios = times.values.map { BenchCommand.median($0.javaScript) / BenchCommand.median($0.swift) }.sorted()
        let swiftTotal = times.values.reduce(0) { $0 + BenchCommand.median($1.swift) }, javaScriptTotal = times.values.reduce(0) { $0 + BenchCommand.median($1.javaScript) }
        Terminal.out("named scenarios on real processes, the built-in background against \(folder) (median of \(rounds) rounds):\n")
        Terminal.out("  built-in: \(format(swiftTotal)) s for \(scenarios.count) scenarios, \(format(swiftTotal / Double(scenarios.count) * 1000, places: 1)) ms each, \(incarnations.swift) background incarnations\n")
        Terminal.out("  JavaScript: \(format(javaScriptTotal)) s, \(format(javaScriptTotal / Double(scenarios.count) * 1000, places: 1)) ms each, \(incarnations.javaScript) background incarnations\n")
        Terminal.out("  ratio of the totals \(format(javaScriptTotal / swiftTotal))x; per scenario: median \(format(BenchCommand.median(ratios)))x, "
                     + "fastest \(format(ratios.first ?? 0))x, slowest \(format(ratios.last ?? 0))x\n")

        // Explored schedules per second, one worker each, alternating.
        var rates = (swift: [Double](), javaScript: [Double]())
        for round in 1...rounds {
            for javaScriptFirst in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                var explorer = Explorer(transport: .process, executables: javaScriptFirst ? javaScript : builtIn, directory: "/tmp/harness-bench-extension-explore-\(getpid())")
                explorer.extensionFolder = javaScriptFirst ? folder : nil
                let start = clock.now
                let session = ExploreSession.parallel(explorer, workers: 1, seed: { $0 < runs ? UInt64($0 + 1) : nil }, ran: { _, _ in })
                let seconds = Executables.seconds(clock.now - start)
                if !session.failures.isEmpty { throw .invalidInput("seed \(session.failures[0].seed) failed: \(session.failures[0].message)") }
                if javaScriptFirst { rates.javaScript.append(Double(runs) / seconds) } else { rates.swift.append(Double(runs) / seconds) }
                Terminal.out("  round \(round)/\(rounds): explore, \(javaScriptFirst ? "JavaScript" : "built-in"): \(runs) schedules in \(format(seconds)) s\n")
            }
        }
        let swiftRate = BenchCommand.median(rates.swift), javaScriptRate = BenchCommand.median(rates.javaScript)
        Terminal.out("explored schedules on real processes, one worker (median of \(rounds) rounds):\n")
        Terminal.out("  built-in \(format(swiftRate)) schedules/s, JavaScript \(format(javaScriptRate)) schedules/s, \(format(swiftRate / javaScriptRate))x slower\n")
    }

    private static func format(_ value: Double, places: Int = 2) -> String { BenchCommand.format(value, places: places) }
}
