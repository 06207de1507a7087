import ProcessKit

/// Which catalogued flaws a scenario catches, and by which failures (`harness flaws --check`):
/// it runs once with no flaw on, where it must pass, then once with each flaw. A flaw is caught
/// when the run with it fails; the failures say how (an expectation's line, an invariant).
/// A scenario that catches none shows correct behaviour only, or its faults never reach a bug.
package enum FlawCheck {
    /// One flaw a scenario catches, and how.
    package struct Catch: Equatable, Sendable {
        package var flaw: Flaw
        /// Each distinct failure, as `the expectation on line 14` or `invariant 6 (line 12)`.
        package var failures: [String]
    }

    /// What one scenario showed.
    package struct Result: Equatable, Sendable {
        package var scenario: String
        /// The failures of the run with no flaw on: a scenario that fails alone shows nothing.
        package var failuresAlone: [String]
        package var catches: [Catch]

        package var caught: [Flaw] { catches.map(\.flaw) }
    }

    /// Runs `scenario` alone, then with each of `flaws` (every catalogued flaw by default).
    package static func check(_ scenario: Scenario, flaws: [Flaw] = Flaw.allCases, transport: Simulation.Transport, seed: UInt64,
                              executables: ProcessExecutables, directory: String) -> Result {
        func failures(with flaw: Flaw?) -> [String] {
            defer { Folder.remove(directory) }
            let runner = ScenarioRunner(scenario, transport: transport, seed: seed, executables: executables, directory: directory,
                                        flaws: flaw.map { [$0] } ?? [])
            do {
                // A run that could not go on as written (a planned fault the flaw made
                // unreachable) shows a difference, not the bug: it is no catch.
                return describe(try runner.run().marks.failures.filter { $0.property != .run })
            } catch {
                return flaw == nil ? ["the run could not go on as written: \(error.description)"] : []
            }
        }
        let alone = failures(with: nil)
        guard alone.isEmpty else { return Result(scenario: scenario.name, failuresAlone: alone, catches: []) }
        var catches: [Catch] = []
        for flaw in flaws {
            let found = failures(with: flaw)
            if !found.isEmpty { catches.append(Catch(flaw: flaw, failures: found)) }
        }
        return Result(scenario: scenario.name, failuresAlone: [], catches: catches)
    }

    /// Each failure once, by what it broke: an expectation by its line, an invariant with the
    /// line of the step after which it broke.
    static func describe(_ failures: [RunMarks.Failure]) -> [String] {
        var said: [String] = []
        for failure in failures {
            let text: String
            switch failure.property {
            case .expectation: text = "the expectation on line \(failure.line)"
            case .run: text = "line \(failure.line) could not run: \(failure.message)"
            case .invariant, .determinism, .difference: text = failure.afterHealing ? "\(failure.property) after healing" : "\(failure.property) (line \(failure.line))"
            }
            if !said.contains(text) { said.append(text) }
        }
        return said
    }
}
