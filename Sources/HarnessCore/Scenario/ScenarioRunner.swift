#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// Plays a scenario on a `Simulation`. Setup steps (`platform`, `epoch`, `seed`, `shared`,
/// `cache`) come first; each action then lets its consequences play out except native replies,
/// which wait (so a tab's first answer can be checked before native corrects it), and `settle`
/// plays out everything. Expectations compare what a tab applied, what the popup and the app show,
/// and the shared document.
package final class ScenarioRunner {
    typealias UserEdit = InvariantMonitor.UserEdit
    /// What a run found.
    package struct Outcome: Sendable {
        /// Each failure as `harness run` prints it: the line, the message, the state of the run
        /// and the trace that explains it (`marks.failures` has each as a value).
        package var failures: [String]
        /// The lines of planned faults no process reached (only when `faultsMayGoUnreached`).
        var unreachedFaultLines: [Int]
        package var steps: Int
        /// Virtual time from the epoch to the end of the run.
        package var virtualTime: EpochMillis
        /// When the run started, in Unix milliseconds: the trace's times count from it.
        package var epoch: EpochMillis = 0
        /// The run's trace as its events; `trace` gives its lines.
        package var log: TraceLog
        package var trace: [String] { log.lines }
        /// Every arrival of a process at a yield point before healing, in order.
        package var arrivals: [YieldArrival]
        /// How many changes waited to be flushed at each flush of the simulated disk, at each
        /// arrival at a yield point, and after the last step (in-process transport; before healing).
        package var unsyncedAtFlushes: [Int]
        var unsyncedAtArrivals: [Int]
        var unsyncedAtEnd: Int
        /// A planned power cut the steps never got to (explored runs only; it was dropped
        /// before healing, so that no cut happens where `--power-loss` could not put it).
        var powerCutMissed = false
        /// Where each step and failure happened in the trace, for the run's page.
        package var marks = RunMarks()
        /// Why the run did not happen, when it did not: its extension's JavaScript needs `node`
        /// and the process transport. A skipped run has not passed.
        package var skipped: String?
        /// The `expect-failure` lines whose failure happened, as `line 12` or `invariant 5`:
        /// those failures are the scenario's point, not the run's failures.
        package var knownFailures: [String] = []
        /// With `recordsObservations`, what the run showed after every `settle` and once healed.
        var observations: [Observation] = []
        /// What played each role: the command's choice, with the scenario's own lines over it.
        package var roles = RoleNames()
        package var passed: Bool { failures.isEmpty && skipped == nil }
        /// What each failure broke, in the same order.
        var properties: [Property] { marks.failures.map(\.property) }
    }

    /// What a run showed at one moment (`Differential.observation`), and the line it followed.
    struct Observation: Sendable, Equatable {
        var line: Int
        var healed: Bool
        var text: String
    }

    let scenario: Scenario
    private let transport: Simulation.Transport
    private var executables: ProcessExecutables
    /// The extension's version as the run starts (its manifest's, read once).
    private var startingVersion = "1.0"
    /// The folders the scenario's updates install, by the path it wrote.
    var updateFolders: [String: ExtensionVersion.Folder] = [:]
    /// The controls of the extension's popup as installed (`extension DIR pages`): the
    /// setup's, or an update's folder's.
    var popupControls = ExtensionManifest.PopupControls()
    /// The manifest of the extension the background runs, if it runs one.
    private var installed: ExtensionManifest?
    private let directory: String
    private let folder: String
    private let flaws: Set<Flaw>
    /// The line being played, for the edits it makes.
    var currentLine: Int?
    let crashAt: YieldArrival?
    let powerCut: PowerCutPlan?
    private let seed: UInt64
    /// The starting state, read from the setup lines before anything starts.
    var setup: ScenarioSetup?
    var simulation: Simulation?
    /// The number of the last app edit, for `expect app answer`.
    var lastAppEdit: Int?
    private var failures: [String] = []
    private var unreachedFaultLines: [Int] = []
    private var powerCutMissed = false
    /// An explored schedule plans faults at random: one no process reaches is not a mistake
    /// there (it is reported in the outcome, and a shrunk scenario leaves it out).
    var faultsMayGoUnreached = false
    /// Only for proving a determinism check: in-process processes hide this yield point.
    var inProcessHiddenYield: YieldPoint?
    /// Reads the shared document's and the cache's revisions after every step, for the run's
    /// page (`marks.revisions`); off by default, as it parses both files each time.
    package var readsRevisions = false
    private var marks = RunMarks()
    /// Records what the run shows after every `settle` and once healed, for a differential run.
    package var recordsObservations = false
    /// Plays the scenario with the background it was given, whatever its `extension` step
    /// names (the built-in one a differential run compares with).
    var ignoresExtensionStep = false
    /// What plays each role as the command chose it, in words (`Outcome.roles`).
    package var roles = RoleNames()
    /// The extension the command named (`--extension`), which a probe runs.
    package var extensionFolder: String?
    /// In a probe, the address every tab opens at: one the extension's content scripts match.
    var probeAddress: String?
    private var observations: [Observation] = []

    /// `folder` is where files a scenario names (`shared file PATH`) are found; by default the
    /// folder of the scenario's name, read as a path.
    /// `crashAt` kills a process at one arrival at a yield point, and `powerCut` (in-process)
    /// cuts the power at one flush; the scenario's expectations are then not checked (they
    /// describe the run without it), only the invariants.
    package init(_ scenario: Scenario, transport: Simulation.Transport, seed: UInt64, executables: ProcessExecutables, directory: String,
                folder: String? = nil, flaws: Set<Flaw> = [], crashAt: YieldArrival? = nil,
                powerCut: PowerCutPlan? = nil) {
        self.scenario = scenario
        self.flaws = flaws
        self.crashAt = crashAt
        self.powerCut = powerCut
        self.folder = folder ?? scenario.folder
        self.transport = transport
        self.seed = seed
        self.executables = executables
        self.directory = directory
    }

    /// Runs every step. The setup is read first (a document file that cannot be read is a
    /// usage error, before anything starts); a fault that was planned and never happened is a
    /// usage error too. A failed expectation is recorded and the run goes on.
    /// Invariants 1, 3, 5 and 10 are checked after every step; after the last, the run is healed
    /// (faults off, everything answered, Safari in front) and they are checked again, with the
    /// oracle (2) and convergence (4).
    package func run() throws(ScenarioErrors) -> Outcome {
        defer { simulation?.teardown() }
        setup = try ScenarioSetup(scenario, seed: seed, folder: folder)
        // A scenario's own `extension` step wins over a background the command chose.
        if let folder = setup!.extensionFolder, !ignoresExtensionStep {
            switch ExtensionRuntime.background(replacing: executables, extension: folder, transport: transport, ownPages: setup!.extensionPages) {
            case .success(let chosen): executables = chosen
            case .failure(let reason): return skipped(reason.description)
            }
            roles.background = RoleNames.extensionFolder(folder)
        }
        let ownRoles = ScenarioRoles(scenario: scenario, setup: setup!, transport: transport)
        if setup!.isProbe {
            switch ownRoles.probe(extensionFolder, executables) {
            case .success(let probe):
                executables = probe.executables
                probeAddress = probe.address
                roles.background = RoleNames.extensionFolder(probe.folder)
            case .failure(let reason): return skipped(reason.description)
            }
        }
        executables = try ownRoles.limited(executables)
        switch try ownRoles.withTeamHandler(executables) {
        case .success(let chosen): executables = chosen
        case .failure(let reason): return skipped(reason.description)
        }
        if !setup!.handlerSources.isEmpty { roles.handler = RoleNames.handlerSources(setup!.handlerSources) }
        switch try ownRoles.installed(by: executables.background) {
        case .success(let manifest): installed = manifest
        case .failure(let reason): return skipped(reason.description)
        }
        // The version a run starts with: the manifest's, or 1.0 for the built-in design's.
        startingVersion = installed.map(ExtensionVersion.of) ?? "1.0"
        updateFolders = try ExtensionVersion.checkUpdates(in: scenario, startingAt: startingVersion, background: executables.background, folder: folder)
        popupControls = setup!.popupControls
        if executables.teamHandler { try ownRoles.refuseBuiltInHandlerSteps() }
        let stubs = try ownRoles.fetchStubs(&executables, beside: directory)
        defer { if let stubs { Folder.remove(stubs) } }
        do {
            return try play()
        } catch {
            throw ScenarioErrors([error])
        }
    }

    /// The outcome of a run that did not happen, saying why.
    private func skipped(_ reason: String) -> Outcome {
        var outcome = Outcome(failures: [], unreachedFaultLines: [], steps: 0, virtualTime: 0, log: TraceLog(epoch: setup!.epoch), arrivals: [],
                              unsyncedAtFlushes: [], unsyncedAtArrivals: [], unsyncedAtEnd: 0, skipped: reason)
        outcome.roles = roles
        return outcome
    }

    private func play() throws(ScenarioError) -> Outcome {
        marks.profile = setup!.profile
        for line in scenario.lines {
            if !line.step.isSetup {
                marks.steps.append(RunMarks.Step(line: line.number, traceIndex: simulation?.trace.count ?? 0, at: simulation?.now ?? setup!.epoch))
            }
            perform(line)
            if simulation != nil { checkInvariants(after: line) }
            if recordsObservations, case .settle = line.step, let simulation {
                observations.append(Observation(line: line.number, healed: false, text: Differential.observation(of: simulation)))
            }
            if readsRevisions, let simulation { marks.revisions.append(RunMarks.revisions(of: simulation)) }
        }
        let last = scenario.lines.last!
        let simulation = started()
        simulation.settle()
        let virtualTime = simulation.now - setup!.epoch
        let unsyncedAtEnd = transport == .inProcess ? simulation.disk.unsynced.count : 0
        simulation.cutPowerAtTheEnd()
        try checkFaultsWereReached(simulation)
        let arrivals = simulation.processes.arrivals, unsyncedAtArrivals = simulation.processes.unsyncedAtArrivals
        let unsyncedAtFlushes = simulation.disk.unsyncedAtFlushes
        Healing(simulation: simulation).heal()
        checkInvariants(after: last, healed: true)
        if simulation.safari.runsOwnPages {
            checkPagesWereAnswered(simulation, after: last)
            checkPagesLoadAfresh(simulation, after: last)
        }
        if recordsObservations { observations.append(Observation(line: last.number, healed: true, text: Differential.observation(of: simulation))) }
        if readsRevisions { marks.revisions.append(RunMarks.revisions(of: simulation)) }
        let known = judgeKnownFailures()
        return Outcome(failures: failures, unreachedFaultLines: unreachedFaultLines, steps: scenario.lines.count, virtualTime: virtualTime, epoch: setup!.epoch, log: simulation.trace.log,
                       arrivals: arrivals, unsyncedAtFlushes: unsyncedAtFlushes, unsyncedAtArrivals: unsyncedAtArrivals,
                       unsyncedAtEnd: unsyncedAtEnd, powerCutMissed: powerCutMissed, marks: marks, knownFailures: known,
                       observations: observations, roles: roles)
    }

    /// The scenario's `expect-failure` lines against what failed: the failures they mark are
    /// taken out of the run's (and returned, in the lines' order), and a marked failure that
    /// did not happen fails the run at its line. A run with a crash or a power cut of its own
    /// does not check the scenario's expectations, so there a marked failure may or may not
    /// happen: it is excused, not demanded.
    private func judgeKnownFailures() -> [String] {
        let marked = scenario.lines.compactMap { line -> (Scenario.Line, KnownFailure)? in
            switch line.step {
            case .expectFailure(let number): (line, .invariant(number))
            case .expect(_, _, fails: true): (line, .line(line.number))
            default: nil
            }
        }
        guard !marked.isEmpty else { return [] }
        let happened = marked.filter { _, known in marks.failures.contains(where: known.matches) }
        let kept = marks.failures.indices.filter { index in !marked.contains { $0.1.matches(marks.failures[index]) } }
        failures = kept.map { failures[$0] }
        marks.failures = kept.map { marks.failures[$0] }
        if crashAt == nil && powerCut == nil {
            for (line, known) in marked where !happened.contains(where: { $0.1 == known }) {
                let what = switch known {
                case .line: "the expectation held: the known failure this line marks did not happen (if the bug is fixed, write 'expect' here)"
                case .invariant(let number): "the run never broke invariant \(number): the known failure this line marks did not happen (if the bug is fixed, remove the line)"
                }
                fail(line, .expectation, what)
            }
        }
        return happened.map { $0.1.description }
    }

    /// A planned fault that never happened is a mistake in the scenario or the command line
    /// (a usage error), not a pass: a reproduction that reproduces nothing must say so. In a
    /// sweep's run the scenario's own faults may be pre-empted by the sweep's, so only the
    /// sweep's must have happened.
    private func checkFaultsWereReached(_ simulation: Simulation) throws(ScenarioError) {
        if let crashAt, !simulation.processes.crashAtReached {
            throw ScenarioError(file: scenario.name, line: 0, message: "no process reached \(crashAt): nothing was crashed")
        }
        if let powerCut, simulation.powerCuts.pending {
            guard faultsMayGoUnreached else {
                throw ScenarioError(file: scenario.name, line: 0, message: "the run never got to \(powerCut): the power was never cut")
            }
            simulation.powerCuts.drop()
            powerCutMissed = true
        }
        // The first unreached fault by the line that planned it (the last one naming its kind,
        // process and point), so the report never depends on the order they were kept in.
        let unreached = simulation.processes.faultsNeverReached.map { fault in (fault, scenario.lines.last { Self.plans($0.step, fault) } ?? scenario.lines.last!) }
        if faultsMayGoUnreached && crashAt == nil {
            unreachedFaultLines = Set(unreached.map(\.1.number)).sorted()
            return
        }
        guard crashAt == nil && powerCut == nil,
              let (fault, line) = unreached.min(by: { ($0.1.number, $0.0.description) < ($1.1.number, $1.0.description) }) else { return }
        let message = "'\(fault)' was never reached: the \(fault.process.rawValue) never got to \(fault.point.rawValue) after it"
        // A process stuck (held, or waiting for a lock that is never released) is a run that
        // stopped short, not a scenario asking for something impossible: say where each is.
        let stuck = simulation.processes.stuck
        if !stuck.isEmpty { return fail(line, .run, message + "; when the run ended, " + stuck.joined(separator: "; ")) }
        // A flaw may skip the very step a fault waits for (no lock, no write): that run shows a
        // difference, reported as a failure, which a flaw test does not count as a catch.
        if !flaws.isEmpty { return fail(line, .run, message) }
        throw ScenarioError(file: scenario.name, line: line.number, message: message)
    }

    /// Whether a step planned this fault.
    private static func plans(_ step: Step, _ fault: PlannedFault) -> Bool {
        switch step {
        case .hold(let process, let point): fault == PlannedFault(.hold, process, at: point)
        case .crash(let process, let point): fault == PlannedFault(.crash, process, at: point)
        case .fail(let process, let point, _, _): fault == PlannedFault(.fail, process, at: point)
        default: false
        }
    }

    /// Invariant 17, once healed, for the extension's own pages: every message a page that is
    /// still there sent has been answered, or has failed. One still waiting is held by a
    /// background that took it and never answered (a listener that returned true or a promise
    /// that never settles), with nothing left to wait for.
    /// A page of a profile not in front waits with its profile, whose extension does not run
    /// while it is put away: only the front profile's pages are judged.
    private func checkPagesWereAnswered(_ simulation: Simulation, after step: Scenario.Line) {
        for (id, question) in simulation.safari.pageQuestions.sorted(by: { $0.key < $1.key }) {
            if question.profile != simulation.safari.profile { continue }
            let holder = question.takenBy.map { "background#\($0) took it and never answered" } ?? "no background has taken it"
            fail(step, .invariant(17), "after the run (healed): \(question.from.page(in: question.profile).name)'s message \(id) is still waiting for its answer: \(holder)",
                 healed: true, about: { if case .tab(let tab, _) = question.from { tab } else { nil } }())
        }
    }

    /// Invariant 16, once healed, for the extension's own pages: with Safari in front, every
    /// tab's page shows what it shows when it loads afresh. Each tab reloads; a page whose
    /// style, classes, data, attributes or style elements then differ held a look nothing would
    /// have corrected.
    private func checkPagesLoadAfresh(_ simulation: Simulation, after step: Scenario.Line) {
        simulation.safariForeground()
        simulation.settle()
        let before = simulation.pageStates
        simulation.trace.record(simulation.now, "harness", "every tab loads afresh (invariant 16)")
        for tab in simulation.tabs.keys.sorted() { simulation.reloadTab(tab) }
        simulation.settle()
        for tab in before.keys.sorted() {
            guard let was = before[tab], let now = simulation.pageStates[tab], was != now else { continue }
            fail(step, .invariant(16), "after the run (healed): tab \(tab)'s page showed \(was.summary); loaded afresh it shows \(now.summary)",
                 healed: true, about: tab.tab)
        }
    }

    /// Invariants 1, 3, 5 and 10 (and, once healed, 2 and 4), each problem a failure at `step`,
    /// reported where it is first seen.
    private func checkInvariants(after step: Scenario.Line, healed: Bool = false) {
        guard let simulation else { return }
        let label = healed ? "after the run (healed)" : "after this step"
        for problem in simulation.monitor.newProblems(simulation, healed: healed) { fail(step, problem.property, "\(label): \(problem)", healed: healed) }
    }

    /// Records a failure at `line`: the problem, the state of the run then, and the lines of
    /// the trace that explain it (those about `tab`, when it is about one).
    func fail(_ line: Scenario.Line, _ property: Property, _ message: String, healed: Bool = false, about tab: TabID? = nil) {
        marks.failures.append(RunMarks.Failure(line: line.number, step: line.text, property: property, message: message, afterHealing: healed,
                                               traceIndex: simulation?.trace.count ?? 0, at: simulation?.now ?? setup!.epoch))
        // A failure found while healing belongs to no line: it says so, and what it breaks.
        let healedLabel = "after the run (healed): "
        var report = healed
            ? "\(scenario.name): after the run (healed), \(property)\n  \(message.hasPrefix(healedLabel) ? String(message.dropFirst(healedLabel.count)) : message)"
            : "\(scenario.name):\(line.number): \(line.text)\n  \(message)"
        if let simulation {
            let (lines, total) = FailureContext.lines(of: simulation.trace.log, about: tab)
            let about = tab.map { "tab \($0.rawValue), the backgrounds' lives and native exchanges, Safari's notes" } ?? "all but yield points and storage completions"
            report += "\n  then: \(FailureContext.state(of: simulation, flaws: flaws))"
            report += "\n  the trace that explains it (\(lines.count) of \(total) lines: \(about)):\n" + lines.map { "    " + $0 }.joined(separator: "\n")
        }
        failures.append(report)
    }

    /// The simulation, started from the setup at the first step that needs it.
    func started() -> Simulation {
        if let simulation { return simulation }
        let setup = setup!
        if transport == .process { mkdir(directory, 0o755) }
        let simulation = Simulation(platform: setup.platform, transport: transport, seed: setup.seed, epoch: setup.epoch,
                                    executables: executables, directory: directory, profile: setup.profile)
        simulation.flaws = flaws
        simulation.processes.crashAt = crashAt
        simulation.processes.hiddenYield = inProcessHiddenYield
        simulation.alarmMinimum = setup.alarmMinimum
        simulation.backgroundLoadTime = setup.backgroundLoadTime
        simulation.actionDefaults = installed?.actionDefaults ?? [:]
        simulation.persistentBackground = installed?.background?.persistent == true
        simulation.commandNames = Set(installed?.commandNames ?? [])
        simulation.optionsPage = installed?.optionsPage
        simulation.processes.handlerReuse = setup.handlerReuse
        (simulation.safari.installedVersion, simulation.safari.manifestVersion) = (startingVersion, startingVersion)
        // A probe checks what every extension keeps, not the design's invariants.
        simulation.monitor.checksDesign = !setup.isProbe
        if let powerCut { simulation.powerCuts.plan(powerCut) }
        let good = setup.shared ?? setup.emptyDocument
        if setup.damaged {
            let bytes = DocumentCodec.encode(good)
            let plantedDamage = Array(bytes.prefix(bytes.count / 2))
            simulation.plantedDamage = plantedDamage
            simulation.writeContainerFile(FileContainer.previousName, bytes)
            simulation.writeContainerFile(FileContainer.documentName, plantedDamage)
            simulation.monitor.start(from: Oracle(start: good))
        } else if let shared = setup.shared {
            simulation.writeContainerFile(FileContainer.documentName, DocumentCodec.encode(shared))
            simulation.monitor.start(from: Oracle(start: shared))
        } else if let legacyEnabled = setup.legacyEnabled {
            simulation.monitor.start(from: Oracle(legacyEnabled: legacyEnabled))
        }
        if let legacyEnabled = setup.legacyEnabled {
            simulation.writeContainerFile(FileContainer.legacyPreferencesName, JSONWriter.compact(.object([Legacy.enabledKey: .bool(legacyEnabled)])))
        }
        for (suite, values) in setup.groupDefaults.sorted(by: { $0.key < $1.key }) {
            do { simulation.writeContainerFile(GroupDefaults.fileName(suite), try GroupDefaults.write(values)) } catch {
                simulation.monitor.record("the App Group's defaults of \(suite) could not be written: \(error)")
            }
        }
        if let cache = setup.cache {
            simulation.writeStorageFile(RunFiles.localStorageName, JSONWriter.compact(LocalStorage(cache: cache, snapshotVersion: cache.version).json))
            simulation.monitor.cacheStored(profile: simulation.profile)
        }
        if setup.freshInstall { simulation.installFresh() } else if simulation.persistentBackground { simulation.handle(.runBegan) }
        self.simulation = simulation
        return simulation
    }
}

extension JSONValue {
    /// The members of an object, or nil.
    var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
