#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import SiteSettings

/// `harness run`: plays named scenarios and reports each.
enum RunCommand: HarnessCommand {
    static let name = "run"
    static let abstract = "Run named scenarios and print a table of results."
    static let usage = "harness run [FILE|FOLDER ...] [--all] [--transport process|in-process] [--seed N] [--trace FILE] [--mermaid FILE] [--junit FILE] [--html DIR] [--keep] [--flaw NAME[,NAME...]] [--crash PROCESS@POINT#N] [--power-loss WHERE:KEPT]"
    static let discussion = """
        With no file or --all, runs every scenario under Scenarios/. Prints a line per scenario
        (result, steps, virtual time, wall time), the failures with their trace, and the total
        wall time. --trace writes every run's trace to FILE; --mermaid writes a Mermaid sequence
        diagram of each run (GitHub renders it); --junit writes JUnit XML; --html writes a page
        per run into DIR (a timeline of every process and tab, the steps, the failures, the
        trace) and DIR/index.html listing them; --keep keeps the run folders (the process
        transport's: in process every file is on a simulated disk). --flaw switches on known
        bugs in every process (see 'harness flaws'): the scenarios that catch them fail,
        showing the bug. --crash kills a process the Nth time it
        reaches a yield point (as 'harness sweep' does) and checks only the invariants;
        --power-loss (in process) cuts the power before the Nth flush of the simulated disk
        ('12:none'), when a process reaches a yield point ('handler@rename#2:all') or after the
        last step ('end:mask-5'), keeping none, all, the changes a bit mask names or a seeded
        sample of those not yet flushed, and restarts everything.
        Every file is read and checked before anything runs: a mistake in any of them is
        printed with its file and line, and nothing runs.
        Exit status: 0 when all pass, 1 when any fails, 2 for a usage or scenario-syntax error.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["transport", "seed", "trace", "mermaid", "junit", "html", "flaw", "crash", "power-loss"], flags: ["all", "keep"])
        let transport = try transport(args, default: .process)
        let seed = try seed(args)
        let flaws = try parseFlaws(args.value("flaw"))
        var crashAt: YieldArrival?
        if let text = args.value("crash") {
            guard let arrival = YieldArrival(text) else {
                throw .usage("'--crash' expects PROCESS@POINT#N, as 'handler@rename#2', not '\(text)'")
            }
            crashAt = arrival
        }
        var powerCut: PowerCutPlan?
        if let text = args.value("power-loss") {
            guard let plan = PowerCutPlan(text) else {
                throw .usage("'--power-loss' expects WHERE:KEPT (WHERE a flush number, PROCESS@POINT#N or end; KEPT none, all, mask-N or sample-SEED), as '12:none', not '\(text)'")
            }
            guard transport == .inProcess else { throw .usage("'--power-loss' needs '--transport in-process' (the simulated disk)") }
            powerCut = plan
        }
        let files = try ScenarioFiles.files(args.flag("all") ? [] : args.positionals)
        if files.isEmpty { throw .usage("no scenario files found") }
        let scenarios = try ScenarioFiles.load(files)
        var pages: ReportFolder?
        if let path = args.value("html") {
            guard !path.isEmpty else { throw .usage("'--html' expects the folder to write the pages into") }
            do { pages = try ReportFolder(path) } catch { throw .invalidInput("--html \(path): \(error)") }
        }
        // A page that cannot be written stops the pages, not the run: the other outputs are
        // still written, then the error is reported.
        var pageError: String?
        let settings = "seed \(seed), transport \(transport.rawValue)" + (flaws.isEmpty ? "" : ", flaws \(flaws.map(\.rawValue).sorted().joined(separator: ","))")

        if transport == .process { try Executables.requireProcesses() }
        let executables = Executables.directory
        let clock = ContinuousClock()
        let total = clock.now
        var failed = 0
        var unusable = 0
        var traces: [String] = []
        var diagrams: [String] = []
        var results: [Reports.Result] = []
        Terminal.out(settings + "\n")
        for (index, scenario) in scenarios.enumerated() {
            let directory = "/tmp/harness-run-\(getpid())-\(index)"
            let start = clock.now
            let outcome: ScenarioRunner.Outcome
            do {
                let runner = ScenarioRunner(scenario, transport: transport, seed: seed, executables: executables, directory: directory,
                                             flaws: flaws, crashAt: crashAt, powerCut: powerCut)
                runner.readsRevisions = pages != nil
                outcome = try runner.run()
            } catch {
                // A step that could not run as written (a fault never reached, say): this
                // scenario is a usage error; the others still run.
                if !args.flag("keep") { Folder.remove(directory) }
                unusable += 1
                Terminal.out(Terminal.result("ERROR", passed: false) + "  \(scenario.name)  could not run as written\n")
                Terminal.err("Error: \(error.description)\n")
                results.append(Reports.Result(name: scenario.name, failures: ["usage error: \(error.description)"], wallSeconds: 0))
                pages?.addUnusable(scenario, reason: error.description)
                continue
            }
            if !args.flag("keep") { Folder.remove(directory) }
            let wall = Executables.seconds(clock.now - start) * 1000
            if !outcome.passed { failed += 1 }
            let result = Terminal.result(outcome.passed ? "pass" : "FAIL", passed: outcome.passed)
            Terminal.out("\(result)  \(scenario.name)  \(outcome.steps) steps  \(Double(outcome.virtualTime) / 1000) s virtual  \((wall * 10).rounded() / 10) ms\n")
            // Times in failures and traces count from the run's start, given here once.
            if !outcome.passed { Terminal.out("  times from \(Timestamp.format(outcome.epoch)) (+0.000s)\n") }
            for failure in outcome.failures { Terminal.out(failure + "\n") }
            if args.value("trace") != nil {
                traces.append("# \(scenario.name)\n# times from \(Timestamp.format(outcome.epoch)) (Unix \(outcome.epoch) ms)\n" + outcome.trace.joined(separator: "\n"))
            }
            if args.value("mermaid") != nil {
                diagrams.append("## \(scenario.name)\n\n\(scenario.description)\n\n" + Reports.mermaid(title: scenario.name, trace: outcome.trace))
            }
            results.append(Reports.Result(name: scenario.name, failures: outcome.failures, wallSeconds: wall / 1000))
            do {
                if pageError == nil { try pages?.add(RunPage.Run(scenario: scenario, outcome: outcome, wallSeconds: wall / 1000, settings: settings)) }
            } catch {
                pageError = "--html: \(error)"
            }
        }
        let seconds = Executables.seconds(clock.now - total)
        let errors = unusable == 0 ? "" : ", \(unusable) could not run as written"
        Terminal.out("\(scenarios.count - failed - unusable) passed, \(failed) failed\(errors), \((seconds * 100).rounded() / 100) s wall time\n")
        if let path = args.value("trace") { try save(traces.joined(separator: "\n") + "\n", to: path) }
        if let path = args.value("mermaid") { try save(diagrams.joined(separator: "\n"), to: path) }
        if let pages, pageError == nil {
            do {
                try pages.writeIndex(title: "harness run: \(scenarios.count) scenarios, \(settings)")
                Terminal.out("pages in \(pages.directory)/index.html\n")
            } catch { pageError = "--html: \(error)" }
        }
        if let path = args.value("junit") { try save(Reports.junit(suite: "scenarios (\(transport.rawValue))", results: results), to: path) }
        if let pageError { throw .invalidInput(pageError) }
        return unusable > 0 ? 2 : failed == 0 ? 0 : 1
    }

    /// `--transport process|in-process`.
    static func transport(_ args: CommandLineArguments, default value: Simulation.Transport) throws(CommandError) -> Simulation.Transport {
        switch args.value("transport") {
        case nil: return value
        case "process": return .process
        case "in-process": return .inProcess
        case let other?:
            let hint = nearestWord(other, in: ["process", "in-process"]).map { "; did you mean '\($0)'?" } ?? ""
            throw .usage("'--transport' expects process or in-process, not '\(other)'\(hint)")
        }
    }

    /// `--seed N`, 1 by default.
    static func seed(_ args: CommandLineArguments) throws(CommandError) -> UInt64 {
        guard let text = args.value("seed") else { return 1 }
        guard let value = UInt64(text) else { throw .usage("'--seed' expects a whole number, not '\(text)'") }
        return value
    }

    /// `--flaw a,b`: known names only, with the nearest one suggested for a typo.
    static func parseFlaws(_ text: String?) throws(CommandError) -> Set<Flaw> {
        guard let text else { return [] }
        var flaws: Set<Flaw> = []
        for name in text.split(separator: ",").map(String.init) {
            guard let flaw = Flaw(rawValue: name) else {
                let hint = nearestWord(name, in: Flaw.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
                throw .usage("unknown flaw '\(name)'\(hint) (harness flaws lists them)")
            }
            flaws.insert(flaw)
        }
        return flaws
    }

    static func save(_ text: String, to path: String) throws(CommandError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .invalidInput("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var text = text
        let written = text.withUTF8 { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written < 0 { throw .invalidInput("\(path): \(String(cString: strerror(errno)))") }
    }
}
