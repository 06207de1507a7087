#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import HarnessCore
import Synchronization
import ProcessKit
import SiteSettings

/// `harness run`: plays named scenarios and reports each.
enum RunCommand: HarnessCommand {
    static let name = "run"
    static let abstract = "Run named scenarios and print a table of results."
    static let usage = "harness run [FILE|FOLDER ...] [--all] [--filter TEXT] [--transport process|in-process] [--seed N] [--workers N] [--trace FILE] [--mermaid FILE] [--junit FILE] [--json FILE] [--html DIR] [--keep] [--extension DIR [--differential] [--isolated]] [--flaw NAME[,NAME...]] [--crash PROCESS@POINT#N] [--power-loss WHERE:KEPT] [--app-exec PATH] [--background-exec PATH] [--handler-exec PATH | --handler-source PATH ... [--handler-class NAME]] [--app-arg ARG ...] [--background-arg ARG ...] [--handler-arg ARG ...]"
    static let discussion = """
        With no file or --all, runs every scenario under Scenarios/; --filter keeps those whose
        path contains TEXT (any case). Prints a line per scenario (result, steps, virtual time,
        wall time, and the seed when the file sets its own), the failures with their trace, and
        the total wall time. --workers runs up to that many scenarios side by side (default 1,
        at most one per core); the output keeps the files' order. --json writes a line per
        scenario (its result and each failure as a value) and a last summary line. --trace
        writes every run's trace to FILE; --mermaid writes a Mermaid sequence diagram of each
        run (GitHub renders it); --junit writes JUnit XML; --html writes a page
        per run into DIR (a timeline of every process and tab, the steps, the failures, the
        trace) and DIR/index.html listing them; --keep keeps the run folders (the process
        transport's: in process every file is on a simulated disk). --differential (with
        --extension) plays each scenario again with the built-in background in process and
        fails at the first settle (or after healing) where the visible tabs' decisions, the cache
        and outbox or the shared document differ. A scenario's own
        'extension' step wins over --extension (below); without node, or in process, a scenario
        with that step is skipped, saying why, and a skip is not a pass. --flaw switches on known
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
        """ + "\n" + Executables.help + "\n" + Executables.extensionHelp + "\n" + Executables.handlerSourceHelp

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["transport", "seed", "trace", "mermaid", "junit", "html", "flaw", "crash", "power-loss",
                                                                 "filter", "json", "workers", Executables.extensionOption, Executables.handlerClassOption] + Executables.options,
                                            repeatable: Executables.repeatable + [Executables.handlerSourceOption], flags: ["all", "keep", "differential", Executables.isolatedFlag])
        let transport = try transport(args, default: .process)
        let seed = try seed(args)
        let flaws = try parseFlaws(args.value("flaw"))
        let workers = try args.count("workers", default: 1)
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
        var files = try ScenarioFiles.files(args.flag("all") ? [] : args.positionals)
        if let pattern = args.value("filter") {
            files = files.filter { $0.lowercased().contains(pattern.lowercased()) }
            if files.isEmpty { throw .usage("no scenario file's path contains '\(pattern)'") }
        }
        if files.isEmpty { throw .usage("no scenario files found") }
        var scenarios = try ScenarioFiles.load(files)
        var leftOut: String?
        // An extension of its own runs the probes with what was named; of every named scenario,
        // the design's and other extensions' own are left out, and said so.
        if let folder = args.value(Executables.extensionOption) {
            let chosen = try ScenarioFiles.forExtension(folder, scenarios, all: args.flag("all") || args.positionals.isEmpty)
            scenarios = chosen.scenarios
            leftOut = chosen.leftOut
            if scenarios.isEmpty { throw .usage("no scenario fits --extension \(folder): name its own scenarios, or run from the repository's root for the probes") }
        }
        var pages: ReportFolder?
        if let path = args.value("html") {
            guard !path.isEmpty else { throw .usage("'--html' expects the folder to write the pages into") }
            do { pages = try ReportFolder(path) } catch { throw .invalidInput("--html \(path): \(error)") }
        }
        // A page that cannot be written stops the pages, not the run: the other outputs are
        // still written, then the error is reported.
        var pageError: String?
        let settings = "seed \(seed), transport \(transport.rawValue)" + (flaws.isEmpty ? "" : ", flaws \(flaws.map(\.rawValue).sorted().joined(separator: ","))")
        let roles = Executables.roleNames(args)

        let executables = try Executables.withHandlerSource(
            try Executables.withExtension(try Executables.chosen(args, transport: transport), args, transport: transport, flaws: flaws), args, transport: transport)
        if args.flag("differential") {
            guard args.value(Executables.extensionOption) != nil else {
                throw .usage("'--differential' compares an extension's background with the built-in one: give '--extension DIR'")
            }
            guard crashAt == nil else { throw .usage("'--differential' compares whole runs; '--crash' is for 'harness sweep' and a run of its own") }
        }
        let plan = Plan(transport: transport, seed: seed, executables: executables, roles: roles, extensionFolder: args.value(Executables.extensionOption),
                        flaws: flaws, crashAt: crashAt, powerCut: powerCut,
                        readsRevisions: pages != nil, keep: args.flag("keep"), differential: args.flag("differential"))
        let clock = ContinuousClock()
        let total = clock.now
        var failed = 0
        var unusable = 0
        var skipped = 0
        var traces: [String] = []
        var diagrams: [String] = []
        var results: [Reports.Result] = []
        var json: [JSONValue] = []
        // A page host starts now, while the first runs go on, for the first that needs one.
        PageHostPool.shared.prepare(for: scenarios, executables, transport: transport)
        Terminal.out(settings + (workers > 1 ? ", \(workers) workers" : "") + "\n" + "roles: \(roles)\n" + (leftOut.map { $0 + "\n" } ?? ""))
        for (scenario, ran) in zip(scenarios, inOrder(scenarios, workers: workers, plan.play)) {
            // A file's own `seed` line wins over --seed: say which seed it ran with.
            let ownSeed = scenario.lines.compactMap { line -> UInt64? in if case .seed(let value) = line.step { value } else { nil } }.last
            let seedNote = ownSeed.map { "  seed \($0)" } ?? ""
            guard let outcome = ran.outcome else {
                // A step that could not run as written (a fault never reached, say): this
                // scenario is a usage error; the others still run.
                let error = ran.error ?? "could not run"
                unusable += 1
                Terminal.out(Terminal.result("ERROR", passed: false) + "  \(scenario.name)  could not run as written\(seedNote)\n")
                Terminal.err("Error: \(error)\n")
                results.append(Reports.Result(name: scenario.name, failures: ["usage error: \(error)"], wallSeconds: 0))
                json.append(.object(["scenario": .string(scenario.name), "result": .string("error"), "error": .string(error)]))
                pages?.addUnusable(scenario, reason: error)
                continue
            }
            if let reason = outcome.skipped {
                skipped += 1
                Terminal.out(Terminal.result("skip", passed: false) + "  \(scenario.name)  \(reason)\n")
                if outcome.roles != roles { Terminal.out("  roles: \(outcome.roles)\n") }
                results.append(Reports.Result(name: scenario.name, failures: [], wallSeconds: 0, skipped: reason))
                json.append(.object(["scenario": .string(scenario.name), "result": .string("skipped"), "reason": .string(reason)]))
                continue
            }
            let wall = ran.wallSeconds * 1000
            if !outcome.passed { failed += 1 }
            let result = Terminal.result(outcome.passed ? "pass" : "FAIL", passed: outcome.passed)
            let known = outcome.knownFailures.isEmpty ? "" : "  failed as marked: \(outcome.knownFailures.joined(separator: ", "))"
            Terminal.out("\(result)  \(scenario.name)  \(outcome.steps) steps  \(Double(outcome.virtualTime) / 1000) s virtual  \((wall * 10).rounded() / 10) ms\(seedNote)\(known)\n")
            // Times in failures and traces count from the run's start, given here once.
            if !outcome.passed { Terminal.out("  times from \(Timestamp.format(outcome.epoch)) (+0.000s)\n") }
            // A scenario that names its own extension or handler says so under its result.
            if outcome.roles != roles { Terminal.out("  roles: \(outcome.roles)\n") }
            for failure in outcome.failures { Terminal.out(failure + "\n") }
            if args.value("trace") != nil {
                traces.append("# \(scenario.name)\n# roles: \(outcome.roles)\n# times from \(Timestamp.format(outcome.epoch)) (Unix \(outcome.epoch) ms)\n" + outcome.trace.joined(separator: "\n"))
            }
            if args.value("mermaid") != nil {
                diagrams.append("## \(scenario.name)\n\n\(scenario.description)\n\n" + Reports.mermaid(title: scenario.name, log: outcome.log))
            }
            results.append(Reports.Result(name: scenario.name, failures: outcome.failures, wallSeconds: wall / 1000))
            if args.value("json") != nil { json.append(Self.json(scenario, outcome, wallSeconds: ran.wallSeconds)) }
            do {
                if pageError == nil { try pages?.add(RunPage.Run(scenario: scenario, outcome: outcome, wallSeconds: wall / 1000, settings: settings)) }
            } catch {
                pageError = "--html: \(error)"
            }
        }
        let seconds = Executables.seconds(clock.now - total)
        let errors = unusable == 0 ? "" : ", \(unusable) could not run as written"
        let skips = skipped == 0 ? "" : ", \(skipped) skipped"
        let passed = scenarios.count - failed - unusable - skipped
        Terminal.out("\(passed) passed, \(failed) failed\(errors)\(skips), \((seconds * 100).rounded() / 100) s wall time\n")
        if let path = args.value("trace") { try save(traces.joined(separator: "\n") + "\n", to: path) }
        if let path = args.value("mermaid") { try save(diagrams.joined(separator: "\n"), to: path) }
        if let path = args.value("json") {
            json.append(.object(["summary": .object(["passed": .integer(Int64(passed)), "failed": .integer(Int64(failed)),
                                                     "skipped": .integer(Int64(skipped)),
                                                     "errors": .integer(Int64(unusable)), "seconds": .double(seconds), "seed": .integer(Int64(bitPattern: seed)),
                                                     "transport": .string(transport.rawValue),
                                                     "flaws": .array(flaws.map(\.rawValue).sorted().map(JSONValue.string))])]))
            try save(lines: json, to: path)
        }
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

    /// How every scenario of the command runs.
    private struct Plan: Sendable {
        let transport: Simulation.Transport
        let seed: UInt64
        let executables: ProcessExecutables
        let roles: RoleNames
        let extensionFolder: String?
        let flaws: Set<Flaw>
        let crashAt: YieldArrival?
        let powerCut: PowerCutPlan?
        let readsRevisions: Bool
        let keep: Bool
        /// Each scenario is played again with the built-in background and must show the same.
        let differential: Bool

        /// Runs one scenario in its own folder (removed after, unless kept).
        func play(_ scenario: Scenario, index: Int) -> Ran {
            let directory = "/tmp/harness-run-\(getpid())-\(index)"
            let clock = ContinuousClock()
            let start = clock.now
            defer { if !keep { Folder.remove(directory) } }
            do {
                let runner = ScenarioRunner(scenario, transport: transport, seed: seed, executables: executables, directory: directory,
                                            flaws: flaws, crashAt: crashAt, powerCut: powerCut)
                runner.readsRevisions = readsRevisions
                runner.recordsObservations = differential
                runner.roles = roles
                runner.extensionFolder = extensionFolder
                var outcome = try runner.run()
                if differential && outcome.skipped == nil {
                    let reference = ScenarioRunner(scenario, transport: .inProcess, seed: seed, executables: Executables.builtIn, directory: directory + "-reference")
                    try Differential.check(&outcome, of: scenario, reference: reference)
                }
                return Ran(outcome: outcome, error: nil, wallSeconds: Executables.seconds(clock.now - start))
            } catch {
                return Ran(outcome: nil, error: error.description, wallSeconds: 0)
            }
        }
    }

    /// One scenario's run: its outcome, or why it could not run as written.
    private struct Ran: Sendable {
        var outcome: ScenarioRunner.Outcome?
        var error: String?
        var wallSeconds: Double
    }

    /// Runs the scenarios on `workers` threads and hands back each run in the scenarios'
    /// order, as soon as it and every one before it are done, so the output reads the same
    /// whatever the number of workers.
    private static func inOrder(_ scenarios: [Scenario], workers: Int, _ play: @escaping @Sendable (Scenario, Int) -> Ran) -> AnyIterator<Ran> {
        let count = scenarios.count
        let slots = Mutex<[Ran?]>(Array(repeating: nil, count: count))
        let taken = Mutex(0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: min(workers, count)) { _ in
                while true {
                    let index = taken.withLock { next -> Int in
                        defer { next += 1 }
                        return next
                    }
                    guard index < count else { return }
                    let ran = play(scenarios[index], index)
                    slots.withLock { $0[index] = ran }
                    finished.signal()
                }
            }
        }
        var next = 0
        return AnyIterator {
            guard next < count else { return nil }
            // Every run signals once when done: while this one is not, another signal is due.
            while slots.withLock({ $0[next] }) == nil { finished.wait() }
            defer { next += 1 }
            return slots.withLock { $0[next] }
        }
    }

    /// A line of `--json`: the scenario, its result, and each failure as a value.
    private static func json(_ scenario: Scenario, _ outcome: ScenarioRunner.Outcome, wallSeconds: Double) -> JSONValue {
        .object(["scenario": .string(scenario.name), "result": .string(outcome.passed ? "pass" : "fail"),
                 "steps": .integer(Int64(outcome.steps)), "virtualSeconds": .double(Double(outcome.virtualTime) / 1000),
                 "wallSeconds": .double(wallSeconds), "knownFailures": .array(outcome.knownFailures.map(JSONValue.string)),
                 "failures": .array(outcome.marks.failures.map { failure in
                     .object(["line": .integer(Int64(failure.line)), "step": .string(failure.step), "property": .string(failure.property.description),
                              "message": .string(failure.message), "afterHealing": .bool(failure.afterHealing)])
                 })])
    }

    /// `--transport process|in-process`. Without it, `--extension` (an extension's JavaScript,
    /// which runs in node) chooses the process transport, the only one that can run it.
    static func transport(_ args: CommandLineArguments, default value: Simulation.Transport) throws(CommandError) -> Simulation.Transport {
        switch args.value("transport") {
        case nil: return args.value(Executables.extensionOption) != nil ? .process : value
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

    /// Writes JSON Lines: each value compact on a line of its own.
    static func save(lines: [JSONValue], to path: String) throws(CommandError) {
        try save(lines.map { String(decoding: JSONWriter.compact($0), as: UTF8.self) }.joined(separator: "\n") + "\n", to: path)
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
