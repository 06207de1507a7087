import Glibc
import ProcessKit
import SiteSettings

/// The free-running soak (`harness soak`): the three executables at once on the real file
/// system, with no yield protocol holding them, the container's lock taken with a blocking
/// `flock`, several handlers at a time, and kills, unloads and restarts at seeded moments of
/// the wall clock. Checked as it runs (every file parses at every death and every check; no
/// edit the app or a toggle got an answer for is lost) and after healing (the oracle over every
/// answer, and every view agrees with the shared document). Runs are not reproducible; the
/// seed gives the same choices, not the same interleaving.
package enum Soak {
    package struct Options: Sendable {
        var seconds: Int
        var seed: UInt64
        /// Native handlers running at once at most.
        var handlers: Int
        /// The folder holding `AppProcess`, `ExtensionProcess` and `NativeHandler`.
        var executables: ProcessExecutables
        /// An empty folder for the container and the extension's storage.
        var directory: String
        /// Only for proving the checks: an app edit recorded as saved that no process ever
        /// made, so the shared document lacks it.
        var plantsALostEdit = false
        /// Known bugs switched on in every process (`harness soak --flaw`).
        package var flaws: Set<Flaw> = []
        /// How many native requests Safari lets be in flight at once (lowered only to show the
        /// rule at work: WebKit's is 150).
        var nativeRequestCap = SafariMachine.maximumActiveNativeRequests

        package init(seconds: Int, seed: UInt64, handlers: Int, executables: ProcessExecutables, directory: String) {
            self.seconds = seconds
            self.seed = seed
            self.handlers = handlers
            self.executables = executables
            self.directory = directory
        }
    }

    /// The site of the planted lost edit, which nobody edits.
    static let plantedSite = "planted.example"
    /// How often the shared document is checked against the oracle while the soak runs.
    static let checkEvery: EpochMillis = 500
    /// How long healing may take before what is left counts as not converged.
    static let healingLimit: EpochMillis = 30_000

    /// Runs a soak; `progress` is called about ten times a second with the counts so far and
    /// the milliseconds elapsed.
    package static func run(_ options: Options, progress: (SoakLog.Counts, EpochMillis) -> Void = { _, _ in }) -> SoakReport {
        let files = SoakFiles(container: options.directory + "/container", storage: options.directory + "/storage")
        mkdir(options.directory, 0o755)
        mkdir(files.container, 0o755)
        mkdir(files.storage, 0o755)
        let context = SoakContext(executables: options.executables, files: files, seed: options.seed, flaws: options.flaws)
        defer { context.group.killAll() }
        let handlers = SoakHandlers(limit: options.handlers, context: context)
        let app = SoakApp(context: context)
        let safari = SoakShell(context: context, handlers: handlers, app: app, nativeRequestCap: options.nativeRequestCap)
        var seeds = SeededRandom(seed: options.seed)
        let (appSeed, userSeed, faultSeed) = (seeds.next(), seeds.next(), seeds.next())
        let user = SoakUser(context: context, safari: safari, handlers: handlers)
        let faults = SoakFaults(context: context, safari: safari, app: app, handlers: handlers)
        if options.plantsALostEdit {
            let edit = context.edits.record(.app, at: context.clock.now(unique: true), .site(plantedSite), values: ["theme": "sepia"])
            context.edits.answer(edit, saved: true)
        }
        let safariThread = SoakThread { safari.run() }
        let actors = [SoakThread { app.run(seed: appSeed) }, SoakThread { user.run(seed: userSeed) },
                      SoakThread { faults.run(seed: faultSeed) }]

        let end = EpochMillis(options.seconds) * 1000
        var nextCheck = checkEvery
        while context.clock.elapsed < end {
            usleep(100_000)
            progress(context.log.counts, context.clock.elapsed)
            if context.clock.elapsed >= nextCheck {
                nextCheck += checkEvery
                check(context, healed: false)
            }
        }
        let running = context.clock.elapsed
        context.endTime()
        for thread in actors { thread.join() }
        context.log.note("time is up: faults stop, everything comes to the front")
        heal(context, safari: safari, handlers: handlers, app: app)
        check(context, healed: true)
        checkConvergence(context, safari: safari, app: app)
        safari.mailbox.post(.stop)
        safariThread.join()
        handlers.stop()
        return SoakReport(options: options, seconds: Double(running) / 1000, counts: context.log.counts,
                          acknowledged: context.edits.acknowledged, rules: safari.ruleCounts)
    }

    /// Every file parses; the shared document holds every edit the answers vouch for and no
    /// value nobody gave (invariants 1 to 3).
    private static func check(_ context: SoakContext, healed: Bool) {
        let when = healed ? "after healing" : "while running"
        context.checkFiles(when: when)
        let answers = context.edits.answers(healed: healed)
        guard let bytes = context.files.documentBytes else {
            if answers.values.contains(true) { context.log.violation("edits were saved but there is no shared document \(when) (invariant 2)") }
            return
        }
        guard let document = try? DocumentCodec.decode(bytes).document else { return }
        let oracle = context.edits.oracle()
        for problem in oracle.check(document, answers: answers) + oracle.strayValues(in: document) {
            context.log.violation("\(problem) \(when)")
        }
    }

    /// Faults off, every request answered, Safari to the front until the outbox is empty, an
    /// open popup looked at again (a background unloaded since it opened knows nothing of it),
    /// the app in front.
    private static func heal(_ context: SoakContext, safari: SoakShell, handlers: SoakHandlers, app: SoakApp) {
        let deadline = context.clock.elapsed + healingLimit
        func settle() {
            var quiet = 0
            while quiet < 3 && context.clock.elapsed < deadline {
                usleep(20_000)
                quiet = safari.isIdle && handlers.outstanding == 0 ? quiet + 1 : 0
            }
        }
        settle()
        repeat {
            safari.mailbox.post(.safari(.safariCameToForeground))
            settle()
        } while context.files.local?.outbox.isEmpty == false && context.clock.elapsed < deadline
        if let tab = safari.views.popupTab {
            safari.mailbox.post(.safari(.popupOpened(tab)))
            settle()
        }
        app.bringToFront()
        settle()
    }

    /// Invariant 4 after healing: every tab, the popup, the app and the cache agree with the
    /// shared document.
    private static func checkConvergence(_ context: SoakContext, safari: SoakShell, app: SoakApp) {
        func problem(_ text: String) { context.log.violation("\(text) after healing (invariant 4)") }
        guard let document = context.files.document else { return problem("there is no readable shared document") }
        let resolver = Resolver(document: document)
        let views = safari.views
        let session = (try? FileIO.read(context.files.storage + "/" + ExtensionStore<ExtensionFolder, WireGate>.sessionName, name: "session"))
            .flatMap { $0 }.flatMap { try? JSONParser.parse($0) }.flatMap(SessionStorage.decode)
        for (id, applied) in views.tabs.sorted(by: { $0.key < $1.key }) {
            let context = DecisionContext(appearance: .light, now: context.clock.now(), pausedUntil: session?.pausedUntil)
            let expected = resolver.decide(url: SoakWorld.tabs[id]!, context: context)
            if applied != expected {
                problem("tab \(id.rawValue) shows \(applied.map { render($0.json) } ?? "nothing"), the shared document gives \(render(expected.json))")
            }
        }
        if let tab = views.popupTab, let view = views.popup, case .success(let address) = PageAddress.parse(SoakWorld.tabs[tab]!),
           view.settings?.theme != resolver.settings(for: address).theme {
            problem("the popup shows theme \(view.settings.map { "\($0.theme)" } ?? "nothing"), the shared document gives \(resolver.settings(for: address).theme)")
        }
        if let shown = app.shown, shown != AppView(document) {
            problem("the app shows \(render(shown.json)), the shared document gives \(render(AppView(document).json))")
        } else if app.shown == nil {
            problem("the app shows nothing")
        }
        guard let local = context.files.local else { return problem("the background has no storage.local") }
        if !local.outbox.isEmpty { problem("the outbox still holds \(local.outbox.count) patch(es)") }
        if let cache = local.cache, cache != document {
            problem("the cache (revision \(cache.revision)) differs from the shared document (revision \(document.revision))")
        } else if local.cache == nil {
            problem("the background has no cache")
        }
    }
}
