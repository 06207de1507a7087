#if canImport(Glibc)
import Glibc
#endif
import HarnessCore

/// `harness sweep`: reruns each scenario once for every arrival of a process at a yield point,
/// killing that process there, then heals the run and checks the invariants.
enum SweepCommand: HarnessCommand {
    static let name = "sweep"
    static let abstract = "Crash every process at every yield point it reaches in each scenario, and check the invariants."
    static let usage = "harness sweep [FILE|FOLDER ...] [--transport in-process|process] [--seed N] [--subsets N] [--extension DIR [--isolated]] [--app-exec PATH] [--background-exec PATH] [--handler-exec PATH | --handler-source PATH ... [--handler-class NAME]] [--app-arg ARG ...] [--background-arg ARG ...] [--handler-arg ARG ...]"
    static let discussion = """
        Runs each scenario once to list every arrival of a process at a yield point (the
        app's write-temp, the handler's rename, the background's storage-write-temp, ...), then
        once per arrival with that process killed there. The scenario's own expectations are
        not checked in those runs (they describe the run without the crash); the invariants
        are: no torn document, no lost acknowledged edit, no value where nobody put it, a
        cache-first answer, and convergence once healed. In process (the default), it also cuts
        the power before every flush of the simulated disk, and wherever a process reaches a
        yield point or the run ends with changes not yet flushed, keeping each subset of those
        changes (when six or fewer; else none, all and --subsets seeded samples, default 2);
        every process restarts.
        Prints a line per scenario, then each failure with the command that reproduces it.
        Exit status: 0 when no crash broke an invariant, 1 otherwise, 2 for a usage error.
        """ + "\n" + Executables.help + "\n" + Executables.extensionHelp + "\n" + Executables.handlerSourceHelp

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["transport", "seed", "subsets", Executables.extensionOption, Executables.handlerClassOption] + Executables.options,
                                            repeatable: Executables.repeatable + [Executables.handlerSourceOption], flags: [Executables.isolatedFlag])
        let transport = try RunCommand.transport(args, default: .inProcess)
        let seed = try RunCommand.seed(args)
        let subsets = try args.count("subsets", default: 2, allowingZero: true)
        let executables = try Executables.withHandlerSource(
            try Executables.withExtension(try Executables.chosen(args, transport: transport), args, transport: transport, flaws: []), args, transport: transport)
        let files = try ScenarioFiles.files(args.positionals)
        if files.isEmpty { throw .usage("no scenario files found") }
        let clock = ContinuousClock()
        let start = clock.now
        var tried = 0
        var cuts = 0
        var unusable = 0
        var failures: [String] = []
        // The runs that reproduce a failure need the same background.
        let extensionOption = args.value(Executables.extensionOption).map { " --extension \($0)" } ?? ""
        Terminal.out("crash sweep: seed \(seed), transport \(transport.rawValue)\(extensionOption.isEmpty ? "" : ", extension \(args.value(Executables.extensionOption)!)")\n")
        let scenarios = try ScenarioFiles.load(files)
        for scenario in scenarios {
            let file = scenario.name
            let began = clock.now
            let base: ScenarioRunner.Outcome
            do { base = try play(scenario, transport: transport, seed: seed, executables: executables, extensionFolder: args.value(Executables.extensionOption)) } catch {
                // A scenario that cannot run as written: reported, and the others still swept.
                unusable += 1
                Terminal.out("ERROR \(file)  could not run as written\n")
                if case .usage(let message) = error { Terminal.err("Error: \(message)\n") }
                continue
            }
            if let reason = base.skipped {
                Terminal.out("skip  \(file)  \(reason)\n")
                continue
            }
            guard base.passed else {
                failures.append("\(file) fails without a crash: run 'swift run harness run \(file) --transport \(transport.rawValue) --seed \(seed)\(extensionOption)'")
                Terminal.out("FAIL  \(file)  fails without a crash\n")
                continue
            }
            let faults = CrashSweep.faults(base, transport: transport, subsets: subsets, seed: seed)
            let plans = faults.filter { $0.powerCut != nil }
            var broken = 0
            for fault in faults {
                if fault.crashAt != nil { tried += 1 } else { cuts += 1 }
                let outcome = try play(scenario, transport: transport, seed: seed, executables: executables, extensionFolder: args.value(Executables.extensionOption),
                                       crashAt: fault.crashAt, powerCut: fault.powerCut)
                guard let first = outcome.failures.first else { continue }
                broken += 1
                let command = "swift run harness run \(file) \(fault.options) --seed \(seed)\(extensionOption)"
                failures.append("\(file) with \(fault.what):\n\(first)\n  reproduce: \(command)")
            }
            let wall = (Executables.seconds(clock.now - began) * 10).rounded() / 10
            let cutsText = plans.isEmpty ? "" : ", \(plans.count) power losses (\(base.unsyncedAtFlushes.count) flushes)"
            Terminal.out("\(broken == 0 ? "pass" : "FAIL")  \(file)  \(base.arrivals.count) crash points\(cutsText), \(broken) broke an invariant, \(wall) s\n")
        }
        for failure in failures { Terminal.out("\n" + failure + "\n") }
        let seconds = (Executables.seconds(clock.now - start) * 10).rounded() / 10
        Terminal.out("\n\(files.count) scenarios, \(tried) crash points and \(cuts) power losses tried, \(failures.count) failures, \(seconds) s wall time\n")
        return unusable > 0 ? 2 : failures.isEmpty ? 0 : 1
    }

    /// One run of a scenario; a probe runs the command's extension (`extensionFolder`).
    private static func play(_ scenario: Scenario, transport: Simulation.Transport, seed: UInt64, executables: ProcessExecutables, extensionFolder: String?,
                             crashAt: YieldArrival? = nil, powerCut: PowerCutPlan? = nil) throws(CommandError) -> ScenarioRunner.Outcome {
        let directory = "/tmp/harness-sweep-\(getpid())"
        defer { Folder.remove(directory) }
        do {
            let runner = ScenarioRunner(scenario, transport: transport, seed: seed, executables: executables,
                                        directory: directory, crashAt: crashAt, powerCut: powerCut)
            runner.extensionFolder = extensionFolder
            return try runner.run()
        } catch {
            throw .usage(error.description)
        }
    }
}
