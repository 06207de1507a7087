/// `harness list`: the named scenarios and what each is about.
enum ListCommand: HarnessCommand {
    static let name = "list"
    static let abstract = "List the named scenarios with their descriptions."
    static let usage = "harness list [FILE|FOLDER ...]"

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: [], flags: [])
        let files = try ScenarioFiles.collect(args.positionals.isEmpty ? [ScenarioFiles.root] : args.positionals)
        for file in files {
            let scenario = try ScenarioFiles.load(file)
            Terminal.out("\(file)\n    \(scenario.description)\n")
        }
        return 0
    }
}
