#if canImport(Glibc)
import Glibc
#endif
import HarnessCore
import ProcessKit
import SiteSettings

/// `harness bench`: speed measurements, printed as medians of rounds run side by side.
/// Benchmarks are measured and reported, never asserted.
enum BenchCommand: HarnessCommand {
    static let name = "bench"
    static let abstract = "Measure resolution speed, process start-up, native requests, events, memory, exploring, searching and run pages."
    static let usage = "harness bench [resolve|psl-first|native|events|memory|steps|explore|search|report|extension|all] [--sites N,N,...] [--steps N,N,...] [--rounds N] [--runs N] [--flaw NAME[,NAME...]]"
    static let discussion = """
        resolve: resolutions per second (a URL string in, a decision out) for documents of
          --sites sizes (default 10,1000,100000), a third each host, domain and page records,
          over 65,536 distinct URL strings; --rounds rounds (default 5) interleave the sizes, and
          the median of each is printed with the cost ratio to the smallest size.
        psl-first: the first registrable-domain lookup in a fresh process, timed inside
          --runs fresh processes (default 21); prints the median and the spread.
        native: one native request end to end (spawn the handler, send a snapshot request, read
          the reply, reap), beside spawning and reaping /bin/true, alternating, --runs times
          each (default 201), both spawned the same way (posix_spawn with pipes, reaped with
          waitpid); prints both medians and their ratio.
        events: inputs delivered per second on each transport, for a run with tabs, the popup,
          the app, a lock contention, unloads and time; --rounds rounds (default 5) alternate
          the transports; prints the medians and their ratio.
        memory: runs every named scenario on real processes while sampling the resident memory
          of the harness and its running children each millisecond; prints the sampled peak of
          the sum (a lower bound) and the sum of peaks: the harness's peak plus the most children
          at once times the largest peak seen in a child (nearly an upper bound: a child's last
          moments can fall between two samples).
        steps: what a scenario costs as it grows: scenarios of --steps lengths (default
          250,500,1000,2000) of popup changes with no settle between, and of app edits, made as
          typed steps, printed and parsed, and run in process; --rounds rounds (default 3)
          interleave the lengths; prints each median, the cost per step, and its ratio to the
          shortest's (1 for a cost that grows linearly).
        explore: schedules explored per second at the default length (30 steps), in process,
          --runs schedules (default 500) with one worker and with one per core (swarm), and
          guided search with one per core, --rounds rounds (default 3) alternating; prints the
          medians, steps per second and the ratios.
        search: for each catalogued flaw (or those of --flaw), the schedules swarm and guided
          search run before the first that fails with the flaw on, side by side, in --rounds
          rounds (default 3) from seeds 1, 1000001, ..., with a budget of --runs schedules
          (default 50000); a failure counts when its schedule passes with the flaw off. Prints
          each median with every round's count, the schedules and time each search took, and
          whether guided search met its goals (every other flaw within 2000 schedules,
          timeout-from-the-last-input within 10000). It takes minutes, and is not part of all.
        report: what a run's page costs: every named scenario runs once in process, then each
          page is made and written (--rounds rounds, default 5); prints the page of the longest
          trace (median time, size, and its run's time beside it) and the totals.
        extension: the JavaScript background beside the built-in one on real processes (needs
          node): every named scenario with each (Scenarios/extensions/site-settings for the
          JavaScript), alternating scenario by scenario, --rounds rounds (default 3); prints the
          median totals, each background's incarnations, the ratio of the totals and the median,
          fastest and slowest ratio per scenario; then schedules explored per second with each,
          one worker, --runs schedules (default 50). It takes minutes, and is not part of all.
        pages: what a page costs in the page host (needs node and jsdom): a host's start to its
          first page (jsdom loads once per host), a plain page's load and a 500-element page's
          load (--runs each, default 21, alternating), and a host's reset for the next run,
          --rounds rounds (default 3); prints each median. It is not part of all.
        Build with -c release for meaningful numbers: swift run -c release harness bench.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["sites", "steps", "rounds", "runs", "flaw"], flags: [])
        let which = args.positionals.first ?? "all"
        if args.positionals.count > 1 { throw .usage("unexpected argument '\(args.positionals[1])'") }
        switch which {
        case "psl-first-child":
            return firstLookupChild()
        case "resolve", "psl-first", "native", "events", "memory", "steps", "explore", "search", "report", "extension", "pages", "all":
            break
        default:
            let hint = nearestWord(which, in: ["resolve", "psl-first", "native", "events", "memory", "steps", "explore", "search", "report", "extension", "pages", "all"]).map { "; did you mean '\($0)'?" } ?? ""
            throw .usage("unknown benchmark '\(which)'\(hint)")
        }
        if args.value("flaw") != nil && which != "search" { throw .usage("'--flaw' is for 'harness bench search'") }
        let rounds = try args.count("rounds", default: which == "steps" || which == "explore" || which == "search" || which == "extension" || which == "pages" ? 3 : 5)
        let runs = try args.count("runs", default: which == "native" ? 201 : which == "explore" ? 500 : which == "search" ? 50_000 : which == "extension" ? 50 : 21)
        var sizes = [10, 1000, 100_000]
        if let text = args.value("sites") {
            let parsed = text.split(separator: ",").map { Int($0) }
            guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 }) else {
                throw .usage("'--sites' expects positive whole numbers separated by commas, not '\(text)'")
            }
            sizes = parsed.map { $0! }
        }
        var lengths = [250, 500, 1000, 2000]
        if let text = args.value("steps") {
            let parsed = text.split(separator: ",").map { Int($0) }
            guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) > 0 && ($0 ?? 0) <= 1_000_000 }) else {
                throw .usage("'--steps' expects whole numbers from 1 to 1000000 separated by commas, not '\(text)'")
            }
            lengths = parsed.map { $0! }
        }
        if which == "resolve" || which == "all" { benchResolve(sizes: sizes, rounds: rounds) }
        if which == "psl-first" || which == "all" { benchFirstLookup(runs: runs) }
        if which == "native" || which == "all" { try benchNativeRequest(runs: which == "all" ? 201 : runs) }
        if which == "events" || which == "all" { benchEvents(rounds: rounds) }
        if which == "memory" || which == "all" { try MemoryBench.run() }
        if which == "steps" || which == "all" { try StepsBench.run(lengths: lengths, rounds: rounds) }
        if which == "explore" || which == "all" { try ExploreBench.run(runs: which == "all" ? 500 : runs, rounds: rounds) }
        if which == "extension" { try ExtensionBench.run(runs: runs, rounds: rounds) }
        if which == "pages" { try PagesBench.run(runs: runs, rounds: rounds) }
        if which == "report" || which == "all" { try ReportBench.run(rounds: which == "all" ? 5 : rounds) }
        if which == "search" {
            let chosen = try RunCommand.parseFlaws(args.value("flaw"))
            let flaws = chosen.isEmpty ? Flaw.allCases : Flaw.allCases.filter(chosen.contains)
            try SearchBench.run(runs: runs, rounds: rounds, flaws: flaws, workers: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        }
        return 0
    }

    // MARK: - Resolution

    /// A document of `count` sites and URLs that hit them, one third each host, domain and page.
    static func workload(sites count: Int, urls: Int = 65_536) -> (SettingsDocument, [String]) {
        var document = SettingsDocument(documentId: DocumentID.derive(seed: 1, sequence: 0))
        document.defaults.mode = .auto
        let themes: [Theme] = [.sepia, .gray, .invert]
        for i in 0..<count {
            let key: String
            switch i % 3 {
            case 0: key = "www.s\(i).com"
            case 1: key = ".s\(i).org"
            default: key = "s\(i).net/app/p\(i)"
            }
            let scope = try! ScopeKey.parse(key)
            let values = SiteValues(mode: i % 5 == 0 ? .on : nil, theme: themes[i % 3])
            document.sites[scope] = SiteRecord(values: values, changedAt: [.theme: Stamp(at: 1)])
        }
        var list: [String] = []
        list.reserveCapacity(urls)
        for j in 0..<urls {
            let i = (j &* 7919) % count
            switch i % 3 {
            case 0: list.append("https://www.s\(i).com/index.html?q=\(j)")
            case 1: list.append("https://news.s\(i).org/a/b?j=\(j)")
            default: list.append("https://s\(i).net/app/p\(i)#top\(j)")
            }
        }
        return (document, list)
    }

    private static func benchResolve(sizes: [Int], rounds: Int) {
        Terminal.out("resolve: preparing documents of \(sizes.map(String.init).joined(separator: ", ")) sites\n")
        let workloads = sizes.map { size in
            let (document, urls) = workload(sites: size)
            return (Resolver(document: document), urls)
        }
        let context = DecisionContext(appearance: .dark, now: 1_783_936_800_000)
        var nanos = Array(repeating: [Double](), count: sizes.count)
        var sink = 0
        let clock = ContinuousClock()
        for round in 1...rounds {
            for (index, (resolver, urls)) in workloads.enumerated() {
                var done = 0
                let start = clock.now
                var elapsed = Duration.zero
                repeat {
                    for url in urls where resolver.decide(url: url, context: context).enabled { sink &+= 1 }
                    done += urls.count
                    elapsed = clock.now - start
                } while elapsed < .milliseconds(300)
                let perResolution = seconds(elapsed) * 1e9 / Double(done)
                nanos[index].append(perResolution)
                Terminal.out("  round \(round)/\(rounds): \(sizes[index]) sites: \(format(perResolution)) ns per resolution\n")
            }
        }
        Terminal.out("resolve (median of \(rounds) rounds, checksum \(sink)):\n")
        let base = median(nanos[0])
        for (index, size) in sizes.enumerated() {
            let m = median(nanos[index])
            Terminal.out("  \(String(size).padding(8)) sites  \(format(m).padding(8)) ns  \(format(1e9 / m / 1e6)) M resolutions/s  cost ratio to \(sizes[0]) sites: \(format(m / base))\n")
        }
    }

    // MARK: - First lookup

    private static func firstLookupChild() -> Int32 {
        let clock = ContinuousClock()
        let start = clock.now
        let domain = PublicSuffixList.embedded.registrableDomain(of: "www.docs.example.co.uk")
        let elapsed = clock.now - start
        let answer = JSONValue.object(["nanoseconds": .integer(Int64(seconds(elapsed) * 1e9)), "domain": .string(String(domain ?? "-"))])
        return (try? FrameWriter(descriptor: 1).write(JSONWriter.compact(answer))) == nil ? 1 : 0
    }

    private static func benchFirstLookup(runs: Int) {
        var samples: [Double] = []
        for run in 1...runs {
            guard let child = try? ChildProcess(executable: Executables.current, arguments: ["bench", "psl-first-child"]),
                  let frame = try? child.receive(timeoutMilliseconds: 10_000),
                  case .object(let answer)? = try? JSONParser.parse(frame), case .integer(let ns)? = answer["nanoseconds"] else {
                Terminal.err("psl-first: run \(run) failed\n")
                continue
            }
            _ = child.wait()
            samples.append(Double(ns))
        }
        guard !samples.isEmpty else { return }
        let sorted = samples.sorted()
        Terminal.out("psl-first (\(samples.count) fresh processes): median \(format(median(samples) / 1000)) µs, min \(format(sorted.first! / 1000)) µs, max \(format(sorted.last! / 1000)) µs\n")
    }

    // MARK: - Native request

    private static func benchNativeRequest(runs: Int) throws(CommandError) {
        let directory = Executables.directory
        let container = "/tmp/harness-bench-\(getpid())"
        mkdir(container, 0o755)
        defer {
            for name in ["settings.json", "settings.lock"] { unlink(container + "/" + name) }
            rmdir(container)
        }
        var document = workload(sites: 10).0
        document.documentId = "BENCH"
        let bytes = DocumentCodec.encode(document)
        do { try FileIO.writeSynced(bytes, to: container + "/settings.json", name: "settings.json") } catch {
            throw .invalidInput("cannot write the benchmark's document: \(error)")
        }

        let run = NativeHandlerRun(executable: directory + "/NativeHandler", container: container)
        let request = JSONValue.object(["type": .string("getSnapshot")])
        let clock = ContinuousClock()
        var native: [Double] = [], spawnOnly: [Double] = []
        for index in 0..<runs {
            var start = clock.now
            do {
                let result = try run.run(request, now: 1_783_936_800_000, seed: 1)
                guard result.reply != nil else { throw CommandError.invalidInput("the handler gave no reply: \(result.stderrTail)") }
            } catch {
                throw .invalidInput("native request failed: \(error)")
            }
            native.append(seconds(clock.now - start) * 1e3)
            start = clock.now
            if let child = try? ChildProcess(executable: "/bin/true", arguments: []) { _ = child.wait() }
            spawnOnly.append(seconds(clock.now - start) * 1e3)
            if (index + 1) % 50 == 0 { Terminal.out("  native: \(index + 1)/\(runs)\n") }
        }
        let n = median(native), t = median(spawnOnly)
        Terminal.out("native request end to end (\(runs) runs each, alternating): median \(format(n)) ms; /bin/true spawn and reap: median \(format(t)) ms; ratio \(format(n / t))\n")
    }

    // MARK: - Events per transport

    /// One run of a fixed sequence of user and system events; returns the inputs delivered.
    private static func eventRun(_ transport: Simulation.Transport, directory: String) -> Int {
        mkdir(directory, 0o755)
        let simulation = Simulation(platform: .macOS, transport: transport, seed: 7, epoch: 1_783_972_740_000,
                                    executables: Executables.builtIn, directory: directory)
        defer { simulation.teardown() }
        simulation.launchApp()
        for index in 1...6 { simulation.openTab(TabID("t\(index)"), url: "https://site\(index).example/page") }
        simulation.settle()
        for index in 1...6 {
            simulation.openPopup(on: TabID("t\(index)"))
            simulation.popupEdit(set: SiteValues(theme: index % 2 == 0 ? .sepia : .dark))
            simulation.appEdit(.setDefaults(DefaultsValues(mode: index % 2 == 0 ? .on : .auto)))
            simulation.settle()
        }
        simulation.processes.hold(.handler, at: .rename)
        simulation.popupEdit(set: SiteValues(mode: .off))
        simulation.appEdit(.changeSite(scope: "other.example", set: SiteValues(mode: .on), reset: []))
        simulation.settle()
        simulation.processes.release(.handler)
        simulation.advance(by: 45_000)
        for index in 1...6 { simulation.activateTab(TabID("t\(index)")) }
        simulation.advance(by: 45_000)
        return simulation.trace.lines.filter { $0.contains(" <- ") }.count
    }

    private static func benchEvents(rounds: Int) {
        let root = "/tmp/harness-bench-events-\(getpid())"
        mkdir(root, 0o755)
        defer { Folder.remove(root) }
        let clock = ContinuousClock()
        var rates: [Simulation.Transport: [Double]] = [.process: [], .inProcess: []]
        for round in 1...rounds {
            for transport in [Simulation.Transport.process, .inProcess] {
                let directory = root + "/\(transport.rawValue)-\(round)"
                let start = clock.now
                let events = eventRun(transport, directory: directory)
                let rate = Double(events) / seconds(clock.now - start)
                rates[transport]!.append(rate)
                Terminal.out("  round \(round)/\(rounds): \(transport.rawValue): \(events) inputs, \(format(rate)) per second\n")
            }
        }
        let process = median(rates[.process]!), inProcess = median(rates[.inProcess]!)
        Terminal.out("events (median of \(rounds) rounds): process \(format(process))/s, in-process \(format(inProcess))/s, ratio \(format(inProcess / process))\n")
    }

    // MARK: - Figures

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    private static func seconds(_ duration: Duration) -> Double { Executables.seconds(duration) }

    /// A figure rounded to `places` decimals (two by default).
    static func format(_ value: Double, places: Int = 2) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return String((value * scale).rounded() / scale)
    }
}
