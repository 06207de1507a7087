#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import Dispatch
import ProcessKit
import SiteSettings
import Synchronization

/// `harness explore`: random schedules nobody wrote, checked as they run, each failure shrunk
/// to a scenario anyone can rerun.
enum ExploreCommand: HarnessCommand {
    static let name = "explore"
    static let abstract = "Run random schedules, check every invariant and liveness bound, and shrink each failure to a scenario."
    static let usage = "harness explore [--seed S] [--runs N | --time DURATION] [--steps K] [--flaw NAME[,NAME...]] [--out DIR] [--json FILE] [--shard I/N] [--workers N] [--search swarm|guided] [--batch N] [--coverage] [--stop] [--replay-check] [--digest] [--load-times] [--transport in-process|process] [--extension DIR [--pages | --differential] [--isolated]] [--app-exec PATH] [--background-exec PATH] [--handler-exec PATH] [--app-arg ARG ...] [--background-arg ARG ...] [--handler-arg ARG ...]\n       harness explore --merge FILE..."
    static let discussion = """
        Each seed picks a set of options (swarm testing: the platform, a subset of the kinds
        of step with a weight each, how the run starts; printed with each failure) and makes a
        schedule of --steps actions (default 30) from them: tabs, edits in the app and the
        popup on shared and unrelated sites, the app's and Safari's lifecycle, unloads, kills,
        freezes, profiles, the first version's messages, a handler slow, hung, crashing or
        answering garbage, holds, crashes and write errors at yield points, and time passing
        across timeouts, schedule boundaries and pause ends. Each run checks the invariants and
        the liveness bounds as it goes, then heals and checks convergence and the oracle.
        Seeds run from --seed (default 1) for --runs (default 1000) or for --time (30s, 10m).
        The first failure of each property is shrunk (fewer steps, plainer arguments) while it
        still fails the same way, and written to --out (default explore-failures/) as a
        scenario with the seed, options, what broke and the command that reruns it, and its
        run's page beside it (a timeline of every process and tab; --out's index.html lists them).
        --replay-check runs each schedule twice (every 50th also on the process transport)
        and compares the traces; a difference is a failure. --differential (with --extension)
        plays each schedule again with the built-in background in process and compares, after
        every settle and once healed, the visible tabs' decisions, the cache and outbox and the
        shared document (revisions and document ids aside): the first difference is a failure,
        shrunk like any other. --pages (with --extension) runs the extension's own content
        scripts and popup in every schedule (each names it with 'extension DIR pages'): its
        popup steps open the extension's popup, click its buttons, inputs and links by id, and
        close it, and the checks are those any extension gets (no uncaught error, no page that a
        reload changes once healed, no page message left waiting). --shard I/N runs every Nth seed
        from the Ith; --json writes a line per failure and a last summary line, and
        'harness explore --merge FILE...' adds shards' summaries up.
        --load-times gives a quarter of the seeds a background load time (100ms, 250ms or 1s,
        as 'background-load-time' does), so that pages' questions, tab events and an update's
        restarted content scripts fall inside a load: an event of a type Safari holds waits
        for the load's end, any other is answered with nothing. It is off by default: the
        built-in design does not yet survive it (a page's native-dark signal sent while a new
        version loads is lost, and the decision the new background pushes ends the page's
        questions).
        --digest prints a digest of every run's trace (the same seeds run the same way give
        the same digest, whatever the workers or shards), to show two builds alike.
        --workers runs schedules on that many threads (default: one per core); --stop ends
        the exploration at the first failure, once it is shrunk.
        --search guided (the default) keeps a corpus of the schedules whose runs reached
        something no run before had (a new feature of the run's coverage signature: two inputs
        of the background in a row and the time between them, an input and a directive, two
        yield points in a row, a fault that took effect, a dropped reply, how often an input
        came), and gives about
        half of the seeds a mutant of a corpus schedule instead of their own (actions deleted,
        repeated, swapped, retimed, refaulted, inserted or spliced from another). Runs go in
        batches of --batch seeds (default 100) and join the corpus in seed order after each,
        so the same --seed, --shard and --batch give the same schedules whatever --workers.
        A failing mutant is shrunk like any failure; its file names the seed whose schedule
        it mutated and reruns with 'harness run', and its JSON line carries the whole
        schedule that failed. --search swarm runs each seed's own schedule only. --coverage
        lists every feature reached.
        Prints the coverage counters (yield points, faults, reconciliation points, reply
        outcomes), naming any still at zero. On a terminal a progress line updates in place.
        Exit status: 0 when nothing failed, 1 when a failure was found, 2 for a usage error.
        """ + "\n" + Executables.help + "\n" + Executables.extensionHelp

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["seed", "runs", "time", "steps", "flaw", "out", "json", "shard", "transport", "workers", "search", "batch", Executables.extensionOption] + Executables.options, repeatable: Executables.repeatable,
                                            flags: ["replay-check", "merge", "stop", "digest", "coverage", "differential", "pages", "load-times", Executables.isolatedFlag])
        if args.flag("merge") { return try merge(args) }
        try args.noPositionals()
        if args.value("runs") != nil && args.value("time") != nil { throw .usage("give --runs or --time, not both") }
        let seed = try RunCommand.seed(args)
        let runs = try args.count("runs", default: 1000)
        let limit = try args.value("time").map { text throws(CommandError) in try seconds(text) }
        let steps = try args.count("steps", default: 30)
        let flaws = try RunCommand.parseFlaws(args.value("flaw"))
        let transport = try RunCommand.transport(args, default: .inProcess)
        let shard = try self.shard(args.value("shard"))
        let out = args.value("out") ?? "explore-failures"
        if out.isEmpty { throw .usage("'--out' expects the folder to write the shrunk failures into") }
        if args.flag("differential") && args.value(Executables.extensionOption) == nil {
            throw .usage("'--differential' compares an extension's background with the built-in one: give '--extension DIR'")
        }
        if args.flag("pages") && args.value(Executables.extensionOption) == nil {
            throw .usage("'--pages' runs an extension's own content scripts and popup: give '--extension DIR'")
        }
        if args.flag("pages") && args.flag("differential") {
            throw .usage("'--differential' compares the decisions the harness's own pages show, and '--pages' runs the extension's instead: give one")
        }
        let executables = try Executables.withExtension(try Executables.chosen(args, transport: transport), args, transport: transport, flaws: flaws)
        // --replay-check plays some schedules on the built-in processes too.
        if args.flag("replay-check") { try Executables.requireProcesses() }
        let workers = try args.count("workers", default: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let search = try self.search(args.value("search"))
        let batch = try args.count("batch", default: 100)
        if search == .swarm && args.value("batch") != nil { throw .usage("'--batch' is for '--search guided'") }
        let listFeatures = args.flag("coverage")
        let ownPages = try args.flag("pages") ? args.value(Executables.extensionOption).map { folder throws(CommandError) in try Self.ownPages(folder) } : nil
        let explorer = {
            var explorer = Explorer(steps: steps, flaws: flaws, transport: transport, executables: executables,
                                    directory: "/tmp/harness-explore-\(getpid())")
            explorer.extensionFolder = args.value(Executables.extensionOption)
            if args.flag("differential") { explorer.differentialReference = Executables.builtIn }
            explorer.ownPages = ownPages
            explorer.drawsLoadTimes = args.flag("load-times")
            return explorer
        }()
        let replayCheck = args.flag("replay-check")
        let stopAtFirst = args.flag("stop")
        let flawText = flaws.isEmpty ? "" : ", flaws \(flaws.map(\.rawValue).sorted().joined(separator: ","))"
        Terminal.out("explore: seed \(seed), \(limit.map { "for \($0) s" } ?? "\(runs) runs"), \(steps) steps, shard \(shard.index)/\(shard.count), \(workers) workers, transport \(transport.rawValue), search \(search.rawValue)\(search == .guided ? " (batch \(batch))" : "")\(flawText)\n")
        let clock = ContinuousClock()
        let start = clock.now
        let progress = Mutex(Progress())
        let found = Mutex(0)
        let errors = Mutex<[String]>([])
        // Each shrunk failure also gets a page (a timeline of its run), listed in out/index.html.
        let pages = Mutex<ReportFolder?>(nil)
        let next: @Sendable (Int) -> UInt64? = { run in
            let more = limit.map { Executables.seconds(clock.now - start) < Double($0) } ?? (run < runs)
            return more && !(stopAtFirst && found.withLock { $0 > 0 }) ? ExploreSession.seed(run: run, from: seed, shard: shard) : nil
        }
        let ran: @Sendable (Finding?, Int) -> Void = { finding, runs in
            progress.withLock { progress in
                if let finding {
                    found.withLock { $0 += 1 }
                    progress.clear()
                    Terminal.out(report(finding, out: out))
                    do {
                        try write(finding, out: out, flaws: flaws, explorer: explorer)
                        try pages.withLock { folder throws(CommandError) in
                            if folder == nil {
                                do { folder = try ReportFolder(out) } catch { throw .invalidInput("\(out): \(error)") }
                            }
                            try addPage(finding, explorer: explorer, flaws: flaws, out: out, to: &folder!)
                        }
                    } catch { errors.withLock { $0.append("\(error)") } }
                }
                progress.show("\(runs) runs, \(rate(runs, clock.now - start)) runs/s, \(found.withLock { $0 }) failures")
            }
        }
        let session = switch search {
        case .swarm: ExploreSession.parallel(explorer, workers: workers, replayCheck: replayCheck, digests: args.flag("digest"), signatures: listFeatures,
                                             seed: next, ran: ran)
        case .guided: GuidedSearch(batch: batch).explore(explorer, workers: workers, replayCheck: replayCheck, digests: args.flag("digest"),
                                                         seed: next, ran: ran)
        }
        progress.withLock { $0.clear() }
        for error in errors.withLock({ $0 }) { Terminal.err("Error: \(error)\n") }
        let elapsed = Executables.seconds(clock.now - start)
        Terminal.out(summary(session, seconds: elapsed, listFeatures: listFeatures))
        if let path = args.value("json") {
            let lines = session.failures.map { $0.json(flaws: flaws) } + [session.summaryJSON(seconds: elapsed, shard: shard, seed: seed)]
            try RunCommand.save(lines: lines, to: path)
        }
        return session.failures.isEmpty ? 0 : 1
    }

    /// A finding as printed when it is found.
    private static func report(_ finding: Finding, out: String) -> String {
        """
        FAIL  seed \(finding.seed)  breaks \(finding.property)  (\(finding.options))
        \(finding.message.replacing(finding.fileName + ":", with: file(finding, out: out) + ":"))
          shrunk from \(finding.originalSteps) steps to \(finding.shrunk.count) (\(finding.shrinkRuns) runs): \(file(finding, out: out))

        """
    }

    /// The extension in `folder` with its own pages (its manifest was checked already).
    private static func ownPages(_ folder: String) throws(CommandError) -> Explorer.OwnPages {
        guard case .success(let (manifest, _)) = ExtensionManifest.load(folder: folder) else {
            throw .invalidInput("--extension \(folder): its manifest could not be read")
        }
        let pages = Explorer.OwnPages(manifest)
        guard !pages.folder.contains(where: { $0.isWhitespace }) else {
            throw .usage("--pages: each schedule names the extension as 'extension \(pages.folder) pages', and a scenario's word has no spaces: move the folder, or link it from a path without them")
        }
        return pages
    }

    private static func file(_ finding: Finding, out: String) -> String {
        "\(out)/\(finding.fileName)"
    }

    /// Writes the shrunk scenario into `out`, made if missing.
    private static func write(_ finding: Finding, out: String, flaws: Set<Flaw>, explorer: Explorer) throws(CommandError) {
        if mkdir(out, 0o755) != 0 && errno != EEXIST { throw .invalidInput("\(out): \(String(cString: strerror(errno)))") }
        let path = file(finding, out: out)
        try RunCommand.save(finding.scenarioText(file: path, flaws: flaws, extensionFolder: explorer.extensionFolder,
                                                    differential: explorer.differentialReference != nil, pages: explorer.ownPages != nil), to: path)
    }

    /// The shrunk scenario's page beside it, and the folder's index again.
    private static func addPage(_ finding: Finding, explorer: Explorer, flaws: Set<Flaw>, out: String, to folder: inout ReportFolder) throws(CommandError) {
        let run: RunPage.Run
        do { run = try explorer.page(for: finding, file: file(finding, out: out), flaws: flaws) } catch {
            throw .invalidInput("the shrunk scenario of seed \(finding.seed) could not be run for its page: \(error)")
        }
        do {
            try folder.add(run)
            try folder.writeIndex(title: "harness explore: failures found")
        } catch { throw .invalidInput("\(out): \(error)") }
    }

    private static func summary(_ session: ExploreSession, seconds: Double, listFeatures: Bool) -> String {
        var text = "\n\(session.runs) runs, \(session.steps) steps, \(BenchCommand.format(Double(session.runs) / max(seconds, 1e-9), places: 0)) runs/s, \(BenchCommand.format(seconds, places: 1)) s; "
        text += "\(session.failures.count) properties broken\n"
        for (property, seen) in session.broken.sorted(by: { $0.key < $1.key }) {
            text += "  \(property): \(seen.seeds) seed(s), first \(seen.first)\n"
        }
        for problem in session.invalid { text += "  generator: \(problem)\n" }
        text += "coverage:\n"
        for key in Coverage.keys { text += "  \(key)  \(session.coverage.counts[key] ?? 0)\n" }
        let unreached = session.coverage.unreached
        text += unreached.isEmpty ? "every counter reached\n" : "unreached: \(unreached.joined(separator: ", "))\n"
        if session.signatures {
            let corpus = session.corpus.map { "\(session.mutants) runs of mutants, corpus \($0.entries.count) schedules, " } ?? ""
            text += "signatures: \(corpus)\(session.features.count) distinct features\n"
            if listFeatures { for name in session.features.map(CoverageSignature.name).sorted() { text += "  \(name)\n" } }
        }
        if session.digests { text += "trace digest \(ExploreSession.hex(session.digest))\n" }
        return text
    }

    /// `--search swarm|guided`; guided when absent.
    private static func search(_ text: String?) throws(CommandError) -> Search {
        guard let text else { return .guided }
        guard let search = Search(rawValue: text) else {
            let hint = nearestWord(text, in: Search.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
            throw .usage("'--search' expects swarm or guided, not '\(text)'\(hint)")
        }
        return search
    }

    /// `--merge FILE...`: adds up the summary lines of shards and lists their failures.
    private static func merge(_ args: CommandLineArguments) throws(CommandError) -> Int32 {
        guard !args.positionals.isEmpty else { throw .usage("--merge needs the JSON files the shards wrote") }
        var merged = ExploreMerge()
        for path in args.positionals {
            let text = String(decoding: try Terminal.readFile(path), as: UTF8.self)
            do { try merged.add(text, file: path) } catch { throw .invalidInput(error.description) }
        }
        Terminal.out(merged.report)
        return merged.failures.isEmpty ? 0 : 1
    }

    /// `--shard I/N` (1 ≤ I ≤ N), or 1/1.
    private static func shard(_ text: String?) throws(CommandError) -> (index: Int, count: Int) {
        guard let text else { return (1, 1) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
            throw .usage("'--shard' expects I/N with 1 <= I <= N, as '3/8', not '\(text)'")
        }
        return (index, count)
    }

    /// `--time 30s`, `10m`, `2h` or plain seconds.
    private static func seconds(_ text: String) throws(CommandError) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        let unit = text.last.flatMap { units[$0] }
        guard let number = Int(unit == nil ? text : String(text.dropLast())), number > 0 else {
            throw .usage("'--time' expects a duration as 30s, 10m or 2h, not '\(text)'")
        }
        return number * (unit ?? 1)
    }

    private static func rate(_ count: Int, _ elapsed: Duration) -> String {
        BenchCommand.format(Double(count) / max(Executables.seconds(elapsed), 1e-9), places: 0)
    }
}
