import HarnessCore

/// A small command-line reader in the manner of swift-argument-parser: options declared up
/// front, `--name value` and `--name=value`, flags, positionals, and usage errors that name the
/// problem and suggest the nearest valid option.
struct CommandLineArguments {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var repeated: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Reads `arguments` for a command that takes the given options (which take a value),
    /// `repeatable` options (which may come several times, each with a value) and flags (which
    /// do not take one).
    init(_ arguments: [String], options: [String], repeatable: [String] = [], flags knownFlags: [String]) throws(CommandError) {
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if knownFlags.contains(name) {
                if inlineValue != nil { throw .usage("flag '--\(name)' takes no value") }
                flags.insert(name)
            } else if repeatable.contains(name) {
                if let inlineValue {
                    repeated[name, default: []].append(inlineValue)
                } else {
                    guard i < arguments.count else { throw .usage("missing value for '--\(name)'") }
                    repeated[name, default: []].append(arguments[i])
                    i += 1
                }
            } else if options.contains(name) {
                if values[name] != nil { throw .usage("option '--\(name)' given twice") }
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    guard i < arguments.count else { throw .usage("missing value for '--\(name)'") }
                    values[name] = arguments[i]
                    i += 1
                }
            } else {
                let known = options + repeatable + knownFlags
                let hint = nearestWord(name, in: known).map { "; did you mean '--\($0)'?" } ?? ""
                throw .usage("unknown option '--\(name)'\(hint)")
            }
        }
    }

    func value(_ name: String) -> String? { values[name] }

    /// Every value of a repeatable option, in the order given.
    func values(_ name: String) -> [String] { repeated[name] ?? [] }

    /// `--name N`: a whole number, positive unless `allowingZero`; `value` when absent.
    func count(_ name: String, default value: Int, allowingZero: Bool = false) throws(CommandError) -> Int {
        guard let text = values[name] else { return value }
        guard let n = Int(text), allowingZero ? n >= 0 : n > 0 else {
            throw .usage("'--\(name)' expects a \(allowingZero ? "non-negative" : "positive") whole number, not '\(text)'")
        }
        return n
    }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The one positional argument a command needs, or a usage error naming it.
    func single(_ what: String) throws(CommandError) -> String {
        guard let first = positionals.first else { throw .usage("missing \(what)") }
        guard positionals.count == 1 else { throw .usage("unexpected argument '\(positionals[1])'") }
        return first
    }

    func noPositionals() throws(CommandError) {
        if let extra = positionals.first { throw .usage("unexpected argument '\(extra)'") }
    }
}

/// What ends a command early. Usage errors exit 2 with the command's usage line; invalid input
/// exits 1.
enum CommandError: Error, Equatable {
    /// The command line itself is wrong.
    case usage(String)
    /// The command line is fine but what it names is not (a file that is not a valid document).
    case invalidInput(String)
    /// Scenario files with mistakes, each already printed with its file and line: nothing ran.
    case invalidScenarios(String)
}
