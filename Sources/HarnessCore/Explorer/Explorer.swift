import ProcessKit
import SiteSettings

/// Runs random schedules (`ScheduleGenerator`) as scenarios, with every invariant and liveness
/// check the named scenarios get, and shrinks each failure to a short scenario that fails the
/// same way. A seed gives the same schedule, options and run every time.
package struct Explorer: Sendable {
    package var steps: Int
    var flaws: Set<Flaw>
    var transport: Simulation.Transport
    var executables: ProcessExecutables
    /// A folder this explorer may use for its runs (nothing is left in it).
    var directory: String
    /// Only for proving the replay check: in-process processes hide this yield point.
    var hiddenYield: YieldPoint?
    /// A power cut every run of this explorer plans (in process).
    var powerCut: PowerCutPlan?
    /// The extension whose JavaScript is the background (`executables` runs it), for the
    /// command that reruns a finding.
    package var extensionFolder: String?
    /// A quarter of the seeds give each background's load a time (`--load-times`).
    package var drawsLoadTimes = false
    /// When set, every run is played again in process with these built-in executables, and
    /// the two must show the same things (`Differential`).
    package var differentialReference: ProcessExecutables?
    /// When set, the extension's own pages run in every schedule: it names the extension with
    /// `extension FOLDER pages`, and its popup steps open the extension's popup, click in it and
    /// close it.
    package var ownPages: OwnPages?

    /// An extension whose own pages run, and what its popup steps do.
    package struct OwnPages: Equatable, Sendable {
        package var folder: String
        var popup: ScheduleGenerator.Popup

        init(folder: String, popup: ScheduleGenerator.Popup) {
            self.folder = folder
            self.popup = popup
        }

        /// The pages of the extension in `manifest`'s folder, named by its absolute path (so a
        /// finding reruns from anywhere): its popup's controls are what a user clicks and picks.
        package init(_ manifest: ExtensionManifest) {
            self.init(folder: ExtensionManifest.absolute(manifest.folder), popup: manifest.popup == nil ? .none : .own(manifest.popupControls))
        }
    }

    package init(steps: Int = 30, flaws: Set<Flaw> = [], transport: Simulation.Transport = .inProcess, executables: ProcessExecutables, directory: String) {
        self.steps = steps
        self.flaws = flaws
        self.transport = transport
        self.executables = executables
        self.directory = directory
    }

    /// The same explorer with runs that cut the power as planned, where the transport allows.
    func cutting(_ plan: PowerCutPlan?) -> Explorer {
        var copy = self
        copy.powerCut = transport == .inProcess ? plan : nil
        return copy
    }

    /// The same explorer with its own run folder (for a worker beside others).
    func folder(suffix: String) -> Explorer {
        var copy = self
        copy.directory += suffix
        return copy
    }

    /// One seed's run.
    package struct Run: Sendable {
        let seed: UInt64
        let options: SwarmOptions
        let steps: [Step]
        let outcome: ScenarioRunner.Outcome
        /// The power cut the run planned, if its transport allowed one.
        let powerCut: PowerCutPlan?
        /// The seed whose schedule guided search mutated into this one; nil for a seed's own.
        var parent: UInt64?
        /// The steps planning a fault no process reached, by index.
        var unreachedFaults: Set<Int> { Set(outcome.unreachedFaultLines.map { $0 - 1 }) }
        /// The first property the run broke, and the failure that says so.
        var failure: (property: Property, message: String)? {
            outcome.properties.first.map { ($0, outcome.failures[0]) }
        }
    }

    /// The schedule of a seed, with the seed as its first line so the scenario reruns alone.
    func schedule(seed: UInt64) -> (options: SwarmOptions, steps: [Step]) {
        let (options, steps) = ScheduleGenerator.schedule(seed: seed, count: self.steps, popup: ownPages?.popup ?? .reference, loadTimes: drawsLoadTimes)
        let pages: [Step] = ownPages.map { [.extensionFolder($0.folder, pages: true)] } ?? []
        return (options, [.seed(seed)] + pages + steps)
    }

    /// Generates and runs one seed's schedule.
    func run(seed: UInt64) throws(ScenarioErrors) -> Run {
        let (options, steps) = schedule(seed: seed)
        return try run(seed: seed, options: options, steps: steps)
    }

    /// Runs a schedule made for `seed` (its own, or a mutant of another's, `parent`) with the
    /// options of the swarm schedule it comes from.
    func run(seed: UInt64, options: SwarmOptions, steps: [Step], parent: UInt64? = nil) throws(ScenarioErrors) -> Run {
        let explorer = cutting(options.powerCut)
        let outcome = try explorer.play(explorer.generated(steps, name: "seed-\(seed)"), exploring: true)
        let powerCut = outcome.powerCutMissed ? nil : explorer.powerCut
        // The options as the run used them: no power cut where none happened.
        var used = options
        used.powerCut = powerCut
        return Run(seed: seed, options: used, steps: steps, outcome: outcome, powerCut: powerCut, parent: parent)
    }

    /// Runs steps as a scenario of that name. While exploring, a planned fault no process
    /// reaches is allowed (the generator plans them blindly); otherwise it is a mistake, as in
    /// `harness run`.
    /// `below` comment lines come first, as a written finding's header does, so that the
    /// failures name the lines of that file.
    func play(_ steps: [Step], name: String, exploring: Bool = false, below: Int = 0) throws(ScenarioErrors) -> ScenarioRunner.Outcome {
        let scenario = try Scenario.parse(ScenarioPrinter.print(steps, description: Array(repeating: "", count: below)), name: name)
        precondition(scenario.lines.count == steps.count, "a printed step is one line")
        return try play(scenario, exploring: exploring)
    }

    /// A generated schedule as the scenario its printed text parses to, made from the steps
    /// without printing and parsing them again (a twentieth of a run). The generator writes
    /// only valid scenarios, and its printed steps read back as themselves: a debug build (the
    /// tests) checks both on every schedule, and every finding is run again from its file.
    func generated(_ steps: [Step], name: String) throws(ScenarioErrors) -> Scenario {
        let lines = steps.enumerated().map { Scenario.Line(number: $0.offset + 1, step: $0.element) }
        let scenario = Scenario(name: name, description: "", lines: lines)
        #if DEBUG
        let parsed = try Scenario.parse(ScenarioPrinter.print(steps), name: name)
        precondition(parsed.lines == scenario.lines && parsed.description == scenario.description,
                     "\(name): the generated schedule does not read back as its steps")
        #endif
        return scenario
    }

    private func play(_ scenario: Scenario, exploring: Bool) throws(ScenarioErrors) -> ScenarioRunner.Outcome {
        let runner = ScenarioRunner(scenario, transport: transport, seed: 0, executables: executables, directory: directory, folder: "", flaws: flaws,
                                    powerCut: powerCut)
        runner.faultsMayGoUnreached = exploring
        runner.inProcessHiddenYield = hiddenYield
        runner.recordsObservations = differentialReference != nil
        // Only real processes need a folder on the real file system.
        defer { if transport == .process { Folder.remove(directory) } }
        var outcome = try runner.run()
        if let differentialReference {
            let reference = ScenarioRunner(scenario, transport: .inProcess, seed: 0, executables: differentialReference, directory: directory + "-reference",
                                           folder: "", flaws: flaws, powerCut: powerCut)
            reference.faultsMayGoUnreached = exploring
            try Differential.check(&outcome, of: scenario, reference: reference)
        }
        return outcome
    }

    /// A finding's scenario, as written to `file`, run once more for its page: the lines and
    /// failures are the file's own.
    package func page(for finding: Finding, file: String, flaws: Set<Flaw>) throws(ScenarioErrors) -> RunPage.Run {
        let scenario = try Scenario.parse(finding.scenarioText(file: file, flaws: flaws, extensionFolder: extensionFolder, differential: differentialReference != nil,
                                                               pages: ownPages != nil), name: file)
        let runner = ScenarioRunner(scenario, transport: transport, seed: 0, executables: executables, directory: directory, folder: "", flaws: flaws,
                                    powerCut: cutting(finding.powerCut).powerCut)
        runner.readsRevisions = true
        defer { if transport == .process { Folder.remove(directory) } }
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try runner.run()
        let wall = clock.now - start
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        var settings = "found by harness explore, seed \(finding.seed)\(finding.parent.map { " (a mutation of seed \($0)'s schedule)" } ?? ""), transport \(transport.rawValue)"
        if !flaws.isEmpty { settings += ", flaws " + flaws.map(\.rawValue).sorted().joined(separator: ",") }
        if let cut = finding.powerCut { settings += ", power cut \(cut)" }
        return RunPage.Run(scenario: scenario, outcome: outcome, wallSeconds: seconds, settings: settings)
    }

    /// Whether steps still break `property`, and the steps planning a fault no process reached.
    /// With a power cut planned, only a run that got to it counts: the scenario must fail the
    /// same way under `--power-loss`.
    func fails(_ steps: [Step], breaking property: Property) -> (fails: Bool, unreached: Set<Int>) {
        guard let outcome = try? play(steps, name: "shrinking", exploring: true), !outcome.powerCutMissed else { return (false, []) }
        return (outcome.properties.contains(property), Set(outcome.unreachedFaultLines.map { $0 - 1 }))
    }
}
