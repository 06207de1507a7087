#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HarnessCore

@MainActor func overview() -> String {
    var text = "OVERVIEW: A lifecycle harness for Safari web extensions.\n\nUSAGE: harness <subcommand> [options]\n\nSUBCOMMANDS:\n"
    for command in HarnessCommands.all {
        text += "  " + command.name.padding(12) + command.abstract + "\n"
    }
    text += "\nSee 'harness help <subcommand>' for a subcommand's options; 'harness --version' prints the version.\n"
    return text
}

@MainActor func help(_ command: CommandEntry) -> String {
    var text = "OVERVIEW: \(command.abstract)\n\nUSAGE: \(command.usage)\n"
    if !command.discussion.isEmpty { text += "\n\(command.discussion)\n" }
    return text
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

@MainActor func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let name = arguments.first else {
        Terminal.out(overview())
        return 0
    }
    arguments.removeFirst()
    if name == "--version" {
        Terminal.out("harness \(HarnessVersion.current)\n")
        return 0
    }
    if name == "help" || name == "--help" || name == "-h" {
        if let topic = arguments.first {
            guard let command = HarnessCommands.all.first(where: { $0.name == topic }) else {
                Terminal.err("Error: unknown subcommand '\(topic)'\n")
                return 2
            }
            Terminal.out(help(command))
        } else {
            Terminal.out(overview())
        }
        return 0
    }
    guard let command = HarnessCommands.all.first(where: { $0.name == name }) else {
        let hint = nearestWord(name, in: HarnessCommands.all.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        Terminal.err("Error: unknown subcommand '\(name)'\(hint)\nUsage: harness <subcommand> [options] (see 'harness help')\n")
        return 2
    }
    if arguments.contains("--help") || arguments.contains("-h") {
        Terminal.out(help(command))
        return 0
    }
    switch command.execute(arguments) {
    case .success(let status):
        return status
    case .failure(let error):
        switch error {
        case .usage(let message):
            Terminal.err("Error: \(message)\nUsage: \(command.usage)\n  See 'harness help \(command.name)'.\n")
            return 2
        case .invalidInput(let message):
            Terminal.err("Error: \(message)\n")
            return 1
        case .invalidScenarios(let message):
            Terminal.err("Error: \(message)\n")
            return 2
        }
    }
}

exit(main())
