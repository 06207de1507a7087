import HarnessCore
/// `harness check`: validates scenario files without running them.
enum CheckCommand: HarnessCommand {
    static let name = "check"
    static let abstract = "Check scenario files without running them."
    static let usage = "harness check [FILE|FOLDER ...]"
    static let discussion = """
        Reads each file whole, as 'harness run' does before it starts anything: every step and
        expectation, and the document files the setup names. Prints a line per file (ok, with
        its steps, or INVALID) and every mistake on stderr with its file and line and the
        nearest valid word. With no file, checks every scenario under Scenarios/.
        Exit status: 0 when every file is valid, 2 when any has a mistake.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: [], flags: [])
        let files = try ScenarioFiles.files(args.positionals)
        if files.isEmpty { throw .usage("no scenario files found") }
        var invalid = 0
        for file in files {
            switch ScenarioFiles.check(file) {
            case .success(let scenario):
                Terminal.out("ok       \(file)  \(scenario.lines.count) steps\n")
            case .failure(let errors):
                invalid += 1
                Terminal.out("INVALID  \(file)  \(errors.errors.count) mistake(s)\n")
                Terminal.err(errors.description + "\n")
            }
        }
        Terminal.out("\(files.count - invalid) valid, \(invalid) invalid\n")
        return invalid == 0 ? 0 : 2
    }
}
