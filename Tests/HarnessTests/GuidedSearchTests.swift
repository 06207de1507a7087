import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Guided search: signatures that tell a rare interleaving apart, mutants that are valid
/// scenarios drawn from the seed alone, campaigns that run the same schedules whatever the
/// workers, and a failing mutant that is shrunk and written as a scenario that replays it.
@Suite(.serialized)
struct GuidedSearchTests {
    private static func explorer(flaws: Set<Flaw> = []) -> Explorer {
        Explorer(steps: 30, flaws: flaws, executables: HarnessBinary.executables,
                 directory: NSTemporaryDirectory() + "guided-test-\(UUID().uuidString)")
    }

    /// With the flaw on, the recovery's request is given up early and its reply comes late:
    /// the signature has a feature for it that the correct run does not.
    @Test func aSignatureTellsALateReplyFromAnAnsweredOne() throws {
        let file = ScenarioTests.folder + "/lifecycle/a-request-after-a-native-timeout-gets-the-full-timeout.scenario"
        let steps = try Scenario.parse(String(contentsOfFile: file, encoding: .utf8), name: "late").steps
        func names(_ flaws: Set<Flaw>) throws -> Set<String> {
            let outcome = try Self.explorer(flaws: flaws).play(steps, name: "late")
            return Set(CoverageSignature(steps: steps, unreached: [], outcome: outcome).features.map(CoverageSignature.name))
        }
        let correct = try names([]), flawed = try names([.timeoutFromTheLastInput])
        #expect(correct.contains("background: start -> started at once"), "\(correct.sorted())")
        #expect(correct.contains("fault: handler hung"))
        #expect(correct.contains { $0.hasPrefix("background: ") && $0.contains("-> native-timeout") })
        #expect(!correct.contains { $0.contains("reply-late") }, "\(correct.sorted())")
        #expect(flawed.contains { $0.contains("reply-late") }, "\(flawed.subtracting(correct).sorted())")
    }

    /// Safari's rules are counted by the case the run recorded, never by the trace's words: a
    /// page whose background died before answering asks again (a feature, and the empty-answer
    /// counter), and the same words written as a plain line count for nothing.
    @Test func aRuleIsCountedByItsCaseNotItsWords() throws {
        let file = ScenarioTests.folder + "/lifecycle/a-page-in-a-hidden-tab-asks-again-when-its-background-dies.scenario"
        let steps = try Scenario.parse(String(contentsOfFile: file, encoding: .utf8), name: "again").steps
        let outcome = try Self.explorer().play(steps, name: "again")
        let names = Set(CoverageSignature(steps: steps, unreached: [], outcome: outcome).features.map(CoverageSignature.name))
        #expect(names.contains("rule: page asks again"), "\(names.sorted())")
        #expect(Coverage(steps: steps, unreached: [], outcome: outcome).counts["rule empty-answer", default: 0] == 1)
        #expect(outcome.log.entries.contains { $0.rule == .pageAsksAgain && $0.what == "tab t1 asks again" })

        var words = outcome
        words.log = TraceLog.read(lines: outcome.log.lines, epoch: outcome.log.epoch)
        #expect(words.log.lines == outcome.log.lines)
        #expect(!CoverageSignature(steps: steps, unreached: [], outcome: words).features.map(CoverageSignature.name).contains { $0.hasPrefix("rule: ") })
        #expect(Coverage(steps: steps, unreached: [], outcome: words).counts["rule empty-answer", default: 0] == 0)
    }

    /// A mutant is drawn from its seed alone, is a valid scenario that prints back, keeps the
    /// parent's setup and starts with its own seed.
    @Test func aMutantIsAValidScenarioMadeFromItsSeedAlone() throws {
        let mutator = ScheduleMutator(limit: 60)
        var made = 0
        for seed in 1...60 as ClosedRange<UInt64> {
            let parent = Self.explorer().schedule(seed: seed).steps, donor = Self.explorer().schedule(seed: seed + 100).steps
            var first = SeededRandom(seed: seed), second = SeededRandom(seed: seed)
            let mutant = mutator.mutate(parent, donor: donor, seed: 1_000 + seed, random: &first)
            #expect(mutant == mutator.mutate(parent, donor: donor, seed: 1_000 + seed, random: &second))
            guard let mutant else { continue }
            made += 1
            #expect(mutant != parent)
            #expect(mutant.first == .seed(1_000 + seed))
            #expect(Array(mutant.dropFirst().prefix { $0.isSetup }) == Array(parent.dropFirst().prefix { $0.isSetup }))
            #expect(mutant.count(where: { !$0.isSetup }) <= 60)
            let parsed = try Scenario.parse(ScenarioPrinter.print(mutant), name: "mutant-\(seed)")
            #expect(parsed.steps == mutant)
        }
        #expect(made >= 55, "only \(made) of 60 parents gave a mutant")
    }

    /// The same seeds and batch size give the same schedules and runs with one worker and with
    /// two: the corpus grows at batch boundaries in seed order.
    @Test func oneWorkerAndTwoRunTheSameSchedules() {
        func campaign(workers: Int) -> ExploreSession {
            GuidedSearch(batch: 12).explore(Self.explorer(), workers: workers, digests: true, seed: { $0 < 48 ? 500 + UInt64($0) : nil }, ran: { _, _ in })
        }
        let one = campaign(workers: 1), two = campaign(workers: 2)
        #expect(one.runs == 48 && two.runs == 48)
        #expect(one.mutants > 0, "the sample runs mutants, so their schedules are compared too")
        #expect(one.mutants == two.mutants)
        #expect(one.corpus?.entries.map(\.seed) == two.corpus?.entries.map(\.seed))
        #expect(one.digest == two.digest, "\(ExploreSession.hex(one.digest)) against \(ExploreSession.hex(two.digest))")
        #expect(one.failures.isEmpty && one.invalid.isEmpty, "\(one.invalid)")
    }

    /// A failing mutant is shrunk like any failure, and its file names where it came from and
    /// replays the failure as `harness run` would, on both transports; its JSON line carries
    /// the whole schedule, which the seed alone does not give.
    @Test func aFailingMutantIsShrunkAndItsFileReplaysIt() throws {
        let flaws: Set<Flaw> = [.lockKeptAfterAFailure]
        let explorer = Self.explorer(flaws: flaws)
        var session = ExploreSession(explorer: explorer)
        var failing: Finding?
        for seed in 1...60 as ClosedRange<UInt64> where failing == nil { failing = session.explore(seed: seed) }
        let parent = try #require(failing)
        let parentSteps = explorer.schedule(seed: parent.seed).steps
        // A mutant of the failing schedule that still fails.
        let mutator = ScheduleMutator(limit: 60)
        var found: Finding?
        for seed in 9_000...9_040 as ClosedRange<UInt64> where found == nil {
            var random = SeededRandom(seed: seed)
            guard let steps = mutator.mutate(parentSteps, donor: parentSteps, seed: seed, random: &random) else { continue }
            var fresh = ExploreSession(explorer: explorer)
            let planned = ExploreSession.Planned(seed: seed, options: parent.options, steps: steps, parent: parent.seed)
            found = fresh.explore(seed: seed, planned: planned).finding
        }
        let finding = try #require(found, "no mutant of seed \(parent.seed) fails")
        #expect(finding.parent == parent.seed)
        #expect(finding.schedule != explorer.schedule(seed: finding.seed).steps, "a mutant, not the seed's own schedule")
        #expect(finding.shrunk.count < finding.schedule.count)
        let text = finding.scenarioText(file: "found.scenario", flaws: flaws)
        let scenario = try Scenario.parse(text, name: "found.scenario")
        #expect(scenario.description.contains("seed \(finding.seed), a mutation of seed \(parent.seed)'s schedule"), "\(scenario.description)")
        for transport in [Simulation.Transport.inProcess, .process] {
            var rerun = explorer
            rerun.transport = transport
            let outcome = try rerun.play(scenario.steps, name: "found.scenario")
            #expect(outcome.properties.contains(finding.property), "\(transport): \(outcome.failures)")
        }
        guard case .object(let json) = finding.json(flaws: flaws), case .string(let schedule)? = json["schedule"] else {
            Issue.record("the failure's JSON line has no schedule")
            return
        }
        #expect(json["parent"] == .integer(Int64(parent.seed)))
        let whole = try Scenario.parse(schedule, name: "schedule")
        #expect(whole.steps == finding.schedule)
        #expect(try explorer.play(whole.steps, name: "schedule", exploring: true).properties.contains(finding.property))
    }
}
