#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import SiteSettings

/// `harness soak`: the three processes free-running together for a while, under faults at
/// seeded wall-clock moments, checked as they go and after healing.
enum SoakCommand: HarnessCommand {
    static let name = "soak"
    static let abstract = "Run the real processes at once, free-running, under seeded kills; check nothing is lost."
    static let usage = "harness soak [--seconds N] [--seed S] [--handlers K] [--flaw NAME[,NAME...]] [--json FILE] [--keep] [--app-exec PATH] [--background-exec PATH] [--handler-exec PATH] [--app-arg ARG ...] [--background-arg ARG ...] [--handler-arg ARG ...]"
    static let discussion = """
        The app, the background and native handlers run straight through on the real file
        system, with no yield points held by the harness: the container's lock is a blocking
        flock, up to --handlers handlers (default 4) run at once for the background's requests
        and the first version's getEnabled and toggleEnabled, the app saves in bursts, and the
        popup changes sites the app edits too and sites it does not. At moments of the wall
        clock drawn from --seed (default 1), the app, the background or a running handler is
        killed with SIGKILL, the background unloaded, or Safari restarted. Safari is the same
        machine every run uses (SafariMachine), on the wall clock: events wake the background
        only for listeners it registered, it unloads 30 s after its last wake, alarms are
        raised to the minimum and at most 150 native requests are in flight. --flaw switches on
        known bugs in every process. After --seconds (default 60) the faults stop and
        everything is healed.
        Checked while it runs: every document and cache parses whenever a process dies and
        every half second, and no edit the app saved or a toggle answered is lost (the oracle's
        rule, each edit stamped with the time its process took it). After healing: the oracle
        over every answer, popup changes included, and every tab, the popup, the app and the
        cache agree with the shared document. A violation is printed with the operations
        around it and the seed; the same seed makes the same choices, not the same
        interleaving.
        Prints operations per second by kind, faults, lock waits (median and 99th percentile),
        edits acknowledged, how often each of Safari's rules bit (events dropped for want of a
        listener, alarms raised to the minimum, requests refused at the cap) and violations; a progress line on a terminal. --json FILE writes a
        line per violation, then a summary whose "violations" member is their count. --keep
        keeps the run's folder. Exit status: 0 with no violation, 1 with any.
        """ + "\n" + Executables.help

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["seconds", "seed", "handlers", "flaw", "json"] + Executables.options, repeatable: Executables.repeatable, flags: ["keep"])
        try args.noPositionals()
        let seconds = try args.count("seconds", default: 60)
        let handlers = try args.count("handlers", default: 4)
        let seed = try RunCommand.seed(args)
        let flaws = try RunCommand.parseFlaws(args.value("flaw"))
        let executables = try Executables.chosen(args, transport: .process)
        let directory = "/tmp/harness-soak-\(getpid())"
        Folder.remove(directory)
        defer { if !args.flag("keep") { Folder.remove(directory) } }
        Terminal.out("soak: seed \(seed), \(seconds) s, \(handlers) handlers at most\n")
        let progress = Progress()
        var options = Soak.Options(seconds: seconds, seed: seed, handlers: handlers, executables: executables, directory: directory)
        options.flaws = flaws
        let report = Soak.run(options) { counts, elapsed in
            progress.show("soak \(elapsed / 1000)/\(seconds) s: \(counts.totalOperations) operations, \(counts.totalFaults) faults, "
                          + "\(counts.violations.count) violations")
        }
        progress.clear()
        Terminal.out(report.text)
        if args.flag("keep") { Terminal.out("files kept in \(directory)\n") }
        if let path = args.value("json") {
            try RunCommand.save(lines: report.jsonLines, to: path)
        }
        return report.violations.isEmpty ? 0 : 1
    }
}
