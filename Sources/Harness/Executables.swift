#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit

/// Where the harness and the process executables built beside it are, and file chores of the
/// commands.
enum Executables {
    /// The path of the running executable.
    static var current: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    /// The folder of the running executable, which also holds `AppProcess`, `ExtensionProcess` and `NativeHandler`.
    static var directory: String {
        let path = current
        return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// The built-in process executables beside the harness.
    static var builtIn: ProcessExecutables { ProcessExecutables(folder: directory) }

    /// Fails naming the first process executable missing beside the harness (a harness copied
    /// away from its build folder has none), before any process is started.
    static func requireProcesses() throws(CommandError) {
        _ = try chosen(nil, transport: .process)
    }

    /// What `--app-exec` and its kin do, for the commands' help.
    static let help = """
        --app-exec, --background-exec and --handler-exec PATH run that executable in the role
        instead of the built-in one (process transport only), with each --app-arg,
        --background-arg or --handler-arg ARG before the harness's own arguments; it must speak
        the frame protocol of Sources/ProcessKit/PROTOCOL.md.
        """

    /// What `--extension` does, for the help of the commands that take it.
    static let extensionHelp = """
        --extension DIR runs the unpacked extension in DIR as the background (process transport
        only): its manifest is checked first, and its background's JavaScript runs in the
        harness's runtime on node: each incarnation in a fresh context of one node process that
        the runs share, where a kill drops the context and all it had pending; with --isolated,
        each incarnation in a node process of its own, killed and frozen by signals (slower).
        --flaw and --background-exec do not go with it.
        """

    /// The options that name an executable for a role, and those that give it arguments.
    static let options = ProcessName.allCases.map { "\($0.rawValue)-exec" }
    static let repeatable = ProcessName.allCases.map { "\($0.rawValue)-arg" }

    /// The executables a command's `--app-exec`, `--background-exec` and `--handler-exec` name
    /// (with their `--…-arg`s), the built-in ones for the other roles; each checked before
    /// anything runs. A named executable needs the process transport.
    static func chosen(_ args: CommandLineArguments?, transport: Simulation.Transport) throws(CommandError) -> ProcessExecutables {
        var executables = builtIn
        for role in ProcessName.allCases {
            let option = "\(role.rawValue)-exec"
            let arguments = args?.values("\(role.rawValue)-arg") ?? []
            guard let path = args?.value(option) else {
                if !arguments.isEmpty { throw .usage("'--\(role.rawValue)-arg' gives arguments to the executable '--\(option)' names; name one") }
                if transport == .process, access(executables[role].path, X_OK) != 0 {
                    throw .invalidInput("\(executables[role].path): \(String(cString: strerror(errno))); the process executables are built beside the harness (swift build), which must run from there")
                }
                continue
            }
            guard transport == .process else {
                throw .usage("'--\(option)' starts a process of its own: it needs '--transport process'")
            }
            guard !path.isEmpty, access(path, X_OK) == 0 else {
                throw .invalidInput("--\(option) \(path): \(path.isEmpty ? "no path given" : String(cString: strerror(errno)))")
            }
            executables[role] = ProcessExecutables.Command(path: path, arguments: arguments)
        }
        return executables
    }

    /// What plays each role as the command line chose, in words, for the run's header.
    static func roleNames(_ args: CommandLineArguments) -> RoleNames {
        var names = RoleNames()
        if let path = args.value("app-exec") { names.app = RoleNames.executable(path) }
        if let path = args.value("background-exec") { names.background = RoleNames.executable(path) }
        if let folder = args.value(extensionOption) { names.background = RoleNames.extensionFolder(folder) }
        if let path = args.value("handler-exec") { names.handler = RoleNames.executable(path) }
        let sources = args.values(handlerSourceOption)
        if !sources.isEmpty { names.handler = RoleNames.handlerSources(sources) }
        return names
    }

    /// `--extension DIR`: the unpacked extension whose background JavaScript plays the
    /// background's role (on run, sweep and explore).
    static let extensionOption = "extension"
    static let isolatedFlag = "isolated"

    /// `executables` with `--extension DIR`'s runtime as the background, when it is given: the
    /// folder's manifest is read and checked before anything runs (its warnings printed), and
    /// node must be there. The flaws are the built-in processes' bugs, which an extension's own
    /// JavaScript does not have, so the two do not go together; nor does another background.
    static func withExtension(_ executables: ProcessExecutables, _ args: CommandLineArguments, transport: Simulation.Transport,
                              flaws: Set<Flaw>) throws(CommandError) -> ProcessExecutables {
        var executables = executables
        // A scenario's own `extension` step follows it too.
        executables.hostsBackgrounds = !args.flag(isolatedFlag)
        guard let folder = args.value(extensionOption) else { return executables }
        guard !folder.isEmpty else { throw .usage("'--extension' expects an unpacked extension's folder") }
        guard transport == .process else { throw .usage("'--extension' runs the extension's JavaScript in node, a process of its own: it needs '--transport process'") }
        guard flaws.isEmpty else {
            throw .usage("'--flaw' switches on bugs of the built-in processes, which the extension's own JavaScript does not have: run the flaws without '--extension'")
        }
        guard args.value("background-exec") == nil else { throw .usage("'--extension' and '--background-exec' both name the background: give one") }
        switch ExtensionManifest.load(folder: folder) {
        case .failure(let problems):
            Terminal.err(problems.description + "\n")
            throw .invalidScenarios("--extension \(folder): \(problems.errors.count) mistake(s) in the extension (listed above); nothing was run")
        case .success(let (manifest, _)) where manifest.background == nil:
            throw .invalidScenarios("--extension \(folder): its manifest.json has no background, the part the harness runs; nothing was run")
        case .success(let (_, warnings)):
            for warning in warnings { Terminal.err("warning: \(warning)\n") }
        }
        switch ExtensionRuntime.background(replacing: executables, extension: folder, transport: transport) {
        case .success(let chosen): return chosen
        case .failure(let reason): throw .invalidInput("--extension \(folder): \(reason)")
        }
    }

    /// `--handler-source PATH` (repeated) and `--handler-class NAME`: the team's own native
    /// handler, its Swift sources built to play the handler role (`TeamHandler`), cached beside
    /// the harness. A build error is printed as swiftc prints it, and nothing runs.
    static let handlerSourceOption = "handler-source"
    static let handlerClassOption = "handler-class"

    static let handlerSourceHelp = """
        --handler-source PATH (a Swift file or a folder; repeat it for more) builds the team's own
        native handler into the handler role (process transport only): its sources as they ship,
        `class SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling`, compiled with
        stand-ins for SafariServices and os.log; --handler-class NAME names another principal
        class (an Info.plist among the sources may name it too). The first build of some sources
        takes seconds; later runs reuse it. A build error is printed as swiftc prints it.
        """

    static func withHandlerSource(_ executables: ProcessExecutables, _ args: CommandLineArguments,
                                  transport: Simulation.Transport) throws(CommandError) -> ProcessExecutables {
        let sources = args.values(handlerSourceOption)
        guard !sources.isEmpty else {
            if args.value(handlerClassOption) != nil { throw .usage("'--handler-class' names the principal class of '--handler-source': give the sources") }
            return executables
        }
        guard transport == .process else { throw .usage("'--handler-source' builds a process of its own: it needs '--transport process'") }
        guard args.value("handler-exec") == nil else { throw .usage("'--handler-source' and '--handler-exec' both name the handler: give one") }
        var executables = executables
        for warning in TeamHandler.warnings(sources) { Terminal.err(warning + "\n") }
        do {
            let built = try TeamHandler.build(sources, principalClass: args.value(handlerClassOption), cacheFolder: TeamHandler.cacheFolder)
            executables.handler = ProcessExecutables.Command(path: built)
            executables.teamHandler = true
        } catch {
            throw .invalidScenarios("--handler-source: \(error)")
        }
        return executables
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
