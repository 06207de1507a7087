import Foundation
import HarnessCore
import ProcessKit
import Testing

/// Every flaw is caught by the scenarios the catalogue names, each by the failure the catalogue
/// gives: with the flaw on, that expectation or that invariant fails. A run that fails some
/// other way (or by a usage error, which throws) has not shown the flaw. That every named
/// scenario passes with no flaw is `ScenarioTests`.
@Suite(.serialized)
struct FlawTests {
    @Test func everyFlawNamesScenariosThatExist() throws {
        for flaw in Flaw.allCases {
            let catches = FlawCatalogue.catches(of: flaw)
            #expect(!catches.isEmpty, "no scenario catches \(flaw.rawValue)")
            for entry in catches {
                guard ScenarioTests.files.contains(entry.scenario) else {
                    Issue.record("\(flaw.rawValue): no scenario \(entry.scenario)")
                    continue
                }
                switch entry.failure {
                case .expectation(let line):
                    // A scenario edited since the entry was written may have moved its expectation.
                    let text = try String(contentsOfFile: ScenarioTests.folder + "/" + entry.scenario, encoding: .utf8)
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                    let step = lines.indices.contains(line - 1) ? lines[line - 1].trimmingCharacters(in: .whitespaces) : "(no such line)"
                    #expect(step.hasPrefix("expect "), "\(flaw.rawValue): line \(line) of \(entry.scenario) is not an expectation: \(step)")
                case .invariant(let number):
                    #expect((1...11).contains(number), "\(flaw.rawValue): there is no invariant \(number)")
                }
            }
        }
    }

    @Test(arguments: Flaw.allCases)
    func theNamedScenariosCatchTheFlaw(_ flaw: Flaw) throws {
        for entry in FlawCatalogue.catches(of: flaw) {
            let text = try String(contentsOfFile: ScenarioTests.folder + "/" + entry.scenario, encoding: .utf8)
            let scenario = try Scenario.parse(text, name: entry.scenario)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flaw-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let outcome = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables,
                                             directory: directory, flaws: [flaw]).run()
            guard !outcome.failures.contains(where: { entry.failure.matches($0, in: entry.scenario) }) else { continue }
            let seen = outcome.failures.map { "\n  " + $0.split(separator: "\n").prefix(2).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " / ") }
            Issue.record("\(entry.scenario) with \(flaw.rawValue) on does not fail by \(entry.failure); it fails by:\(seen.isEmpty ? " nothing" : seen.joined())")
        }
    }

    /// Every named scenario catches some flaw, or says in its description that it shows correct
    /// behaviour only, and then catches none (`harness flaws --check`). The flaws are the
    /// built-in processes' bugs: a scenario whose background is an extension's JavaScript is
    /// judged by its own marks instead (`ScenarioTests`).
    @Test(arguments: ScenarioTests.files.filter { !ScenarioTests.javaScriptFiles.contains($0) })
    func everyScenarioCatchesAFlawOrSaysItShowsCorrectBehaviourOnly(file: String) throws {
        let path = ScenarioTests.folder + "/" + file
        let scenario = try Scenario.parse(try String(contentsOfFile: path, encoding: .utf8), name: path)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("teeth-\(UUID().uuidString)").path
        let result = FlawCheck.check(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory)
        #expect(result.failuresAlone.isEmpty, "\(file) fails with no flaw on: \(result.failuresAlone)")
        if scenario.description.contains("Shows correct behaviour only") {
            #expect(result.catches.isEmpty, "\(file) says it shows correct behaviour only, yet catches \(result.caught.map(\.rawValue))")
        } else {
            #expect(!result.catches.isEmpty, "\(file) catches no flaw: give it the fault that reaches a bug, or say 'Shows correct behaviour only' in its description")
        }
    }

    @Test func aFailureMatchesOnlyItsExpectationOrItsInvariant() {
        let expectation = "s.scenario:14: expect shared defaults theme=dark\n  shared defaults theme: expected \"dark\", got \"gray\"\n  then: background#1 running\n  the trace that explains it (1 of 9 lines: all but yield points and storage completions):\n    5 check background#1 took a native reply before answering tab t1 (invariant 5)"
        let afterStep = "s.scenario:9: popup set theme=sepia\n  after this step: site a.example mode is auto, which no edit of it gave (invariant 3)\n  then: background#1 running"
        let healed = "s.scenario: after the run (healed), invariant 4\n  the cache (revision 3) differs from the shared document (revision 2) (invariant 4)"
        let unreached = "s.scenario:11: hold handler at lock\n  'hold handler at lock' was never reached: the handler never got to lock after it"
        #expect(FlawCatalogue.Failure.expectation(line: 14).matches(expectation, in: "s.scenario"))
        #expect(!FlawCatalogue.Failure.expectation(line: 1).matches(expectation, in: "s.scenario"))
        #expect(!FlawCatalogue.Failure.expectation(line: 14).matches(expectation, in: "other.scenario"))
        #expect(!FlawCatalogue.Failure.invariant(5).matches(expectation, in: "s.scenario"), "the trace is not the problem")
        #expect(FlawCatalogue.Failure.invariant(3).matches(afterStep, in: "s.scenario"))
        #expect(!FlawCatalogue.Failure.invariant(1).matches(afterStep, in: "s.scenario"))
        #expect(!FlawCatalogue.Failure.expectation(line: 9).matches(afterStep, in: "s.scenario"))
        #expect(FlawCatalogue.Failure.invariant(4).matches(healed, in: "s.scenario"))
        #expect(!FlawCatalogue.Failure.expectation(line: 17).matches(healed, in: "s.scenario"), "an invariant is not the expectation")
        #expect(!FlawCatalogue.Failure.expectation(line: 11).matches(unreached, in: "s.scenario"))
    }
}
