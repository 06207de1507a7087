import Foundation
@testable import HarnessCore
import SiteSettings
import Testing

/// `harness soak`: the real processes free-running under faults, as a user runs it.
struct SoakTests {
    @Test func aShortSoakEndsWithoutViolationsAndReportsItsFigures() throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let output = try HarnessBinary.run(["soak", "--seconds", "3", "--seed", "5", "--json", json])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        for figure in ["operations:", "app edit:", "popup edit:", "native patch:", "faults:", "lock waits:", "edits acknowledged:", "violations: 0"] {
            #expect(output.stdout.contains(figure), "no '\(figure)' in \(output.stdout)")
        }
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n")
        let summary = try #require(lines.last.flatMap { try? JSONParser.parse(Array($0.utf8)) }?.objectValue)
        #expect(summary["type"] == .string("summary"))
        #expect(summary["violations"] == .integer(0))
        let acknowledged = try #require(summary["editsAcknowledged"].flatMap { if case .integer(let n) = $0 { n } else { nil } })
        #expect(acknowledged > 0)
        #expect(summary["lockWaitMedianMicroseconds"] != nil && summary["lockWaitP99Microseconds"] != nil)
    }

    @Test func aLostEditIsCaughtWhileRunningAndAfterHealingWithItsSeed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = Soak.Options(seconds: 2, seed: 9, handlers: 2, executables: HarnessBinary.executables, directory: folder)
        options.plantsALostEdit = true
        let report = Soak.run(options)
        let lost = report.violations.map(\.message).filter { $0.contains("site \(Soak.plantedSite) theme") && $0.contains("(invariant 2)") }
        #expect(lost.contains { $0.hasSuffix("while running") }, "\(report.text)")
        #expect(lost.contains { $0.hasSuffix("after healing") }, "\(report.text)")
        #expect(report.text.contains("VIOLATION at") && report.text.contains("(seed 9)"))
        #expect(report.jsonLines.last?.objectValue?["violations"] == .integer(Int64(report.violations.count)))
    }

    /// Every death the soak causes is its SIGKILL; a background that exits of itself is a
    /// violation of invariant 18, naming how it ended.
    @Test func aBackgroundThatDiesOfItselfIsAViolation() throws {
        let node = try #require(ConformTests.node, "node is on every machine of this project; it is not on PATH")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var executables = HarnessBinary.executables
        executables.background = ProcessExecutables.Command(path: node, arguments: [RunCommandTests.diesAfterHello, "background", "3"])
        let report = Soak.run(Soak.Options(seconds: 1, seed: 2, handlers: 1, executables: executables, directory: folder))
        #expect(report.violations.contains { $0.message.hasSuffix("died without a cause: it exited with code 3 (invariant 18)") }, "\(report.text)")
    }

    /// The soak's Safari is the machine every run uses: its rules bite on the wall clock too.
    @Test func aLoweredCapRefusesRequestsAndTheSoakStillLosesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // One handler at a time keeps requests in flight while they wait for it.
        var options = Soak.Options(seconds: 3, seed: 4, handlers: 1, executables: HarnessBinary.executables, directory: folder)
        options.nativeRequestCap = 2
        let report = Soak.run(options)
        #expect(report.rules.requestsRefusedAtTheCap > 0, "\(report.text)")
        #expect(report.violations.isEmpty, "\(report.text)")
        #expect(report.text.contains("requests refused at the cap (2)"))
    }

    @Test func listenersRegisteredLateLoseEventsAndTheSoakCountsThem() throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let output = try HarnessBinary.run(["soak", "--seconds", "3", "--seed", "5", "--flaw", "listeners-after-cache-read", "--json", json])
        #expect(output.stdout.contains("flaws: listeners-after-cache-read"), "\(output.stdout)")
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n")
        let summary = try #require(lines.last.flatMap { try? JSONParser.parse(Array($0.utf8)) }?.objectValue)
        let rules = try #require(summary["rules"]?.objectValue)
        let dropped = try #require(rules["droppedForWantOfAListener"].flatMap { if case .integer(let n) = $0 { n } else { nil } })
        #expect(dropped > 0, "\(output.stdout)")
    }

    @Test func anUnknownOptionIsAUsageErrorWithASuggestion() throws {
        let output = try HarnessBinary.run(["soak", "--second", "3"])
        #expect(output.status == 2)
        #expect(output.stderr.contains("did you mean '--seconds'?"), "\(output.stderr)")
        let zero = try HarnessBinary.run(["soak", "--handlers", "0"])
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("'--handlers' expects a positive whole number"), "\(zero.stderr)")
    }
}
