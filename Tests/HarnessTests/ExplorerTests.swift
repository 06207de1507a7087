import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The explorer: schedules that are valid scenarios, failures found blind and shrunk to a
/// scenario that fails the same way on both transports, shards that add up to the unsharded
/// run, and a replay check that notices a run that does not repeat.
@Suite(.serialized)
struct ExplorerTests {
    private static func explorer(flaws: Set<Flaw> = [], transport: Simulation.Transport = .inProcess) -> Explorer {
        Explorer(steps: 30, flaws: flaws, transport: transport, executables: HarnessBinary.executables,
                 directory: NSTemporaryDirectory() + "explore-test-\(UUID().uuidString)")
    }

    @Test func everyGeneratedScheduleIsAValidScenarioThatPrintsBack() throws {
        var kinds: Set<String> = []
        for seed in 1...300 as ClosedRange<UInt64> {
            let (options, steps) = Self.explorer().schedule(seed: seed)
            let text = ScenarioPrinter.print(steps)
            let parsed = try Scenario.parse(text, name: "seed-\(seed)")
            #expect(parsed.steps == steps, "seed \(seed) (\(options)):\n\(text)")
            #expect(steps.count(where: { !$0.isSetup }) >= 30)
            for step in steps { kinds.insert(String(ScenarioPrinter.line(step).split(separator: " ")[0])) }
        }
        // Every verb but those that only check, mark a known failure, set up a file or a folder,
        // answer or limit an extension's JavaScript (`fetch`, `watchdog`, `heap-limit`), or set up
        // the App Group's defaults of another design than this project's (`group`), make a
        // probe of any extension (`probe`), or choose an extension's menu item, press its
        // command, click its toolbar item, open its options page or answer its permission prompt,
        // which the design has none of (`menu`, `command`, `action`, `options`, `permission`), is
        // reached.
        for verb in Scenario.verbs where !["expect", "expect-failure", "epoch", "alarm-minimum", "extension", "fetch", "watchdog", "heap-limit", "group", "probe", "menu", "command",
                                           "action", "options", "permission"].contains(verb) {
            #expect(kinds.contains(verb), "no schedule uses '\(verb)'")
        }
    }

    @Test func aSeedGivesTheSameScheduleAndOptionsEveryTime() {
        let a = Self.explorer().schedule(seed: 77), b = Self.explorer().schedule(seed: 77)
        #expect(a.options == b.options)
        #expect(a.steps == b.steps)
        #expect(Self.explorer().schedule(seed: 78).steps != a.steps)
    }

    /// A flaw switched on in every process is found within a fixed budget of seeds, with no
    /// flaw-specific generation, and shrunk to a short scenario that breaks the same property
    /// when rerun as `harness run` would, on both transports.
    @Test func aFlawIsFoundBlindAndItsShrunkScenarioReproducesIt() throws {
        let explorer = Self.explorer(flaws: [.lockKeptAfterAFailure])
        var session = ExploreSession(explorer: explorer)
        var finding: Finding?
        for seed in 1...60 as ClosedRange<UInt64> where finding == nil { finding = session.explore(seed: seed) }
        let found = try #require(finding, "no failure in 60 seeds")
        #expect(found.property == .invariant(9), "\(found.message)")
        #expect(found.shrunk.count < found.originalSteps)
        #expect(found.shrunkActions <= 12, "\(ScenarioPrinter.print(found.shrunk))")
        let text = found.scenarioText(file: "found.scenario", flaws: explorer.flaws)
        let scenario = try Scenario.parse(text, name: "found.scenario")
        #expect(scenario.description.contains("seed \(found.seed)"))
        #expect(scenario.description.contains("--flaw lock-kept-after-a-failure"))
        for transport in [Simulation.Transport.inProcess, .process] {
            var rerun = explorer
            rerun.transport = transport
            let outcome = try rerun.play(scenario.steps, name: "found.scenario")
            #expect(outcome.properties.contains(found.property), "\(transport): \(outcome.failures)")
        }
        // Without the flaw the same scenario passes: the failure is the flaw's.
        var correct = explorer
        correct.flaws = []
        #expect(try correct.play(scenario.steps, name: "found.scenario").passed)
        // Its page is the file's scenario run once more: the same failure, marked on its line.
        let page = try explorer.page(for: found, file: "found.scenario", flaws: explorer.flaws)
        #expect(page.scenario.lines == scenario.lines)
        #expect(page.outcome.properties.contains(found.property))
        let line = try #require(page.outcome.marks.failures.first?.line)
        #expect(RunPage.html(page).contains("<li id=\"line-\(line)\" class=\"step failed\">"))
        // The message names the file the finding is written to and the line there of the step
        // after which the property broke; the platform is said.
        let named = try Scenario.parse(found.scenarioText(file: found.fileName, flaws: explorer.flaws), name: found.fileName)
        let header = try #require(found.message.split(separator: "\n").first)
        let failing = try #require(named.lines.first { "\(found.fileName):\($0.number): \(ScenarioPrinter.line($0.step))" == header }, "\(header)")
        #expect(failing.number > Finding.headerLines)
        #expect(named.steps.contains { if case .platform = $0 { true } else { false } })
    }

    @Test func shardsTogetherEqualTheUnshardedRun() throws {
        func summary(_ shard: (index: Int, count: Int), runs: Int) throws -> String {
            var session = ExploreSession(explorer: Self.explorer(flaws: [.lockKeptAfterAFailure]))
            session.digests = true
            for run in 0..<runs { _ = session.explore(seed: ExploreSession.seed(run: run, from: 5, shard: shard)) }
            let lines = session.failures.map { $0.json(flaws: [.lockKeptAfterAFailure]) } + [session.summaryJSON(seconds: 1, shard: shard, seed: 5)]
            return lines.map { String(decoding: JSONWriter.compact($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        }
        var whole = ExploreMerge()
        try whole.add(try summary((1, 1), runs: 24), file: "whole.json")
        var parts = ExploreMerge()
        try parts.add(try summary((2, 3), runs: 8), file: "2.json")
        try parts.add(try summary((1, 3), runs: 8), file: "1.json")
        try parts.add(try summary((3, 3), runs: 8), file: "3.json")
        #expect(whole.runs == 24)
        #expect(!whole.broken.isEmpty, "the sample finds the flaw, so failures are compared too")
        #expect(whole.digest != nil && whole.digest != 0, "every shard wrote its trace digest")
        #expect(parts == whole, "\(parts.report)\nagainst\n\(whole.report)")
    }

    /// The trace digest is the same for the same seeds and changes when one run's trace does
    /// (planted: one yield point hidden from the harness).
    @Test func theTraceDigestChangesWhenARunDoes() {
        func digest(hiding point: YieldPoint?) -> UInt64 {
            var explorer = Self.explorer()
            explorer.hiddenYield = point
            var session = ExploreSession(explorer: explorer)
            session.digests = true
            for seed in 1...6 as ClosedRange<UInt64> { _ = session.explore(seed: seed) }
            return session.digest
        }
        let first = digest(hiding: nil)
        #expect(first == digest(hiding: nil))
        #expect(first != digest(hiding: .read))
    }

    @Test func aMergeRefusesALineItCannotRead() {
        var merge = ExploreMerge()
        #expect(throws: ExploreMerge.Problem.self) { try merge.add("{\"type\":\"summary\"}\n", file: "s.json") }
        #expect((try? merge.add("not json\n", file: "s.json")) == nil)
    }

    /// A run that does not repeat (planted: the replay hides one yield point) is a failure
    /// showing where the two traces part.
    @Test func theReplayCheckCatchesAPlantedNondeterminism() {
        var session = ExploreSession(explorer: Self.explorer(), replayCheck: true)
        var clean: Finding?
        for seed in 1...5 as ClosedRange<UInt64> where clean == nil { clean = session.explore(seed: seed) }
        #expect(clean == nil, "\(clean?.message ?? "")")
        var planted = ExploreSession(explorer: Self.explorer(), replayCheck: true)
        planted.replayer.hiddenYield = .read
        let finding = planted.explore(seed: 1)
        #expect(finding?.property == .determinism)
        #expect(finding?.message.contains("the traces part at line") == true, "\(finding?.message ?? "")")
    }

    @Test func coverageCountsWhatRunsReachedAndNamesWhatTheyDidNot() {
        var session = ExploreSession(explorer: Self.explorer())
        for seed in 1...40 as ClosedRange<UInt64> { _ = session.explore(seed: seed) }
        #expect(session.coverage.counts["yield handler@read", default: 0] > 0)
        #expect(session.coverage.counts["reconcile background-start", default: 0] > 0)
        #expect(session.coverage.counts["reply applied", default: 0] > 0)
        #expect(Coverage().unreached == Coverage.keys)
        #expect(!session.coverage.unreached.contains("yield handler@read"))
    }

    /// Some seeds cut the power before a flush of the simulated disk, as `--power-loss` does:
    /// the cut is carried out, counted, and checked like any other run.
    @Test func seedsThatPlanAPowerLossCutThePower() {
        var session = ExploreSession(explorer: Self.explorer())
        var planned = 0
        for seed in 1...120 as ClosedRange<UInt64> where Self.explorer().schedule(seed: seed).options.powerCut != nil {
            planned += 1
            #expect(session.explore(seed: seed) == nil, "seed \(seed) failed")
        }
        #expect(planned >= 5, "only \(planned) of 120 seeds plan a power loss")
        #expect(session.coverage.counts["fault power-loss", default: 0] > 0)
        #expect(session.invalid.isEmpty, "\(session.invalid)")
    }

    /// Reconciliation points and alarms are counted from the lines the background received: a
    /// named scenario with a start, Safari to the front and an alarm firing reaches all three.
    @Test func coverageCountsEveryKindOfReconciliationPoint() throws {
        let file = ScenarioTests.folder + "/safari/an-overdue-alarm-fires-once-when-safari-returns-on-ios.scenario"
        let steps = try Scenario.parse(String(contentsOfFile: file, encoding: .utf8), name: "alarm").steps
        let outcome = try Self.explorer().play(steps, name: "alarm")
        let counts = Coverage(steps: steps, unreached: [], outcome: outcome).counts
        for point in ["reconcile background-start", "reconcile safari-foreground", "alarm fired"] {
            #expect(counts[point, default: 0] > 0, "\(point) not counted in \(file)")
        }
    }

    /// The Safari rules a run played are counted: the named scenarios of the device's sleep,
    /// Web Inspector, an update and a reused handler each reach their counter, and no other
    /// (the system keeps a handler by default, so a run of more than one request counts that too).
    @Test(arguments: [("a-mac-that-sleeps-through-a-schedule-boundary-changes-the-page-late", "rule device-sleep"),
                      ("the-web-inspector-keeps-the-background-loaded", "rule inspector"),
                      ("an-extension-update-keeps-storage-local-and-clears-the-rest", "rule extension-update"),
                      ("a-reused-handler-process-reads-the-document-afresh", "rule handler-reused")])
    func coverageCountsTheSafariRuleARunPlayed(scenario: String, counter: String) throws {
        let file = ScenarioTests.folder + "/safari/\(scenario).scenario"
        let steps = try Scenario.parse(String(contentsOfFile: file, encoding: .utf8), name: scenario).steps
        let outcome = try Self.explorer().play(steps, name: scenario)
        let counts = Coverage(steps: steps, unreached: [], outcome: outcome).counts
        let rules = counts.filter { $0.key.hasPrefix("rule ") && $0.value > 0 }.map(\.key)
        #expect(rules.filter { $0 != "rule handler-reused" } == (counter == "rule handler-reused" ? [] : [counter]), "\(scenario)")
        #expect(rules.contains(counter), "\(scenario)")
    }
}
