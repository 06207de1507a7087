import Foundation
@testable import HarnessCore
import Testing

/// A process that cannot be started fails the run, and the failure names the executable: the
/// run never carries on as if the process had merely stayed silent.
@Suite(.serialized)
struct SpawnFailureTests {
    private static let scenario = """
        platform macos
        shared defaults mode=on theme=gray
        app launch
        tab open t1 https://docs.example.com/
        settle
        """

    /// Runs the scenario on real processes started from `bin`, a folder made for the test that
    /// holds links to the built executables named in `present`.
    private func run(present: [String]) throws -> (outcome: ScenarioRunner.Outcome, bin: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for name in present {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + name, withDestinationPath: HarnessBinary.directory + "/" + name)
        }
        let outcome = try ScenarioRunner(try Scenario.parse(Self.scenario, name: "s"), transport: .process, seed: 1,
                                         executables: ProcessExecutables(folder: bin), directory: folder + "/run").run()
        return (outcome, bin)
    }

    @Test func anEmptyExecutablesFolderFailsTheRunNamingEachExecutable() throws {
        let (outcome, bin) = try run(present: [])
        // Each is reported after the step that first needed it.
        let reports = outcome.failures.map { $0.split(separator: "\n").prefix(2).joined(separator: "\n") }
        #expect(reports.contains("s:3: app launch\n  after this step: cannot start \(bin)/AppProcess: no such file or directory (errno 2)"), "\(reports)")
        #expect(reports.contains("s:4: tab open t1 https://docs.example.com/\n  after this step: cannot start \(bin)/ExtensionProcess: no such file or directory (errno 2)"), "\(reports)")
        #expect(outcome.trace.contains("+0.000s app#1 could not start"))
        #expect(outcome.trace.contains("+0.000s background#1 could not start"))
        #expect(!outcome.trace.contains { $0.contains(bin) }, "the trace holds no path")
    }

    @Test(arguments: ["AppProcess", "ExtensionProcess", "NativeHandler"])
    func aMissingExecutableFailsTheRunNamingIt(missing: String) throws {
        let (outcome, bin) = try run(present: ["AppProcess", "ExtensionProcess", "NativeHandler"].filter { $0 != missing })
        let message = "cannot start \(bin)/\(missing): no such file or directory (errno 2)"
        #expect(outcome.failures.contains { $0.contains(": \(message)\n") }, "\(outcome.failures)")
        #expect(!outcome.failures.contains { $0.contains("cannot start") && !$0.contains(message) })
    }

    /// The starting document cannot be put in place (the run's folder is under a file): the
    /// run fails saying so, instead of starting from no document.
    @Test func aStartingFileThatCannotBeWrittenFailsTheRun() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("blocker-\(UUID().uuidString)").path
        FileManager.default.createFile(atPath: file, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: file) }
        let outcome = try ScenarioRunner(try Scenario.parse(Self.scenario, name: "s"), transport: .process, seed: 1,
                                         executables: HarnessBinary.executables, directory: file + "/run").run()
        #expect(outcome.failures.first?.contains("cannot write settings.json: open settings.json failed (errno 20)") == true, "\(outcome.failures)")
    }
}
