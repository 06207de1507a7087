#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit

/// `harness conform`: checks that an executable plays one role by the frame protocol.
enum ConformCommand: HarnessCommand {
    static let name = "conform"
    static let abstract = "Check that an executable plays the app, the background or the handler by the frame protocol."
    static let usage = "harness conform (--app-exec PATH | --background-exec PATH | --handler-exec PATH) [--app-arg ARG ...] [--background-arg ARG ...] [--handler-arg ARG ...] [--flaw NAME[,NAME...]] [--design] [--behaviour]"
    static let discussion = """
        Starts the executable in its role over a fresh folder (a handler with --reuse, so that
        it serves several requests) and plays a short script of inputs, answering each yield
        point, then prints each check with pass or FAIL, in two groups. The protocol's, which
        every process of the role must pass, whatever its logic (Sources/ProcessKit/PROTOCOL.md):
        it opens with its hello; it ends every input with one done; it stops at the yield points
        in their order (every write inside the lock: lock, write-temp, rename, unlock; extension
        storage's write then rename); after a fail it takes no later step of that write and
        still ends the input; it sends nothing after done; it answers a frame that is not JSON
        with an error frame and serves the next input. The design's, which only a process of
        this project's design must pass (the inputs are the design's messages): the documents
        it leaves parse; it writes values only where the input put them; it holds no lock
        between inputs; it writes nothing while another process holds the container's lock.
        --design holds the process to them too. --flaw switches known bugs on in every input
        (to see the built-in processes fail). --behaviour then also runs every named scenario,
        the crash sweep and 1,000 explored seeds with the executable, which ask for this
        project's messages and design too.
        Exit status: 0 when every check that applies passes (the protocol's; with --design the
        design's too), 1 when one fails or is not reached, 2 for a usage error.
        """ + "\n" + Executables.help

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["flaw"] + Executables.options, repeatable: Executables.repeatable, flags: ["behaviour", "design"])
        try args.noPositionals()
        let named = ProcessName.allCases.filter { args.value("\($0.rawValue)-exec") != nil }
        guard named.count == 1, let role = named.first else {
            throw .usage("name exactly one executable to check: --app-exec, --background-exec or --handler-exec")
        }
        let flaws = try RunCommand.parseFlaws(args.value("flaw")).map(\.rawValue).sorted()
        let executables = try Executables.chosen(args, transport: .process)
        let directory = "/tmp/harness-conform-\(getpid())"
        Folder.remove(directory)
        mkdir(directory, 0o755)
        defer { Folder.remove(directory) }
        let command = executables[role]
        Terminal.out("conform: the \(role.rawValue) \(([command.path] + command.arguments).joined(separator: " ")), protocol \(WireProtocol.version)"
                     + (flaws.isEmpty ? "" : ", flaws \(flaws.joined(separator: ","))") + "\n")
        let checks = Conformance.check(role, executables: executables, flaws: flaws, directory: directory)
        let design = args.flag("design")
        var status: Int32 = 0
        for (heading, ofDesign) in [("the protocol's checks, for every process of the role:", false),
                                    ("the design's checks, for a process of this project's design\(design ? "" : " (another design may fail them: --design holds this one to them)"):", true)] {
            let names = Conformance.names(for: role).filter { Conformance.designChecks.contains($0) == ofDesign }
            guard !names.isEmpty else { continue }
            Terminal.out(heading + "\n")
            let group = checks.filter { names.contains($0.name) }
            for check in group {
                Terminal.out("\(check.passed ? "pass" : "FAIL")  \(check.name)\(check.detail.isEmpty ? "" : ": \(check.detail)")\n")
            }
            let failed = group.filter { !$0.passed }.count
            // A check no input reached (no hello, or the process never wrote) did not pass.
            let unreached = names.filter { name in !group.contains { $0.name == name } }
            Terminal.out("  \(group.count - failed) passed, \(failed) failed"
                         + (unreached.isEmpty ? "" : ", \(unreached.count) not reached: \(unreached.joined(separator: "; "))") + "\n")
            if (failed > 0 || !unreached.isEmpty) && (!ofDesign || design) { status = 1 }
        }
        if args.flag("behaviour") {
            let given = ["--\(role.rawValue)-exec", command.path] + command.arguments.flatMap { ["--\(role.rawValue)-arg", $0] }
            let runs: [(String, ([String]) throws(CommandError) -> Int32, [String])] = [
                ("every named scenario", RunCommand.run, ["--all"]), ("the crash sweep", SweepCommand.run, []),
                ("1,000 explored seeds", ExploreCommand.run, ["--runs", "1000"]),
            ]
            for (what, command, extra) in runs {
                Terminal.out("\nbehaviour: \(what)\n")
                if try command(extra + given + ["--transport", "process"]) != 0 { status = 1 }
            }
        }
        return status
    }
}
