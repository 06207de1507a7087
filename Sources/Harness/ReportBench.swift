#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit

/// `harness bench report`: what a run's page costs. Every named scenario runs once in process
/// (reading the revisions a page shows); then, for --rounds rounds, each page is made and
/// written into a folder with its index. Prints the page of the scenario with the longest trace
/// (its median time to make and write, its size, and its run's own time beside it) and the
/// totals for all of them.
enum ReportBench {
    static func run(rounds: Int) throws(CommandError) {
        let root = "/tmp/harness-bench-report-\(getpid())"
        mkdir(root, 0o755)
        defer { Folder.remove(root) }
        let clock = ContinuousClock()
        let scenarios = try ScenarioFiles.load(try ScenarioFiles.files([]))
        if scenarios.isEmpty { throw .usage("no scenario files found under \(ScenarioFiles.root)/") }
        var runs: [(run: RunPage.Run, runSeconds: Double)] = []
        for (index, scenario) in scenarios.enumerated() {
            let runner = ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: Executables.builtIn, directory: root + "/run-\(index)")
            runner.readsRevisions = true
            let start = clock.now
            let outcome: ScenarioRunner.Outcome
            do { outcome = try runner.run() } catch { throw .invalidInput("\(scenario.name) could not run: \(error)") }
            let seconds = Executables.seconds(clock.now - start)
            Folder.remove(root + "/run-\(index)")
            runs.append((RunPage.Run(scenario: scenario, outcome: outcome, wallSeconds: seconds, settings: "seed 1, transport in-process"), seconds))
        }
        var pageSeconds = [[Double]](repeating: [], count: runs.count)
        var totals: [Double] = []
        var sizes = [Int](repeating: 0, count: runs.count)
        for round in 1...rounds {
            var folder: ReportFolder
            do { folder = try ReportFolder(root + "/pages-\(round)") } catch { throw .invalidInput("\(error)") }
            let roundStart = clock.now
            for (index, entry) in runs.enumerated() {
                let start = clock.now
                let file: String
                do { file = try folder.add(entry.run) } catch { throw .invalidInput("\(error)") }
                pageSeconds[index].append(Executables.seconds(clock.now - start))
                var info = stat()
                if stat(folder.directory + "/" + file, &info) == 0 { sizes[index] = Int(info.st_size) }
            }
            do { try folder.writeIndex(title: "bench") } catch { throw .invalidInput("\(error)") }
            totals.append(Executables.seconds(clock.now - roundStart))
            Terminal.out("  round \(round)/\(rounds): \(runs.count) pages in \(format(totals.last! * 1000)) ms\n")
        }
        let longest = runs.indices.max { runs[$0].run.outcome.trace.count < runs[$1].run.outcome.trace.count }!
        let run = runs[longest]
        Terminal.out("""
            longest trace: \(run.run.scenario.name) (\(run.run.outcome.trace.count) trace lines, \(run.run.scenario.lines.count) steps)
              page made and written (median of \(rounds) rounds): \(format(BenchCommand.median(pageSeconds[longest]) * 1000)) ms, \(format(Double(sizes[longest]) / 1024, places: 1)) KiB; its run in process took \(format(run.runSeconds * 1000)) ms
            all \(runs.count) scenarios (median of \(rounds) rounds): \(format(BenchCommand.median(totals) * 1000)) ms for every page and the index, \(format(Double(sizes.reduce(0, +)) / 1024, places: 0)) KiB in all, largest page \(format(Double(sizes.max() ?? 0) / 1024, places: 1)) KiB

            """)
    }

    private static func format(_ value: Double, places: Int = 2) -> String { BenchCommand.format(value, places: places) }
}
