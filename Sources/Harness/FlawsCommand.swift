import HarnessCore
import ProcessKit

/// `harness flaws`: the known bugs a run can switch on, each with the scenarios that catch it.
enum FlawsCommand: HarnessCommand {
    static let name = "flaws"
    static let abstract = "List the known lifecycle bugs that 'harness run --flaw NAME' switches on."
    static let usage = "harness flaws"
    static let discussion = """
        Each flaw reproduces one known lifecycle bug and breaks one rule of the design. The
        scenarios listed under it fail when it is on: try 'harness run --flaw NAME FILE'.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        try CommandLineArguments(arguments, options: [], flags: []).noPositionals()
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
        return 0
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
