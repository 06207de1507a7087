import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// The site-settings extension (`Scenarios/extensions/site-settings`), the second design written
/// in JavaScript, as a run's background: every named scenario passes with it, its own checks
/// agree with the Swift model, and a bug planted in its code is caught by the scenarios that
/// catch the same bug in the built-in background.
@Suite(.serialized, .enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
struct SiteSettingsExtensionTests {
    static let extensionFolder = ScenarioTests.folder + "/extensions/site-settings"

    /// Plays a named scenario with the extension in `folder` as the background.
    /// `isolated`: each background incarnation in a node process of its own.
    private func run(_ file: String, extension folder: String = Self.extensionFolder, isolated: Bool = false) throws -> ScenarioRunner.Outcome {
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("site-settings-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let chosen = isolated ? HarnessBinary.executables.isolated : HarnessBinary.executables
        guard case .success(let executables) = ExtensionRuntime.background(replacing: chosen, extension: folder, transport: .process) else {
            throw Failure(description: "the runtime could not be set up")
        }
        let scenarioFolder = (ScenarioTests.folder + "/" + file).split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return try ScenarioRunner(try Scenario.parse(text, name: file), transport: .process, seed: 1, executables: executables,
                                  directory: directory, folder: scenarioFolder).run()
    }

    private struct Failure: Error, CustomStringConvertible { var description: String }

    /// The scenarios that name no extension of their own.
    static let files = ScenarioTests.files.filter { file in
        let text = (try? String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8)) ?? ""
        return !text.split(separator: "\n").contains { $0.hasPrefix("extension ") }
    }

    /// Each passes with the incarnations as contexts of one host, and again, with the same
    /// trace, with each in a process of its own: a kill that drops a context, what it had
    /// pending included, cannot be told from a process killed.
    @Test(arguments: files)
    func everyNamedScenarioPassesWithTheExtensionAsTheBackground(file: String) throws {
        let outcome = try run(file)
        #expect(outcome.skipped == nil)
        #expect(outcome.failures.isEmpty, "\(outcome.failures.joined(separator: "\n"))")
        let isolated = try run(file, isolated: true)
        if let difference = TraceComparison.firstDifference(outcome.trace, isolated.trace, names: ("contexts of one host", "a process each")) {
            Issue.record(Comment(rawValue: difference))
        }
    }

    /// Its own checks compare its hosts, documents and decisions with `harness scope`,
    /// `normalize` and `resolve`, and its machine with cases of the Swift machine's tests.
    @Test(arguments: ["compare-scopes.mjs", "compare-documents.mjs", "compare-decisions.mjs", "machine.mjs"])
    func itsOwnChecksAgreeWithTheSwiftModel(script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(ExtensionRuntime.installedNode))
        process.arguments = ["tests/" + script, HarnessBinary.path]
        process.currentDirectoryURL = URL(fileURLWithPath: Self.extensionFolder)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }

    /// A copy of the extension whose background skips the reconciliation when Safari comes to
    /// the front, in a folder the caller removes.
    private func plantedCopy() throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("planted-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Self.extensionFolder, toPath: copy)
        let machine = copy + "/machine.js"
        let source = try String(contentsOfFile: machine, encoding: .utf8)
        let reconciles = """
                  case 'tabActivated':
                  case 'safariCameToForeground':
                  case 'appMessageArrived':
            """
        let skips = """
                  case 'safariCameToForeground':
                    break;
                  case 'tabActivated':
                  case 'appMessageArrived':
            """
        try #require(source.contains(reconciles), "machine.js no longer has the lines the bug is planted in")
        try source.replacingOccurrences(of: reconciles, with: skips).write(toFile: machine, atomically: true, encoding: .utf8)
        return copy
    }

    /// The planted copy fails the scenarios the catalogue names for that bug in the built-in one.
    @Test func aBugPlantedInItsJavaScriptIsCaughtByTheNamedScenarios() throws {
        let copy = try plantedCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let catches = FlawCatalogue.catches(of: .noReconcileOnForeground)
        #expect(!catches.isEmpty)
        for entry in catches {
            let outcome = try run(entry.scenario, extension: copy)
            guard case .expectation(let line) = entry.failure else { continue }
            #expect(outcome.marks.failures.contains { $0.property == .expectation && $0.line == line },
                    "\(entry.scenario) should fail at line \(line): \(outcome.failures)")
            #expect(try self.run(entry.scenario).passed, "the same scenario passes with the extension as written")
        }
    }

    /// A differential run plays the scenario again with the built-in background: the extension
    /// as written shows the same at every settle; the planted copy parts from it at the settle
    /// after Safari came to the front, and says which tab shows what. An explored schedule is
    /// compared the same way.
    @Test func aDifferentialRunFindsWhereThePlantedCopyPartsFromTheBuiltInBackground() throws {
        let copy = try plantedCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let file = ScenarioTests.folder + "/transitions/01-an-app-default-change-reaches-an-open-tab.scenario"
        let same = try HarnessBinary.run(["run", file, "--extension", Self.extensionFolder, "--differential"])
        #expect(same.status == 0, "\(same.stdout)")
        // A scenario that names its extension itself is compared with the built-in background too.
        let own = try HarnessBinary.run(["run", ScenarioTests.folder + "/extensions/the-javascript-extensions-outbox-survives-an-unload.scenario",
                                         "--extension", Self.extensionFolder, "--differential"])
        #expect(own.status == 0, "\(own.stdout)")
        // The app numbers its edits by the revision it writes: a save that came in another
        // order is no difference.
        let numbered = try HarnessBinary.run(["run", ScenarioTests.folder + "/extensions/the-apps-edit-number-is-the-revision-it-writes.scenario",
                                              "--extension", Self.extensionFolder, "--differential"])
        #expect(numbered.status == 0, "\(numbered.stdout)")
        let parted = try HarnessBinary.run(["run", file, "--extension", copy, "--differential"])
        #expect(parted.status == 1 && parted.stdout.contains(":15: settle\n  after this settle, the extension and the built-in background differ: ")
                && parted.stdout.contains(#"tabs.t1.theme: the extension has "gray", the built-in background has "dark""#),
                "\(parted.stdout)")
        let explored = try HarnessBinary.run(["explore", "--runs", "2", "--workers", "1", "--transport", "process", "--extension", Self.extensionFolder,
                                              "--differential", "--out", copy + "/findings"])
        #expect(explored.status == 0, "\(explored.stdout)")
        #expect(try HarnessBinary.run(["explore", "--differential"]).stderr.contains("give '--extension DIR'"))
    }

    /// A bug no named scenario and no invariant sees (the outbox numbers its changes two apart)
    /// is found by a differential exploration, and shrunk, because the built-in background
    /// stores another number.
    @Test func aDifferentialExplorationFindsWhatTheChecksCannotSee() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("numbered-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: Self.extensionFolder, toPath: copy)
        let outbox = try String(contentsOfFile: copy + "/outbox.js", encoding: .utf8)
        try #require(outbox.contains("    this.nextEdit += 1;"), "outbox.js no longer has the line the bug is planted in")
        try outbox.replacingOccurrences(of: "    this.nextEdit += 1;", with: "    this.nextEdit += 2;").write(toFile: copy + "/outbox.js", atomically: true, encoding: .utf8)
        #expect(try run("transitions/02-popup-change-reaches-the-app.scenario", extension: copy).passed, "the named scenario does not see it")
        let explored = try HarnessBinary.run(["explore", "--runs", "1", "--workers", "1", "--transport", "process", "--extension", copy,
                                              "--differential", "--out", copy + "/findings"])
        let finding = try String(contentsOfFile: copy + "/findings/seed-1-difference.scenario", encoding: .utf8)
        #expect(explored.status == 1 && finding.contains("storage.local.nextEdit: the extension has "), "\(explored.stdout)\(finding)")
        #expect(finding.contains("--extension \(copy) --differential"))
    }
}
