import Foundation
@testable import HarnessCore
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
            guard !outcome.marks.failures.contains(where: entry.failure.matches) else { continue }
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

    /// A catalogued failure is matched by what it is (its property, and an expectation's line),
    /// never by the words of the report.
    @Test func aFailureMatchesOnlyItsExpectationOrItsInvariant() {
        func failure(_ line: Int, _ property: Property, healed: Bool = false, message: String = "") -> RunMarks.Failure {
            RunMarks.Failure(line: line, step: "", property: property, message: message, afterHealing: healed, traceIndex: 0, at: 0)
        }
        let expectation = failure(14, .expectation, message: "a trace line that says (invariant 5)")
        let afterStep = failure(9, .invariant(3)), healed = failure(17, .invariant(4), healed: true), unreached = failure(11, .run)
        #expect(FlawCatalogue.Failure.expectation(line: 14).matches(expectation))
        #expect(!FlawCatalogue.Failure.expectation(line: 1).matches(expectation))
        #expect(!FlawCatalogue.Failure.invariant(5).matches(expectation), "the trace is not the problem")
        #expect(FlawCatalogue.Failure.invariant(3).matches(afterStep))
        #expect(!FlawCatalogue.Failure.invariant(1).matches(afterStep))
        #expect(!FlawCatalogue.Failure.expectation(line: 9).matches(afterStep))
        #expect(FlawCatalogue.Failure.invariant(4).matches(healed))
        #expect(!FlawCatalogue.Failure.expectation(line: 17).matches(healed), "an invariant is not the expectation")
        #expect(!FlawCatalogue.Failure.expectation(line: 11).matches(unreached))
    }
}
