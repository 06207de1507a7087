import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// A small sample of the crash sweep (`harness sweep` runs all of it): every arrival at a yield
/// point in two scenarios, with that process killed there, breaks no invariant.
@Suite(.serialized)
struct SweepTests {
    static let sample = [
        "transitions/07-rapid-changes-in-both-interfaces.scenario",
        "lifecycle/a-crash-before-the-rename-keeps-the-old-document.scenario",
    ]

    private func run(_ file: String, transport: Simulation.Transport, flaws: Set<Flaw> = [],
                     crashAt: YieldArrival? = nil) throws -> ScenarioRunner.Outcome {
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8)
        let scenario = try Scenario.parse(text, name: file)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try ScenarioRunner(scenario, transport: transport, seed: 1, executables: HarnessBinary.executables,
                                  directory: directory, flaws: flaws, crashAt: crashAt).run()
    }

    @Test(arguments: sample)
    func aCrashAtEveryPointBreaksNoInvariant(_ file: String) throws {
        let base = try run(file, transport: .inProcess)
        #expect(base.passed)
        #expect(base.arrivals.count > 10)
        for arrival in base.arrivals {
            let outcome = try run(file, transport: .inProcess, crashAt: arrival)
            #expect(outcome.failures.isEmpty, "a crash at \(arrival): \(outcome.failures.first ?? "")")
        }
    }

    @Test func realProcessesReachTheSamePointsInTheSameOrder() throws {
        var points: Set<String> = []
        for file in Self.sample {
            let inProcess = try run(file, transport: .inProcess).arrivals
            let process = try run(file, transport: .process).arrivals
            #expect(inProcess == process, "\(file)")
            points.formUnion(inProcess.map { "\($0.process)@\($0.point.rawValue)" })
        }
        for point in ["app@write-temp", "app@rename", "handler@write-temp", "handler@rename", "background@storage-rename"] {
            #expect(points.contains(point), "the sample never reaches \(point)")
        }
    }

    /// The sweep can fail: with documents written in place, a crash between the two halves of
    /// the write leaves a torn document.
    @Test func theSweepFindsATornDocumentWhenWritesAreInPlace() throws {
        let file = Self.sample[1]
        let arrival = YieldArrival(process: .app, point: .rename, occurrence: 1)
        let outcome = try run(file, transport: .inProcess, flaws: [.inPlaceWrites], crashAt: arrival)
        #expect(outcome.failures.contains { $0.contains("the shared document does not parse") && $0.contains("(invariant 1)") })
    }
}

/// A small seeded batch of the native fuzzer on real handler processes (`harness fuzz-native`
/// runs a million in process).
struct NativeFuzzProcessTests {
    @Test func realHandlersAnswerASeededBatchAsItsLabelsSay() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tally = NativeFuzz.runOnProcesses(seed: 11, from: 0, count: 150, executables: HarnessBinary.executables, directory: directory)
        #expect(tally.wrong == 0, "\(tally.examples)")
        #expect(tally.answered == 150)
        #expect(tally.applied > 30 && tally.rejected > 30)
    }
}

/// A sample of the power-loss sweep (in process): a cut before every flush of one scenario,
/// keeping none or all of the unsynced changes, breaks no invariant; with documents written in
/// place, some cut leaves a torn document, and the check says so.
@Suite(.serialized)
struct PowerLossTests {
    static let file = "transitions/02-popup-change-reaches-the-app.scenario"

    private func run(flaws: Set<Flaw> = [], powerCut: PowerCutPlan? = nil) throws -> ScenarioRunner.Outcome {
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + Self.file, encoding: .utf8)
        let scenario = try Scenario.parse(text, name: Self.file)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("power-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables,
                                  directory: directory, flaws: flaws, powerCut: powerCut).run()
    }

    @Test func aPowerLossBeforeAnyFlushBreaksNoInvariant() throws {
        let base = try run()
        #expect(base.unsyncedAtFlushes.count > 4)
        let plans = CrashSweep.powerCuts(base, subsets: 1, seed: 9).filter { if case .flush = $0.place { true } else { false } }
        #expect(plans.count >= base.unsyncedAtFlushes.count, "a cut before every flush")
        for plan in plans {
            let outcome = try run(powerCut: plan)
            #expect(outcome.failures.isEmpty, "power lost at \(plan): \(outcome.failures.first ?? "")")
            #expect(outcome.trace.contains { $0.contains("power lost") })
        }
    }

    @Test func aPowerLossAtAYieldPointOrAfterTheLastStepRestartsEverything() throws {
        let base = try run()
        for plan in [PowerCutPlan(.arrival(base.arrivals[base.arrivals.count / 2]), kept: .none), .init(.end, kept: .all)] {
            let outcome = try run(powerCut: plan)
            #expect(outcome.failures.isEmpty, "power lost at \(plan): \(outcome.failures.first ?? "")")
            #expect(outcome.trace.contains { $0.contains("power lost") }, "\(plan)")
        }
    }

    @Test func somePowerLossTearsADocumentWrittenInPlace() throws {
        let flushes = try run(flaws: [.inPlaceWrites]).unsyncedAtFlushes.count
        let torn = try (1...flushes).contains { flush in
            try run(flaws: [.inPlaceWrites], powerCut: .init(.flush(flush), kept: .none)).failures
                .contains { $0.contains("the shared document is torn when the power failed (invariant 1)") }
        }
        #expect(torn)
    }

    @Test func everySubsetOfAFewPendingChangesIsTriedAndPlansReadBack() {
        let plans = PowerCutPlan.plans(at: .flush(3), pending: 3, samples: 2, seed: 1)
        #expect(plans.map(\.kept) == (0..<8).map { .mask(UInt64($0)) })
        #expect(PowerCutPlan.plans(at: .end, pending: 9, samples: 2, seed: 1).count == 4)
        for text in ["12:none", "handler@rename#2:mask-5", "end:all", "3:sample-77"] {
            #expect(PowerCutPlan(text)?.description == text)
        }
        #expect(PowerCutPlan("0:none") == nil && PowerCutPlan("12:some") == nil)
    }
}
