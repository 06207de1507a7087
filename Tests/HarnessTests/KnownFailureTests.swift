import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// `expect-failure` marks the failures a scenario shows on purpose: the run passes only when
/// exactly those happen, and fails, saying which mark went unmet or what else broke, when not.
struct KnownFailureTests {
    /// Runs `text` in process, with `flaws` on.
    private func run(_ text: String, flaws: Set<Flaw> = []) throws -> ScenarioRunner.Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("known-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try ScenarioRunner(try Scenario.parse(text, name: "known.scenario"), transport: .inProcess, seed: 1,
                                  executables: HarnessBinary.executables, directory: directory, flaws: flaws).run()
    }

    /// `text` with each failure of `failures` marked: its expectation written `expect-failure`,
    /// its invariant named on a line of its own at the top (below the description).
    private func marking(_ text: String, _ failures: [RunMarks.Failure], leaving unmarked: Property? = nil) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for failure in failures where failure.property == .expectation && failure.property != unmarked {
            if lines[failure.line - 1].hasPrefix("expect ") { lines[failure.line - 1] = "expect-failure " + lines[failure.line - 1].dropFirst("expect ".count) }
        }
        // Invariant marks are setup lines: they go below the description.
        let invariants = Array(Set(failures.map(\.property).filter { if case .invariant = $0 { $0 != unmarked } else { false } })).sorted()
        let top = lines.prefix { $0.hasPrefix("#") }.count
        lines.insert(contentsOf: invariants.map { "expect-failure \($0)" }, at: top)
        return lines.joined(separator: "\n")
    }

    /// A flawed run's failures, each marked, make a passing run; an invariant left unmarked
    /// fails it; the same marks on a run without the flaw fail, one per mark.
    @Test func aRunPassesOnlyWhenExactlyItsMarkedFailuresHappen() throws {
        let flaw = Flaw.siteRecordsCopyDefaults
        let entry = try #require(FlawCatalogue.catches(of: flaw).first)
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + entry.scenario, encoding: .utf8)
        let unmarked = try run(text, flaws: [flaw])
        let broken = unmarked.marks.failures
        #expect(broken.contains { $0.property == .invariant(3) } && broken.contains { $0.property == .expectation }, "\(unmarked.failures)")

        let marked = try run(marking(text, broken), flaws: [flaw])
        let passed = marked.passed
        #expect(passed, "\(marked.failures.joined(separator: "\n"))")
        #expect(marked.knownFailures.contains("invariant 3") && marked.knownFailures.contains { $0.hasPrefix("line ") }, "\(marked.knownFailures)")

        let oneLess = try run(marking(text, broken, leaving: .invariant(3)), flaws: [flaw])
        #expect(!oneLess.passed && oneLess.marks.failures.allSatisfy { $0.property == .invariant(3) }, "\(oneLess.failures)")

        let fixed = try run(marking(text, broken))
        #expect(fixed.knownFailures.isEmpty)
        #expect(fixed.failures.count == marked.knownFailures.count, "one failure per mark: \(fixed.failures)")
        #expect(fixed.failures.contains { $0.contains("the expectation held: the known failure this line marks did not happen (if the bug is fixed, write 'expect' here)") })
        #expect(fixed.failures.contains { $0.contains("the run never broke invariant 3: the known failure this line marks did not happen") })
    }

    /// The marks print back as written, so a marked scenario survives the printer (and a
    /// shrinker or an editor that rewrites it).
    @Test func marksPrintBackAsWritten() throws {
        let text = "expect-failure invariant 6\ntab open t1 https://a.example/\nexpect-failure tab t1 theme=dark within 5s\nexpect tab t1 enabled\n"
        let scenario = try Scenario.parse(text, name: "m")
        #expect(ScenarioPrinter.print(scenario.steps) == text)
        #expect(try Scenario.parse(ScenarioPrinter.print(scenario.steps), name: "m").steps == scenario.steps)
    }

    @Test func anInvariantMarkNamesAnInvariantOnceBeforeTheFirstAction() {
        let text = """
            expect-failure invariant 19
            expect-failure invariant 2
            expect-failure invariant 2
            tab open t1 https://a.example/
            expect-failure invariant 3
            expect-failure nothing

            """
        do {
            _ = try Scenario.parse(text, name: "m")
            Issue.record("read without a mistake")
        } catch {
            let messages = error.errors.map(\.description)
            for expected in ["m:1: there is no invariant 19 (they are numbered 1 to 18)", "m:3: 'expect-failure invariant 2' is given twice (first on line 2)",
                             "m:5: 'expect-failure' must come before the first action", "m:6: unknown word 'nothing'"] {
                #expect(messages.contains { $0.hasPrefix(expected) }, "\(expected)\n\(messages)")
            }
        }
    }
}
