#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import SiteSettings

/// `harness flaws`: the known bugs a run can switch on, each with the scenarios that catch it;
/// with `--check`, which of them the given scenarios catch.
enum FlawsCommand: HarnessCommand {
    static let name = "flaws"
    static let abstract = "List the known lifecycle bugs that 'harness run --flaw NAME' switches on, or check which ones scenarios catch."
    static let usage = "harness flaws [--check [FILE|FOLDER ...] [--transport in-process|process] [--seed N] [--json FILE]]"
    static let discussion = """
        Each flaw reproduces one known lifecycle bug and breaks one rule of the design. The
        scenarios listed under it fail when it is on: try 'harness run --flaw NAME FILE'.
        --check runs each scenario (all of Scenarios/ with no file) once with no flaw, where
        it must pass, then once with each flaw, and prints which flaws it catches and by which
        failure (an expectation's line, an invariant), then how many of the flaws the
        scenarios catch together. A scenario that catches none shows correct behaviour only,
        or its faults never reach a bug (Scenarios/README.md: "Writing a scenario that
        catches the bug"). In process by default (both transports give the same traces);
        --json writes a line per scenario and a last summary line.
        Exit status: 0 when every scenario passes alone, 1 when one fails with no flaw on, 2
        for a usage or scenario-syntax error.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["transport", "seed", "json"], flags: ["check"])
        guard args.flag("check") else {
            try args.noPositionals()
            for option in ["transport", "seed", "json"] where args.value(option) != nil {
                throw .usage("'--\(option)' is an option of 'harness flaws --check'")
            }
            list()
            return 0
        }
        return try check(args)
    }

    /// Every flaw, its explanation and the named scenarios that catch it.
    private static func list() {
        for flaw in Flaw.allCases {
            Terminal.out("\(flaw.rawValue)\n\(wrapped(flaw.explanation, indent: "    "))    caught by:\n")
            // A scenario that catches it two ways (an expectation and an invariant) is named once, with both.
            let catches = FlawCatalogue.catches(of: flaw)
            var named: [String] = []
            for scenario in catches.map(\.scenario) where !named.contains(scenario) { named.append(scenario) }
            for scenario in named {
                let how = catches.filter { $0.scenario == scenario }.map(\.failure.description).joined(separator: ", ")
                Terminal.out("      \(ScenarioFiles.root)/\(scenario) (\(how))\n")
            }
        }
    }

    /// `--check`: which flaws each scenario catches.
    private static func check(_ args: CommandLineArguments) throws(CommandError) -> Int32 {
        let transport = try RunCommand.transport(args, default: .inProcess)
        let seed = try RunCommand.seed(args)
        let files = try ScenarioFiles.files(args.positionals)
        if files.isEmpty { throw .usage("no scenario files found") }
        let scenarios = try ScenarioFiles.load(files)
        if transport == .process { try Executables.requireProcesses() }
        let flaws = Flaw.allCases
        Terminal.out("seed \(seed), transport \(transport.rawValue), \(flaws.count) flaws, \(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s")\n")
        let progress = Progress()
        var results: [FlawCheck.Result] = []
        for (index, scenario) in scenarios.enumerated() {
            progress.show("\(index + 1)/\(scenarios.count) \(scenario.name)")
            let result = FlawCheck.check(scenario, flaws: flaws, transport: transport, seed: seed, executables: Executables.builtIn,
                                         directory: "/tmp/harness-flaws-\(getpid())")
            progress.clear()
            results.append(result)
            report(result, of: flaws.count)
        }
        let caught = Set(results.flatMap(\.caught))
        let missed = flaws.filter { !caught.contains($0) }
        let failing = results.filter { !$0.failuresAlone.isEmpty }.count
        let toothless = results.filter { $0.failuresAlone.isEmpty && $0.catches.isEmpty }.count
        Terminal.out("\(scenarios.count == 1 ? "the scenario catches" : "the scenarios catch") \(caught.count) of \(flaws.count) flaws"
                     + (missed.isEmpty ? "" : " (none catches \(missed.map(\.rawValue).joined(separator: ", ")))")
                     + (scenarios.count == 1 ? "" : "; \(toothless) catch none" + (failing == 0 ? "" : "; \(failing) fail with no flaw on")) + "\n")
        if let path = args.value("json") {
            var lines = results.map(json)
            lines.append(.object(["summary": .object(["scenarios": .integer(Int64(scenarios.count)), "flaws": .integer(Int64(flaws.count)),
                                                      "caught": .array(flaws.filter(caught.contains).map { .string($0.rawValue) }),
                                                      "missed": .array(missed.map { .string($0.rawValue) }),
                                                      "catchingNone": .integer(Int64(toothless)), "failingAlone": .integer(Int64(failing))])]))
            try RunCommand.save(lines: lines, to: path)
        }
        return failing == 0 ? 0 : 1
    }

    private static func report(_ result: FlawCheck.Result, of count: Int) {
        guard result.failuresAlone.isEmpty else {
            Terminal.out(Terminal.result("FAIL", passed: false) + "  \(result.scenario)  fails with no flaw on, so it shows none: "
                         + result.failuresAlone.joined(separator: "; ") + "\n")
            return
        }
        guard !result.catches.isEmpty else {
            Terminal.out("\(result.scenario)  catches none of \(count): it shows correct behaviour only, or its faults never reach a bug\n")
            return
        }
        Terminal.out("\(result.scenario)  catches \(result.catches.count) of \(count)\n")
        let width = result.catches.map(\.flaw.rawValue.count).max() ?? 0
        for found in result.catches {
            let name = found.flaw.rawValue
            Terminal.out("    \(name)\(String(repeating: " ", count: width - name.count))  \(found.failures.joined(separator: ", "))\n")
        }
    }

    private static func json(_ result: FlawCheck.Result) -> JSONValue {
        .object(["scenario": .string(result.scenario),
                 "failuresAlone": .array(result.failuresAlone.map(JSONValue.string)),
                 "catches": .array(result.catches.map { .object(["flaw": .string($0.flaw.rawValue), "failures": .array($0.failures.map(JSONValue.string))]) })])
    }

    /// Text broken into lines of at most 96 columns, each indented.
    private static func wrapped(_ text: String, indent: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && indent.count + line.count + 1 + word.count > 96 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { indent + $0 + "\n" }.joined()
    }
}
