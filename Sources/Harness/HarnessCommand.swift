import SiteSettings

/// One subcommand of `harness`: a name, a one-line abstract, a usage line, and a run that
/// returns the exit status (0 success, 1 failure or invalid input; usage errors are thrown).
protocol HarnessCommand: Sendable {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    /// Extra help text after the usage line.
    static var discussion: String { get }
    static func run(_ arguments: [String]) throws(CommandError) -> Int32
}

extension HarnessCommand {
    static var discussion: String { "" }

    /// The command as a plain value. (Calling a typed-throws requirement through an existential
    /// metatype crashes the Swift 6.3 compiler, so `main` works with these values instead.)
    static var entry: CommandEntry {
        CommandEntry(name: name, abstract: abstract, usage: usage, discussion: discussion) { arguments in
            Result { () throws(CommandError) -> Int32 in try run(arguments) }
        }
    }
}

/// A subcommand as `main` sees it.
struct CommandEntry: Sendable {
    let name: String
    let abstract: String
    let usage: String
    let discussion: String
    let execute: @Sendable ([String]) -> Result<Int32, CommandError>
}

/// The subcommands, in the order help lists them.
enum HarnessCommands {
    static let all: [CommandEntry] = [RunCommand.entry, SweepCommand.entry, FuzzNativeCommand.entry, ListCommand.entry, CheckCommand.entry, FlawsCommand.entry, ExploreCommand.entry, SoakCommand.entry, ConformCommand.entry, ResolveCommand.entry, ScopeCommand.entry, NormalizeCommand.entry, BenchCommand.entry]
}

/// Shared readers of the inspection commands' inputs.
enum Inputs {
    /// The list given with `--psl FILE`, or the one compiled in.
    static func suffixes(_ arguments: CommandLineArguments) throws(CommandError) -> PublicSuffixList {
        guard let path = arguments.value("psl") else { return .embedded }
        let bytes = try Terminal.readFile(path)
        do {
            return try PublicSuffixList(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw .invalidInput("\(path): \(error)")
        }
    }

    static func document(_ path: String, suffixes: PublicSuffixList) throws(CommandError) -> DocumentCodec.Decoded {
        let bytes = try Terminal.readFile(path)
        do {
            return try DocumentCodec.decode(bytes, suffixes: suffixes)
        } catch {
            throw .invalidInput("\(path): \(error)")
        }
    }

    static func time(_ text: String, option: String) throws(CommandError) -> EpochMillis {
        guard let time = Timestamp.parse(text) else {
            throw .usage("'--\(option)' expects an ISO 8601 time such as 2026-03-01T09:00:00Z, not '\(text)'")
        }
        return time
    }
}
