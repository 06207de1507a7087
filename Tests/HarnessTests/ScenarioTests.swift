import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Every scenario file under Scenarios/ is its own test case, on both transports: a new file is
/// a new test with no code change.
@Suite(.serialized)
struct ScenarioTests {
    static let folder: String = {
        let file = #filePath
        let root = file[..<file.range(of: "/Tests/HarnessTests/")!.lowerBound]
        return root + "/Scenarios"
    }()

    static let files: [String] = {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".scenario") }.sorted()
    }()

    /// The scenarios whose background is an extension's JavaScript (an `extension` step, or a
    /// probe's): they run on real processes only, with node.
    static let javaScriptFiles: [String] = files.filter { file in
        let text = (try? String(contentsOfFile: folder + "/" + file, encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isNewline).contains { $0.hasPrefix("extension ") || $0 == "probe" || $0.hasPrefix("probe ") }
    }

    /// Each scenario passes on both transports, and the two give the same trace line for line
    /// (the in-process transport is only worth having if it shows what real processes do).
    @Test(arguments: files.filter { !javaScriptFiles.contains($0) })
    func namedScenarioPasses(file: String) throws {
        let text = try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8)
        let scenario = try Scenario.parse(text, name: file)
        let folder = (Self.folder + "/" + file).split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var traces: [[String]] = []
        for transport in [Simulation.Transport.process, .inProcess] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let outcome = try ScenarioRunner(scenario, transport: transport, seed: 1, executables: HarnessBinary.executables,
                                             directory: directory, folder: folder).run()
            for failure in outcome.failures { Issue.record(Comment(rawValue: "\(transport.rawValue) transport: \(failure)")) }
            traces.append(outcome.trace)
        }
        if let difference = TraceComparison.firstDifference(traces[0], traces[1], names: ("process", "in-process")) {
            Issue.record(Comment(rawValue: difference))
        }
    }

    /// A scenario whose background is an extension's JavaScript passes on real processes, and
    /// two runs give the same trace line for line; in process it is skipped, saying why.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extensions' JavaScript cannot run"),
          arguments: javaScriptFiles)
    func javaScriptScenarioPasses(file: String) throws {
        let text = try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8)
        let scenario = try Scenario.parse(text, name: file)
        let folder = (Self.folder + "/" + file).split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        func run(_ transport: Simulation.Transport, _ executables: ProcessExecutables = HarnessBinary.executables) throws -> ScenarioRunner.Outcome {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            return try ScenarioRunner(scenario, transport: transport, seed: 1, executables: executables, directory: directory, folder: folder).run()
        }
        // The second run has each background incarnation in a process of its own: the host's
        // contexts must not be told from processes.
        let first = try run(.process), second = try run(.process, HarnessBinary.executables.isolated)
        #expect(first.skipped == nil)
        for failure in first.failures { Issue.record(Comment(rawValue: failure)) }
        if let difference = TraceComparison.firstDifference(first.trace, second.trace, names: ("contexts of one host", "a process each")) {
            Issue.record(Comment(rawValue: difference))
        }
        #expect(try run(.inProcess).skipped?.contains("the process transport only") == true)
    }

    /// The walk that makes the test cases finds every scenario: the same files as the walk
    /// `harness run --all` makes (`ScenarioFiles`, over `readdir`, not `FileManager`), and some
    /// in every folder of `Scenarios/` but the one that holds example documents. A walk that
    /// finds nothing, or that skips a folder or a file, fails here rather than leaving
    /// scenarios untested.
    @Test func thereAreNamedScenarios() throws {
        let found = try ScenarioFiles.collect([Self.folder]).map { String($0.dropFirst(Self.folder.count + 1)) }
        #expect(!found.isEmpty, "no scenario under \(Self.folder)")
        let missed = Set(found).subtracting(Self.files).sorted(), extra = Set(Self.files).subtracting(found).sorted()
        #expect(missed.isEmpty, "no test case for \(missed)")
        #expect(extra.isEmpty, "test cases for files readdir does not find: \(extra)")
        #expect(Self.files.count == found.count, "a file walked twice")
        // `documents` and `handlers` hold what scenarios name, not scenarios.
        let folders = Folder.entries(in: Self.folder).filter { $0.isFolder && !["documents", "handlers"].contains($0.name) }.map(\.name)
        #expect(!folders.isEmpty)
        for name in folders {
            #expect(Self.files.contains { $0.hasPrefix(name + "/") }, "no scenario in Scenarios/\(name)")
        }
    }

    /// Mistakes only a run can find: files a scenario names, and faults no process got to.
    /// (Mistakes in the text itself are the parser's: `ScenarioParserTests`.)
    @Test(arguments: [
        ("platform ios\nshared file nowhere.json", "s:2: nowhere.json: no such file"),
        ("platform ios\nshared file /dev/zero", "s:2: /dev/zero: not a regular file"),
        ("cache file /", "s:1: /: not a regular file"),
        ("handler source nowhere/Handler.swift\ntab open t1 https://a.example/", "s:1: handler source nowhere/Handler.swift: no such file or folder"),
        ("platform ios\ntab open t1 https://a.example/\ncrash app at rename", "s:3: 'crash app at rename' was never reached: the app never got to rename after it"),
        ("tab open t1 https://a.example/\nhold handler at rename\nrelease handler", "s:2: 'hold handler at rename' was never reached: the handler never got to rename after it"),
        ("tab open t1 https://a.example/\nsafari update-extension\nsafari update-extension version=1.1",
         "s:3: safari update-extension version=1.1: version 1.1 is installed already, and Safari sees an update only when the version changes"),
        ("tab open t1 https://a.example/\nsafari update-extension ../extensions/v2",
         "s:2: safari update-extension ../extensions/v2: the run's background is the built-in design's, which has no files to update; an update to a folder replaces an extension's JavaScript (name it first: extension DIR)"),
    ] as [(String, String)])
    func mistakesARunFindsNameTheFileAndLine(text: String, message: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.parse(text, name: "s")
        do {
            _ = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory).run()
            Issue.record("expected the error \(message)")
        } catch {
            #expect(error.description == message)
        }
    }

    /// A fault nobody got to because a process is stuck is a run that stopped short: a failure
    /// saying where each process waits and who holds the lock, not a mistake in the scenario.
    @Test func aFaultBehindAStuckProcessSaysWhereEachWaits() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = "platform macos\nhandler fresh\ntab open t1 https://a.example/\nsettle\napp launch\nhold app at rename\napp set default theme=dark\npopup open t1\npopup set theme=sepia\ncrash handler at write-temp\n"
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "s"), transport: .inProcess, seed: 1, executables: HarnessBinary.executables,
                                         directory: directory).run()
        #expect(outcome.failures.count == 1)
        #expect(outcome.failures.first?.hasPrefix("""
            s:10: crash handler at write-temp
              'crash handler at write-temp' was never reached: the handler never got to write-temp after it; when the run ended, \
            app#1 is held at rename by 'hold app at rename', never released; handler#2 waits at lock for the lock, which app#1 holds
            """) == true, "\(outcome.failures)")
    }

    @Test func aDocumentFileLargerThanADocumentIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(repeating: 0x20, count: DocumentCodec.maximumBytes + 1).write(to: URL(fileURLWithPath: directory + "/big.json"))
        let scenario = try Scenario.parse("shared file big.json\nsettle\n", name: "s")
        #expect(throws: ScenarioErrors([ScenarioError(file: "s", line: 1, message: "big.json: larger than \(DocumentCodec.maximumBytes) bytes")])) {
            try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables,
                               directory: directory + "/run", folder: directory).run()
        }
    }

    /// Invariant 5 holds a cache-first answer to what the cache gives, by the rules' own
    /// reading: a first answer from the built-in defaults, given before the cache was read,
    /// breaks it the moment it is sent, though it came before any native reply.
    @Test func aFirstAnswerThatIsNotTheCachesBreaksInvariant5() throws {
        func run(_ flaws: Set<Flaw>) throws -> ScenarioRunner.Outcome {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let scenario = try Scenario.parse("platform ios\ncache site docs.example.com mode=on theme=gray\ntab open t1 https://docs.example.com/guide\nsettle\n",
                                              name: "c.scenario")
            return try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory,
                                      flaws: flaws).run()
        }
        let right = try run([])
        #expect(right.passed, "\(right.failures)")
        let flawed = try run([.answerBeforeCacheLoaded])
        #expect(flawed.properties == [.invariant(5)], "\(flawed.failures)")
        #expect(flawed.failures.first?.contains("background#1 started with a cache and answered tab t1 first with enabled=false (reference true), reason=autoLight (reference modeOn)") == true,
                "\(flawed.failures)")
    }

    /// `within`: time moves from one due moment to the next and stays where the expectation
    /// first held; at the bound it fails with what it saw then.
    @Test func aBoundedExpectationWaitsForItsFirstMomentAndNoLonger() throws {
        func run(_ bound: String) throws -> ScenarioRunner.Outcome {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let scenario = try Scenario.parse("platform ios\nhandler hung\ntab open t1 https://docs.example.com/\nexpect tab t1 reason=autoLight within \(bound)\n", name: "w.scenario")
            return try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory).run()
        }
        let held = try run("1h")
        #expect(held.passed, "\(held.failures)")
        #expect(held.virtualTime == 5000, "time stays at the native timeout, where the tab first had its decision")
        let short = try run("4s")
        #expect(short.virtualTime == 4000)
        #expect(short.failures.first?.hasPrefix("w.scenario:4: expect tab t1 reason=autoLight within 4s\n  not so within 4s, at the bound (+4.000s):\n  tab t1 has applied no decision") == true,
                "\(short.failures)")
    }

    /// A line that fails on several keys is one failure; the trace lines shown are those that
    /// explain it, Safari's note of the lost event among them, with the flaw named.
    @Test func aFailureIsOneBlockPerLineAndShowsTheLinesThatExplainIt() throws {
        let file = "safari/the-event-that-wakes-the-background-finds-its-listener.scenario"
        let scenario = try Scenario.parse(try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8), name: file)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory,
                                         flaws: [.listenersAfterCacheRead]).run()
        let popup = outcome.failures.filter { $0.hasPrefix(file + ":17: expect popup") }
        #expect(popup.count == 1, "two keys of one line, one failure: \(outcome.failures)")
        #expect(popup.first?.contains("popup theme: expected \"sepia\", got \"gray\"\n  popup source.theme: expected \"site\", got \"default\"") == true)
        let tab = try #require(outcome.failures.first { $0.hasPrefix(file + ":16:") })
        #expect(tab.contains("safari popupEdited lost: background#2 has no message listener"))
        #expect(tab.contains("flaws on: listeners-after-cache-read"))
    }

    /// A step's side effects are in the trace: an edit in the app on iOS launches it, which
    /// sends Safari to the background and freezes the extension.
    @Test func anAppEditOnIOSSaysWhatItDoesToSafari() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.parse("platform ios\ntab open t1 https://a.example/\nsettle\napp set default theme=dark\nexpect background frozen\n", name: "s")
        let outcome = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory).run()
        #expect(outcome.passed, "\(outcome.failures)")
        let beforeHealing = outcome.trace.prefix { !$0.hasSuffix(" harness heal") }
        let notes = beforeHealing.filter { $0.contains(" harness the edit") || $0.contains(" safari Safari goes") }
        #expect(notes.map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" } ==
                ["harness the edit launches the app and brings it to the front",
                 "safari Safari goes to the background: iOS suspends it, and the extension with it"])
    }

    @Test func aFailedExpectationShowsExpectedActualTheLineAndTheTrace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.parse("# A wrong expectation.\nshared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 theme=sepia\n", name: "wrong.scenario")
        let outcome = try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory).run()
        #expect(scenario.description == "A wrong expectation.")
        let failure = try #require(outcome.failures.first)
        // The decision whole, the key that differs marked; the state then; the lines that explain it.
        #expect(failure.hasPrefix("""
            wrong.scenario:5: expect tab t1 theme=sepia
              tab t1 shows enabled=true, reason=modeOn, theme=gray (expected sepia), mode=on, nativeDarkPolicy=respect, scope=none, \
            source.mode=default, source.theme=default, source.nativeDarkPolicy=default
              then: background#1 running, the app not running, Safari in front, no alarm
              the trace that explains it (
            """))
        #expect(failure.contains("background#1 -> {\"decision\":{\"enabled\":true"))
        #expect(!failure.contains(" yield "))
        #expect(outcome.failures.count == 1)
    }

    /// Every step the grammar documents runs as written (expectations may fail, and a fault the
    /// examples plan where no process works may go unreached; the words must not be refused).
    @Test func everyDocumentedStepIsAccepted() throws {
        let readme = try String(contentsOfFile: Self.folder + "/README.md", encoding: .utf8)
        var inBlock = false, transcript = false
        var lines: [String] = []
        // The steps of an extension's own pages need one: they are read on their own.
        var ownPages = false
        var pageLines: [String] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { ownPages = line == "## An extension's own pages" }
            if ownPages {
                if line.hasPrefix("```") { inBlock.toggle() } else if inBlock { pageLines.append(String(line)) }
                continue
            }
            if line.hasPrefix("```") {
                inBlock.toggle()
                // A shell session (```console) shows a command and what it prints: no steps.
                transcript = inBlock && line == "```console"
                continue
            }
            if inBlock && !transcript { lines.append(String(line)) }
        }
        #expect(lines.count > 40)
        #expect(pageLines.count > 5)
        #expect(throws: Never.self) { try Scenario.parse(pageLines.joined(separator: "\n"), name: "README.md (own pages)") }
        // `extension DIR` makes the whole run a JavaScript one, which the in-process transport
        // skips, and `fetch`, `watchdog` and `heap-limit` serve only such a background: each is
        // documented (`fetch` in its two forms), and tried where node runs it (RunCommandTests,
        // JavaScriptBackgroundTests, the named scenarios).
        let javaScriptOnly = ["extension ", "fetch ", "watchdog ", "heap-limit "]
        #expect(lines.count { $0.hasPrefix("extension ") } == 1 && lines.count { $0.hasPrefix("fetch ") } == 2)
        #expect(lines.count { $0.hasPrefix("watchdog ") } == 1 && lines.count { $0.hasPrefix("heap-limit ") } == 1)
        lines.removeAll { line in javaScriptOnly.contains { line.hasPrefix($0) } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.parse(lines.joined(separator: "\n"), name: "README.md")
        // Paths in the examples are written as from a scenario in one of the folders.
        let runner = ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: directory,
                                    folder: Self.folder + "/lifecycle")
        let refusal: String? = {
            do {
                _ = try runner.run()
                return nil
            } catch {
                return String(describing: error)
            }
        }()
        if let refusal, !refusal.contains("was never reached") { Issue.record(Comment(rawValue: refusal)) }
    }

    @Test func convergenceFailsWhileATabStillShowsAnOldDecision() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = "platform ios\nshared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\napp set default theme=dark\nsettle\nexpect converged\nsafari foreground\nsettle\nexpect converged\n"
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "c"), transport: .inProcess, seed: 1,
                                         executables: HarnessBinary.executables, directory: directory).run()
        #expect(outcome.failures.first?.hasPrefix("c:7: expect converged\n  tab t1 shows") == true)
        #expect(outcome.failures.contains { $0.contains("the cache (revision 1) differs") })
        #expect(outcome.failures.allSatisfy { $0.hasPrefix("c:7:") }, "after Safari returns, everything agrees")
    }
}
