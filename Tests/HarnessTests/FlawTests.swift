import Foundation
import HarnessCore
import ProcessKit
import Testing

/// Every flaw is caught by the scenarios the catalogue names: with it on, each of them fails by
/// an expectation or an invariant (not by a usage error, which would throw). That every named
/// scenario passes with no flaw is `ScenarioTests`.
@Suite(.serialized)
struct FlawTests {
    @Test func everyFlawNamesScenariosThatExist() {
        for flaw in Flaw.allCases {
            let scenarios = FlawCatalogue.scenarios(catching: flaw)
            #expect(!scenarios.isEmpty, "no scenario catches \(flaw.rawValue)")
            for file in scenarios {
                #expect(ScenarioTests.files.contains(file), "\(flaw.rawValue): no scenario \(file)")
            }
        }
    }

    @Test(arguments: Flaw.allCases)
    func theNamedScenariosCatchTheFlaw(_ flaw: Flaw) throws {
        for file in FlawCatalogue.scenarios(catching: flaw) {
            let text = try String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8)
            let scenario = try Scenario.parse(text, name: file)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flaw-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let outcome = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.directory,
                                             directory: directory, flaws: [flaw]).run()
            // A fault the flaw made unreachable is reported, but is not a catch.
            let caught = outcome.failures.contains { !$0.contains("was never reached") }
            #expect(caught, "\(file) passes with \(flaw.rawValue) switched on")
        }
    }
}
