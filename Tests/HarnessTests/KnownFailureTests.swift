import Foundation
import HarnessCore
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

    /// A flawed run's failures, each marked, make a passing run; one mark left out leaves its
    /// failure; the same marks on a run without the flaw fail, one per mark.
    @Test func aRunPassesOnlyWhenExactlyItsMarkedFailuresHappen() throws {
        let flaw = Flaw.siteRecordsCopyDefaults
        let entry = try #require(FlawCatalogue.catches(of: flaw).first)
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + entry.scenario, encoding: .utf8)
        let unmarked = try run(text, flaws: [flaw])
        let broken = unmarked.marks.failures
        #expect(!broken.isEmpty && broken.contains { $0.property == .invariant(3) }, "the catalogue's catch: \(unmarked.failures)")
        // The marks go first, so every line below moves down by their number.
        var marks: [String] = []
        for failure in broken {
            let mark = failure.property == .expectation ? "expect-failure line \(failure.line)" : "expect-failure \(failure.property)"
            if !marks.contains(mark) { marks.append(mark) }
        }
        let shifted = marks.map { mark in
            mark.hasPrefix("expect-failure line ") ? "expect-failure line \(Int(mark.dropFirst("expect-failure line ".count))! + marks.count)" : mark
        }
        let marked = try run(shifted.joined(separator: "\n") + "\n" + text, flaws: [flaw])
        let passed = marked.passed
        #expect(passed, "\(marked.failures.joined(separator: "\n"))")
        #expect(marked.knownFailures == shifted.map { String($0.dropFirst("expect-failure ".count)) })

        let oneLess = try run(shifted.dropFirst().joined(separator: "\n") + "\n\n" + text, flaws: [flaw])
        #expect(!oneLess.passed && oneLess.knownFailures.count == shifted.count - 1, "\(oneLess.failures)")
        let leftOut = try #require(KnownFailure(shifted[0]))
        #expect(oneLess.marks.failures.contains { leftOut.matches($0) }, "the failure no line marks fails the run: \(oneLess.failures)")

        let fixed = try run(shifted.joined(separator: "\n") + "\n" + text)
        #expect(fixed.knownFailures.isEmpty)
        #expect(fixed.failures.count == shifted.count, "\(fixed.failures)")
        #expect(fixed.failures.allSatisfy { $0.contains("the known failure this line marks did not happen (if the bug is fixed, remove the line)") })
    }

    @Test func aMarkMustNameAnExpectationOrAnInvariantOnceBeforeTheFirstAction() {
        let text = """
            expect-failure line 6
            expect-failure line 9
            expect-failure invariant 15
            expect-failure invariant 2
            expect-failure invariant 2
            tab open t1 https://a.example/
            expect-failure invariant 3

            """
        do {
            _ = try Scenario.parse(text, name: "m")
            Issue.record("read without a mistake")
        } catch {
            let messages = error.errors.map(\.description)
            for expected in ["m:1: line 6 is 'tab open t1 https://a.example/', not an expectation", "m:2: line 9 is not a step",
                             "m:3: there is no invariant 15 (they are numbered 1 to 14)", "m:5: 'expect-failure invariant 2' is given twice (first on line 4)",
                             "m:7: 'expect-failure' must come before the first action"] {
                #expect(messages.contains { $0.hasPrefix(expected) }, "\(expected)\n\(messages)")
            }
        }
    }
}

extension KnownFailure {
    /// A mark as a scenario writes it (`expect-failure line 3`), for the tests.
    init?(_ line: String) {
        let words = line.split(separator: " ")
        guard words.count == 3, words[0] == "expect-failure", let number = Int(words[2]) else { return nil }
        switch words[1] {
        case "line": self = .line(number)
        case "invariant": self = .invariant(number)
        default: return nil
        }
    }
}
