import HarnessCore
/// `harness list`: the named scenarios and what each is about.
enum ListCommand: HarnessCommand {
    static let name = "list"
    static let abstract = "List the named scenarios with their descriptions."
    static let usage = "harness list [FILE|FOLDER ...]"
    static let discussion = """
        A file with a mistake is listed as INVALID, its mistakes on stderr.
        Exit status: 0 when every file is valid, 2 when any has a mistake.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: [], flags: [])
        let files = try ScenarioFiles.files(args.positionals)
        var invalid = 0
        for file in files {
            switch ScenarioFiles.check(file) {
            case .success(let scenario):
                Terminal.out("\(file)\n    \(scenario.description)\n")
            case .failure(let errors):
                invalid += 1
                Terminal.out("\(file)\n    INVALID: \(errors.errors.count) mistake(s)\n")
                Terminal.err(errors.description + "\n")
            }
        }
        return invalid == 0 ? 0 : 2
    }
}
