import Foundation
@testable import HarnessCore
import SiteSettings
import Testing

/// `harness run` as a user runs it: the table, and the exit status.
@Suite(.serialized)
struct RunCommandTests {
    private func scenario(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).scenario").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func passingScenariosExitZeroWithAResultLineEach() throws {
        let path = try scenario("# Passes.\nshared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 enabled theme=gray\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path, "--transport", "in-process"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("pass  \(path)  4 steps"))
        #expect(result.stdout.contains("1 passed, 0 failed"))
    }

    @Test func aFailedExpectationExitsOneAndShowsExpectedAndActual() throws {
        let path = try scenario("shared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 theme=dark\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  \(path)"))
        #expect(result.stdout.contains("tab t1 shows enabled=true, reason=modeOn, theme=gray (expected dark), "))
    }

    /// `--filter` keeps the files whose path contains the text; `--workers 2` prints what one
    /// worker prints, in the same order; `--json` gives a line per scenario and a summary.
    @Test func filterWorkersAndJSON() throws {
        let one = try HarnessBinary.run(["run", ScenarioTests.folder, "--filter", "SEED-000", "--transport", "in-process"])
        let two = try HarnessBinary.run(["run", ScenarioTests.folder, "--filter", "seed-000", "--transport", "in-process", "--workers", "2"])
        #expect(one.status == 0 && two.status == 0)
        func results(_ text: String) -> [String] {
            // Each result line without its wall time.
            text.split(separator: "\n").filter { $0.hasPrefix("pass") || $0.hasPrefix("FAIL") }.map { String($0.split(separator: "  ").dropLast().joined(separator: "  ")) }
        }
        #expect(results(one.stdout).count == ScenarioTests.files.filter { $0.hasPrefix("seed-000/") }.count)
        #expect(results(one.stdout) == results(two.stdout))
        #expect(results(one.stdout).allSatisfy { $0.contains("/seed-000/") })
        // Over a folder whose runs take from a millisecond to many, two workers finish out of
        // order: the output still follows the files.
        let folder = ScenarioTests.folder + "/lifecycle"
        let serial = try HarnessBinary.run(["run", folder, "--transport", "in-process"])
        let parallel = try HarnessBinary.run(["run", folder, "--transport", "in-process", "--workers", "2"])
        #expect(results(serial.stdout).count == ScenarioTests.files.filter { $0.hasPrefix("lifecycle/") }.count)
        #expect(results(parallel.stdout) == results(serial.stdout))
        #expect(try HarnessBinary.run(["run", ScenarioTests.folder, "--filter", "no-such-name"]).stderr.contains("no scenario file's path contains 'no-such-name'"))

        let good = try scenario("seed 7\nshared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 enabled\n")
        let bad = try scenario("shared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 theme=dark\n")
        let json = try HarnessBinary.file("")
        defer { for path in [good, bad, json] { try? FileManager.default.removeItem(atPath: path) } }
        let result = try HarnessBinary.run(["run", good, bad, "--transport", "in-process", "--json", json])
        #expect(result.status == 1)
        // The seed a file sets is the one its line shows.
        #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("pass  \(good)") && $0.hasSuffix("  seed 7") })
        let lines = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
        #expect(lines.count == 3)
        // The files run in their paths' order: find each by its name.
        func line(_ path: String) -> [String: JSONValue]? { lines.compactMap(\.objectValue).first { $0["scenario"] == .string(path) } }
        #expect(line(good)?["result"] == .string("pass"))
        guard case .array(let failures)? = line(bad)?["failures"] else {
            Issue.record("no failures for \(bad) in \(lines)")
            return
        }
        let failure = failures.first?.objectValue
        #expect(failure?["line"] == .integer(4) && failure?["property"] == .string("expectation") && failure?["step"] == .string("expect tab t1 theme=dark"))
        #expect(lines[2].objectValue?["summary"]?.objectValue?["failed"] == .integer(1))
    }

    /// Run from outside the repository, it says where it looked and how to point it elsewhere;
    /// `--version` prints the version.
    @Test func outsideTheRepositoryItSaysWhereItLooked() throws {
        let result = try HarnessBinary.run(["run"], in: FileManager.default.temporaryDirectory.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("no Scenarios/ folder in \(FileManager.default.temporaryDirectory.path)"))
        #expect(result.stderr.contains("run from the repository's root, or name scenario files or folders"))
        let version = try HarnessBinary.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("harness 0."))
    }

    @Test func aScenarioSyntaxErrorExitsTwoNamingFileAndLine() throws {
        let path = try scenario("tab open t1 https://a.example/\ntab actvate t1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):2: unknown word 'actvate'"))
        #expect(result.stderr.contains("did you mean 'activate'?"))
    }

    /// `watchdog` and `heap-limit` limit an extension's JavaScript: with the built-in
    /// background, either is a mistake, named with its line, and nothing runs.
    @Test func aLimitOfTheJavaScriptRuntimeWithoutAnExtensionIsAMistake() throws {
        let path = try scenario("platform ios\nheap-limit 64MiB\ntab open t1 https://a.example/\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):2: 'heap-limit' limits an extension's JavaScript, and this run's background is not one"), "\(result.stderr)")
    }

    @Test func aMistakeInAnyFileStopsTheRunBeforeAnythingStarts() throws {
        let good = try scenario("# Passes.\ntab open t1 https://a.example/\nsettle\n")
        let bad = try scenario("# Two mistakes.\r\ntab open t1 https://a.example/ windw=2\r\nexpect tab t1 thme=gray\r\n")
        defer { for path in [good, bad] { try? FileManager.default.removeItem(atPath: path) } }
        let result = try HarnessBinary.run(["run", good, bad, "--transport", "in-process"])
        #expect(result.status == 2)
        #expect(!result.stdout.contains("pass"), "nothing runs: \(result.stdout)")
        #expect(result.stderr.contains("\(bad):2: unknown option 'windw=2'"))
        #expect(result.stderr.contains("\(bad):3: unknown key 'thme'"))
        #expect(result.stderr.contains("1 of 2 scenario files have mistakes"))
    }

    @Test func checkValidatesWithoutRunningAndListReportsInvalidFiles() throws {
        let good = try scenario("# Passes.\ntab open t1 https://a.example/\nsettle\n")
        let bad = try scenario("# Only a comment, with CRLF endings.\r\n")
        defer { for path in [good, bad] { try? FileManager.default.removeItem(atPath: path) } }
        let check = try HarnessBinary.run(["check", good, bad])
        #expect(check.status == 2)
        #expect(check.stdout.contains("ok       \(good)  2 steps"))
        #expect(check.stdout.contains("INVALID  \(bad)  1 mistake(s)"))
        #expect(check.stdout.contains("1 valid, 1 invalid"))
        #expect(check.stderr.contains("\(bad): the scenario has no steps"))
        let list = try HarnessBinary.run(["list", good, bad])
        #expect(list.status == 2)
        #expect(list.stdout.contains("\(good)\n    Passes."))
        #expect(list.stdout.contains("\(bad)\n    INVALID"))
        let valid = try HarnessBinary.run(["check", good])
        #expect(valid.status == 0 && valid.stdout.contains("1 valid, 0 invalid"))
    }

    /// A page's document (`html=FILE`) is read before anything runs: a file that is not there,
    /// is not UTF-8 text or is larger than the limit is a mistake at its line, which `check`
    /// names as `run` does.
    @Test func aPagesDocumentThatCannotBeReadIsAMistakeAtItsLine() throws {
        let folder = FileManager.default.temporaryDirectory.path
        let binary = "binary-\(UUID().uuidString).html", large = "large-\(UUID().uuidString).html"
        try Data([0x3C, 0x70, 0x3E, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: folder + "/" + binary))
        try Data(repeating: 0x20, count: ScenarioSetup.pageDocumentLimit + 1).write(to: URL(fileURLWithPath: folder + "/" + large))
        defer { for file in [binary, large] { try? FileManager.default.removeItem(atPath: folder + "/" + file) } }
        for (file, problem) in [("no-such-page.html", "no such file"), (binary, "is not UTF-8 text"), (large, "larger than \(ScenarioSetup.pageDocumentLimit) bytes")] {
            let path = try scenario("tab open t1 https://a.example/\nsettle\ntab navigate t1 https://b.example/ html=\(file)\nsettle\n")
            defer { try? FileManager.default.removeItem(atPath: path) }
            for command in ["check", "run"] {
                let result = try HarnessBinary.run([command, path])
                #expect(result.status == 2, "\(command): \(result.stdout)\(result.stderr)")
                #expect(result.stderr.contains("\(path):3: html=\(file)") && result.stderr.contains(problem), "\(command): \(result.stderr)")
            }
        }
    }

    /// `check --extension DIR` reads an extension folder as Safari would and names each mistake.
    @Test func checkReadsAnExtensionFolder() throws {
        let minimal = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessCoreTests/Fixtures/extensions/minimal").path
        let good = try HarnessBinary.run(["check", "--extension", minimal])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("ok       \(minimal)  Minimal 1.0: a background of 1 module script(s), 1 content script entry, the popup popup.html"))
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-extension-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let bad = try HarnessBinary.run(["check", "--extension", empty])
        #expect(bad.status == 2 && bad.stdout.contains("INVALID  \(empty)  1 mistake(s)"), "\(bad.stdout)")
        #expect(bad.stderr.contains("\(empty)/manifest.json: no manifest.json in the extension folder"))
        let both = try HarnessBinary.run(["check", "--extension", minimal, "x.scenario"])
        #expect(both.status == 2, "a scenario file and --extension together are a usage error")
    }

    /// With node installed, `check --extension` loads the background once: the events it listens
    /// for, and an exception its scripts do not catch while loading is a mistake with its place.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the background cannot be loaded"))
    func checkLoadsTheBackgroundAndAnUncaughtErrorAtLoadIsAMistake() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessCoreTests/Fixtures/extensions").path
        let good = try HarnessBinary.run(["check", "--extension", fixtures + "/runtime-events"])
        #expect(good.status == 0 && good.stdout.contains("loaded   the background listens for message, tabActivated, tabRemoved, windowFocus"),
                "\(good.stdout)\(good.stderr)")
        // A listener added after the load is said apart: Safari hears it from then on.
        let late = try HarnessBinary.run(["check", "--extension", ScenarioTests.folder + "/extensions/late-listener"])
        #expect(late.status == 0 && late.stdout.contains("the background listens for no event at its load's end; then also for message, added after its load"),
                "\(late.stdout)\(late.stderr)")
        let throwing = try HarnessBinary.run(["check", "--extension", fixtures + "/runtime-classic"])
        #expect(throwing.status == 2 && throwing.stdout.hasPrefix("INVALID") && throwing.stdout.contains("2 mistake(s) while loading and running on"),
                "\(throwing.stdout)")
        #expect(throwing.stderr.contains(fixtures + "/runtime-classic/background.js:17:6: Uncaught TypeError: Cannot read properties of null (reading 'missing')"),
                "\(throwing.stderr)")
        let broken = try HarnessBinary.run(["check", "--extension", fixtures + "/runtime-module-broken"])
        #expect(broken.status == 2 && broken.stderr.contains(fixtures + "/runtime-module-broken/lib.js: Uncaught SyntaxError: Unexpected token '='"),
                "a module's syntax error is named by its file: \(broken.stderr)")
    }

    /// With node installed, `check --extension` loads the extension's own pages once too (a page
    /// for each content script entry, and the popup): an exception their scripts do not catch is
    /// a mistake with its page and place.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the pages cannot be loaded"))
    func checkLoadsThePagesAndAnUncaughtErrorAtLoadIsAMistake() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessCoreTests/Fixtures/extensions").path
        let good = try HarnessBinary.run(["check", "--extension", ScenarioTests.folder + "/extensions/first-version"])
        #expect(good.status == 0 && good.stdout.contains("loaded   the page https://example.com/, the popup"), "\(good.stdout)\(good.stderr)")
        let throwing = try HarnessBinary.run(["check", "--extension", fixtures + "/pages-escape"])
        #expect(throwing.status == 2 && throwing.stdout.hasPrefix("INVALID") && throwing.stdout.contains("2 mistake(s) while loading and running on"),
                "\(throwing.stdout)")
        #expect(throwing.stderr.contains(fixtures + "/pages-escape/late.js:3:7 (tab t1): Uncaught Error: late throws"), "\(throwing.stderr)")
        // A popup of module scripts loads, with nothing to warn of.
        let module = try HarnessBinary.run(["check", "--extension", ScenarioTests.folder + "/extensions/site-settings"])
        #expect(module.status == 0 && module.stdout.contains("loaded   the page https://example.com/, the popup") && module.stderr.isEmpty,
                "\(module.stdout)\(module.stderr)")
    }

    /// `check --extension` lets what it loaded run on for 30 s of virtual time (timers, storage
    /// answers, alarms raised to Safari's minimum): an error that comes later is a mistake too,
    /// and the first line says ok only when there is none.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension cannot be loaded"))
    func checkRunsWhatItLoadedOnAndALaterErrorIsAMistake() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessCoreTests/Fixtures/extensions/late-errors").path
        let late = try HarnessBinary.run(["check", "--extension", folder])
        #expect(late.status == 2 && late.stdout.hasPrefix("INVALID") && late.stdout.contains("4 mistake(s) while loading and running on"), "\(late.stdout)")
        for error in ["/background.js:2:26: Uncaught Error: the timer throws", "/background.js:3:51: Uncaught (in promise) Error: the storage answer throws",
                      "/background.js:5:50: Uncaught Error: the alarm throws", "/popup.js:2:26 (popup): Uncaught Error: the popup throws later"] {
            #expect(late.stderr.contains(folder + error), "\(late.stderr)")
        }
        #expect(!late.stderr.contains("too late to be seen"), "a timer past 30 s does not fire: \(late.stderr)")
    }

    /// `check --extension` lists what each part's scripts use that the runtime lacks, read from
    /// their text: the browser.* members and the web's globals.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the scripts cannot be read"))
    func checkListsWhatTheScriptsUseThatTheRuntimeLacks() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessCoreTests/Fixtures/extensions/lacking-apis").path
        let check = try HarnessBinary.run(["check", "--extension", folder])
        // URL, TextEncoder and requestAnimationFrame, which the scripts use too, are the runtime's: not listed.
        // Storage is the runtime's in every context (storage.sync included), and localStorage in pages.
        #expect(check.stdout.contains("lacks    the background uses what the runtime lacks: browser.windows.create\n"), "\(check.stdout)")
        #expect(!check.stdout.contains("the content scripts use what the runtime lacks"), "\(check.stdout)")
        // The options page is read as an extension page: storage.session is its, windows.create is not the runtime's.
        #expect(check.stdout.contains("lacks    the options page uses what the runtime lacks: browser.windows.create\n"), "\(check.stdout)")
        #expect(!check.stdout.contains("Uncaught"), "the pages have storage of their own: \(check.stdout)")
        let clean = try HarnessBinary.run(["check", "--extension", ScenarioTests.folder + "/extensions/site-settings"])
        #expect(clean.status == 0 && !clean.stdout.contains("lacks"), "\(clean.stdout)")
    }

    /// A process that dies of itself fails the run (invariant 18), naming it and how it ended,
    /// once for its role: a background that says hello and exits at its first input is not
    /// played as a crash the page survives.
    @Test func aBackgroundThatDiesOfItselfFailsTheRun() throws {
        let node = try #require(ConformTests.node, "node is on every machine of this project; it is not on PATH")
        let plain = try scenario("tab open t1 https://docs.example.com/guide\nsettle\n")
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let run = try HarnessBinary.run(["run", plain, "--background-exec", node, "--background-arg", Self.diesAfterHello,
                                         "--background-arg", "background", "--background-arg", "3"])
        #expect(run.status == 1 && run.stdout.contains("background#1 died without a cause: it exited with code 3 (invariant 18)"), "\(run.stdout)")
        #expect(run.stdout.contains("background#2 died unexpectedly") && !run.stdout.contains("background#2 died without a cause"),
                "once for the role, though the next incarnation died too: \(run.stdout)")
        // A SIGKILL is a cause only when the harness sent it.
        let killed = try HarnessBinary.run(["run", plain, "--background-exec", node, "--background-arg", Self.diesAfterHello,
                                            "--background-arg", "background", "--background-arg", "SIGKILL"])
        #expect(killed.status == 1 && killed.stdout.contains("background#1 died without a cause: it ended by signal 9 (SIGKILL) (invariant 18)"), "\(killed.stdout)")
    }

    /// A process that stops answering is killed once the frame timeout passes, and that is no
    /// cause: the run fails naming it, and no process of its role is started again.
    @Test func aBackgroundThatHangsIsKilledAndFailsTheRun() throws {
        let node = try #require(ConformTests.node, "node is on every machine of this project; it is not on PATH")
        let plain = try scenario("tab open t1 https://docs.example.com/guide\nsettle\n")
        let trace = try HarnessBinary.file("")
        defer { for path in [plain, trace] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try HarnessBinary.run(["run", plain, "--trace", trace, "--background-exec", node, "--background-arg", Self.diesAfterHello,
                                         "--background-arg", "background", "--background-arg", "hang"])
        #expect(run.status == 1 && run.stdout.contains("background#1 died without a cause: it sent nothing for 15 s, and the harness killed it (invariant 18)"),
                "\(run.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(!lines.contains("background#2") && lines.contains("harness no background is started again: background#1 hung"), "\(lines)")
    }

    /// A native message of the extension's own reaches the built-in handler as it was sent, and
    /// its `invalidMessage` refusal reaches the script as the reply: no frame is refused, and
    /// the background is not started again.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func anExtensionsOwnNativeMessageIsCarriedAndAnsweredByTheBuiltInHandler() throws {
        let plain = try scenario("extension \(ScenarioTests.folder)/extensions/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=gray\n")
        let trace = try HarnessBinary.file("")
        defer { for path in [plain, trace] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try HarnessBinary.run(["run", plain, "--trace", trace])
        #expect(run.status == 0, "\(run.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(lines.contains(#"handler#1 <- {"message":{"key":"theme","type":"setDefault","value":"sepia"},"profile":"default","type":"requestArrived"}"#), "\(lines)")
        #expect(lines.contains(#"background#1 console.log saved {"code":"invalidMessage","#), "\(lines)")
        #expect(!lines.contains("background#2") && !lines.contains("invalid frame"), "\(lines)")
    }

    /// A handler of another design answers in its own messages: its answer reaches the
    /// script as it gave it, and the page shows what the script made of it.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func aHandlersOwnAnswerReachesTheScriptAsItGaveIt() throws {
        let node = try #require(ConformTests.node, "node is on every machine of this project; it is not on PATH")
        let handler = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/own-handler.js").path
        let plain = try scenario("extension \(ScenarioTests.folder)/extensions/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=sepia\n")
        let trace = try HarnessBinary.file("")
        defer { for path in [plain, trace] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try HarnessBinary.run(["run", plain, "--trace", trace, "--handler-exec", node, "--handler-arg", handler])
        #expect(run.status == 0, "\(run.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(lines.contains(#"background#1 console.log read {"key":"theme","value":"sepia"}"#), "\(lines)")
    }

    /// The team's own handler, its Swift sources as they ship, built into the handler role:
    /// Xcode's template echoes the message; a handler of another design keeps what one request
    /// sets in the App Group's defaults (in the run's container), and the next request's process
    /// reads it; its principal class comes from the Info.plist beside it.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func aTeamsSwiftHandlerBuildsUnchangedAndServesTheRun() throws {
        let handlers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/handlers").path
        let echo = try scenario("extension \(ScenarioTests.folder)/extensions/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=gray\n")
        let saved = try scenario("extension \(ScenarioTests.folder)/extensions/reading-defaults\nhandler fresh\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=sepia\n")
        let trace = try HarnessBinary.file("")
        defer { for path in [echo, saved, trace] { try? FileManager.default.removeItem(atPath: path) } }

        let template = try HarnessBinary.run(["run", echo, "--trace", trace, "--handler-source", handlers + "/xcode-template/SafariWebExtensionHandler.swift"])
        #expect(template.status == 0 && template.stdout.contains("handler built from \(handlers)/xcode-template/SafariWebExtensionHandler.swift"), "\(template.stdout)\(template.stderr)")
        #expect(try String(contentsOfFile: trace, encoding: .utf8).contains(#"handler#1 -> {"message":{"echo":{"key":"theme","type":"setDefault","value":"sepia"}},"type":"reply"}"#))

        let reading = try HarnessBinary.run(["run", saved, "--trace", trace, "--handler-source", ScenarioTests.folder + "/handlers/reading"])
        #expect(reading.status == 0, "\(reading.stdout)\(reading.stderr)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(lines.contains(#"handler#2 -> {"message":{"key":"theme","value":"sepia"},"type":"reply"}"#), "\(lines)")
    }

    /// A team's handler may answer with more than the design's 1 MiB: its replies are held to
    /// the frame limit Safari's messages have (64 MiB), and a 2 MiB answer reaches the script.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func aTeamsHandlerAnswersWithMoreThanTheDesignsMebibyte() throws {
        let handler = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/handlers/large-reply").path
        let plain = try scenario("extension \(ScenarioTests.folder)/extensions/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=sepia\n")
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let run = try HarnessBinary.run(["run", plain, "--handler-source", handler])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// A team's handler that calls `SFSafariApplication.dispatchMessage` (code it shares with its
    /// Mac app): the message reaches the background's native port, as the app's would (before
    /// the reply, which a scenario holds until `settle`); on iOS, where the API is not, nothing
    /// is delivered and the trace says so.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func aHandlersDispatchedMessageReachesTheNativePortOnTheMac() throws {
        let handler = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/handlers/dispatching").path
        let steps = "extension \(ScenarioTests.folder)/extensions/reader pages\ntab open t1 https://news.example.com/story\nsettle\n"
        let mac = try scenario("platform macos\n" + steps + "expect console background contains \"readingDefault false\"\n")
        let ios = try scenario(steps + "expect storage local readingDefault true\n")
        let trace = try HarnessBinary.file("")
        defer { for path in [mac, ios, trace] { try? FileManager.default.removeItem(atPath: path) } }
        let onMac = try HarnessBinary.run(["run", mac, "--trace", trace, "--handler-source", handler])
        #expect(onMac.status == 0, "\(onMac.stdout)\(onMac.stderr)")
        let macLines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(macLines.contains(#"background#1 <- {"message":{"name":"defaultChanged","userInfo":{"readingDefault":false}},"type":"appMessageArrived"}"#), "\(macLines)")
        let onIOS = try HarnessBinary.run(["run", ios, "--trace", trace, "--handler-source", handler])
        #expect(onIOS.status == 0, "\(onIOS.stdout)\(onIOS.stderr)")
        #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("handler#1 dispatched defaultChanged to the extension: SFSafariApplication is macOS only, nothing is delivered"))
    }

    /// A page's elements checked by selector: descendants, counts, text, attributes, inline
    /// style and classes of the first match; a failure shows the element, and a selector the
    /// page's DOM does not take fails naming it.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func aPagesElementsAreCheckedBySelector() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions/story-page").path
        let steps = "extension \(folder) pages\ntab open t1 https://news.example.com/?id=7\nsettle\n"
        let passing = try scenario(steps + """
            expect tab t1 page "#story .title" text "Breaking news"
            expect tab t1 page ".title" text "Elsewhere"
            expect tab t1 page "html body #story h1" class lead
            expect tab t1 page "#story p" count=3
            expect tab t1 page "p" text contains "on"
            expect tab t1 page "#story" attribute.lang=en
            expect tab t1 page "#story" style.background-color=red
            expect tab t1 page "#story .title" no-class hidden
            expect tab t1 page "#story aside" absent
            expect tab t1 page "body" attribute.data-host=news.example.com7
            expect tab t1 page "body" attribute.data-platform=iPhone
            expect tab t1 page "body" attribute.data-frame=16 within 1s

            """)
        let failing = try scenario(steps + "expect tab t1 page \"#story h1\" class gone\nexpect tab t1 page \"#story >> p\" count=3\n")
        defer { for path in [passing, failing] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try HarnessBinary.run(["run", passing])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let mac = try scenario("platform macos\n" + steps + "expect tab t1 page \"body\" attribute.data-platform=MacIntel\n")
        defer { try? FileManager.default.removeItem(atPath: mac) }
        let onMac = try HarnessBinary.run(["run", mac])
        #expect(onMac.status == 0, "\(onMac.stdout)\(onMac.stderr)")
        let failed = try HarnessBinary.run(["run", failing])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains(##"tab t1's page: "#story h1" class gone: not so, the first of 1 is <h1 class="title lead">Breaking   news</h1>"##), "\(failed.stdout)")
        #expect(failed.stdout.contains(##"tab t1's page: "#story >> p": the page's DOM does not take it: '#story >> p' is not a valid selector"##), "\(failed.stdout)")
    }

    /// With an extension of its own, `run --all` runs the probes and that extension's own
    /// scenarios, and says how many of the design's and of other extensions' it left out; the
    /// probes run the extension named, with its pages, checking what every extension keeps.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func anExtensionOfItsOwnRunsTheProbesAndItsOwnScenarios() throws {
        let root = URL(fileURLWithPath: ScenarioTests.folder).deletingLastPathComponent().path
        let run = try HarnessBinary.run(["run", "--all", "--extension", "Scenarios/extensions/reader-in-memory"], in: root)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("of the design's scenarios (they need its shared document, app and decisions) and "), "\(run.stdout)")
        #expect(run.stdout.contains("of other extensions' own (their 'extension' lines name them); name a file to run it anyway"))
        let ran = run.stdout.split(separator: "\n").filter { $0.hasPrefix("pass ") || $0.hasPrefix("FAIL ") }
        #expect(ran.contains { $0.contains("Scenarios/probes/safari-restarts.scenario") })
        #expect(ran.contains { $0.contains("a-reader-that-keeps-sites-in-a-global-forgets-them-when-safari-unloads-it") })
        #expect(!ran.contains { $0.contains("Scenarios/transitions/") || $0.contains("a-site-the-reader-turned-off-stays-off") }, "\(ran)")
        #expect(run.stdout.contains("roles: app built-in, background extension Scenarios/extensions/reader-in-memory, handler built-in\n"))
        // A probe finds what the seed's first version does when its handler crashes: the
        // background reads a reply that never came (invariant 15).
        let first = try HarnessBinary.run(["run", "Scenarios/probes/a-crashing-handler.scenario", "--extension", "Scenarios/extensions/first-version"], in: root)
        #expect(first.status == 1 && first.stdout.contains("Uncaught TypeError: Cannot read properties of undefined (reading 'enabled') (invariant 15)"), "\(first.stdout)")
    }

    /// A team that writes its handler in Python: `Scenarios/handlers/python/reading.py` speaks
    /// the frame protocol and reads the App Group's defaults from the plist the run's processes
    /// share, so what the scenario's app set is what the extension's pages show.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil && ExtensionRuntime.tool("python3") != nil, "node or python3 is not installed"))
    func aHandlerInPythonReadsTheAppGroupsDefaults() throws {
        let python = try #require(ExtensionRuntime.tool("python3"))
        let handler = ScenarioTests.folder + "/handlers/python/reading.py"
        for (value, check) in [("true", "class"), ("false", "no-class")] {
            let plain = try scenario("""
                extension \(ScenarioTests.folder)/extensions/reader pages
                group defaults group.example.reading readingDefault \(value)
                tab open t1 https://news.example.com/story
                settle
                expect tab t1 page \(check) reading-mode
                expect storage local readingDefault \(value)

                """)
            defer { try? FileManager.default.removeItem(atPath: plain) }
            let run = try HarnessBinary.run(["run", plain, "--handler-exec", python, "--handler-arg", handler])
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        }
        let conform = try HarnessBinary.run(["conform", "--handler-exec", python, "--handler-arg", handler])
        #expect(conform.status == 0 && conform.stdout.contains("  6 passed, 0 failed\n"), "\(conform.stdout)")
    }

    /// A Manifest V2 extension runs as Safari runs it: its non-persistent background page's
    /// scripts in order, its content script, and its browser action's popup.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func aManifestV2ExtensionRunsWithItsBackgroundPage() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions/mv2-page").path
        let plain = try scenario("""
            extension \(folder) pages
            tab open t1 https://a.example/
            settle
            tab open t2 https://b.example/
            settle
            expect tab t2 page data.site=2
            expect storage local hosts ["a.example", "b.example"]
            popup open t1
            settle
            expect popup page "#status" text "Counter"

            """)
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let run = try HarnessBinary.run(["run", plain])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// Tab ids are integers, given in the order the run opens tabs, from 1, whatever the
    /// scenario names them: in a page's sender, in tabs.query, in onRemoved, and a message sent
    /// to a tab by its id reaches it.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func tabIdsAreIntegersInTheOrderTheRunOpensTabs() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions/tab-ids").path
        let plain = try scenario("""
            extension \(folder) pages
            tab open news https://a.example/
            settle
            tab open blog https://b.example/
            settle
            expect tab news page data.tab=number-1
            expect tab blog page data.tab=number-2
            expect tab blog page data.hello=2
            tab close news
            settle
            expect console background contains "open tabs [1,2]"
            expect console background contains "closed number 1"

            """)
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let run = try HarnessBinary.run(["run", plain])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// The run's header names what plays each role; a scenario that names its own extension and
    /// handler says so under its result and in its trace, its paths as plain as they resolve.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func theHeaderAndAScenarioThatNamesItsOwnSayWhatPlaysEachRole() throws {
        let named = ScenarioTests.folder + "/extensions/a-teams-swift-handler-keeps-the-readers-theme-in-the-app-groups-defaults.scenario"
        let trace = try HarnessBinary.file("")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let run = try HarnessBinary.run(["run", named, "--trace", trace])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let own = "roles: app built-in, background extension \(ScenarioTests.folder)/extensions/reading-defaults, handler built from \(ScenarioTests.folder)/handlers/reading"
        #expect(run.stdout.contains("roles: app built-in, background built-in, handler built-in\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\n  " + own + "\n"), "\(run.stdout)")
        #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("\n# " + own + "\n"))
        let exec = try HarnessBinary.run(["run", named, "--app-exec", HarnessBinary.executables.app.path])
        #expect(exec.stdout.contains("roles: app executable \(HarnessBinary.executables.app.path), background built-in, handler built-in\n"), "\(exec.stdout)")
    }

    /// A handler source that does not compile stops the command before anything runs, with
    /// swiftc's own words: the file as given, its line and column.
    @Test func aHandlerSourceThatDoesNotCompileIsAMistakeWithItsPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handler-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/Handler.swift"
        try "import SafariServices\n\nclass SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {\n    func beginRequest(with context: NSExtensionContext) {\n        let reply =\n    }\n}\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        let plain = try scenario("tab open t1 https://docs.example.com/guide\nsettle\n")
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let run = try HarnessBinary.run(["run", plain, "--handler-source", source])
        #expect(run.status == 2 && run.stderr.contains("\(source):5:20: error:"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "nothing ran: \(run.stdout)")
        let sweep = try HarnessBinary.run(["sweep", plain, "--transport", "process", "--handler-source", source])
        #expect(sweep.status == 2 && sweep.stderr.contains("\(source):5:20: error:"), "the sweep builds it too: \(sweep.stderr)")
        // What Linux cannot give is said, after swiftc's words.
        try "import SafariServices\nimport UIKit\n\nclass SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {\n    func beginRequest(with context: NSExtensionContext) {}\n}\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        let uikit = try HarnessBinary.run(["run", plain, "--handler-source", source])
        #expect(uikit.status == 2 && uikit.stderr.contains("\(source):2:8: error: no such module 'UIKit'")
                && uikit.stderr.contains("UIKit is not provided: the harness builds the handler on Linux"), "\(uikit.stderr)")
    }

    /// `dies-after-hello.js ROLE CODE|SIGNAL|hang`: says its hello, then exits with CODE (takes
    /// SIGNAL, or hangs) at its first input.
    static let diesAfterHello = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/dies-after-hello.js").path

    /// A role whose executable never says hello fails the run, naming it and how it ended, and
    /// is not started again: it is no crash of the product's to play on.
    @Test func aBackgroundThatNeverSaysHelloFailsTheRunAndIsNotStartedAgain() throws {
        let plain = try scenario("tab open t1 https://docs.example.com/guide\nsettle\n")
        let trace = try HarnessBinary.file("")
        defer { for path in [plain, trace] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try HarnessBinary.run(["run", plain, "--background-exec", "/bin/false", "--trace", trace])
        #expect(run.status == 1 && run.stdout.contains("background#1 never said hello: it exited with code 1\n"), "\(run.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(!lines.contains("background#2") && !lines.contains("died unexpectedly"), "\(lines)")
        #expect(lines.contains("harness no background is started again: background#1 never said hello"), "\(lines)")
    }

    /// `run --extension DIR` plays the scenarios with the extension's JavaScript as the
    /// background; a scenario's own `extension` step wins over it, and in process such a
    /// scenario is skipped, saying why, never passed. A folder whose manifest is wrong stops
    /// the command before anything runs, and the flaws, which are the built-in processes'
    /// bugs, do not go with it.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func runWithAnExtensionPlaysItsJavaScriptAndAScenariosOwnExtensionWins() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HarnessCoreTests/Fixtures/extensions").path
        let steps = "tab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=sepia\n"
        let plain = try scenario(steps)
        let own = try scenario("extension \(fixtures)/runtime-events\n" + steps)
        let trace = try HarnessBinary.file("")
        defer { for path in [plain, own, trace] { try? FileManager.default.removeItem(atPath: path) } }

        let flag = try HarnessBinary.run(["run", plain, "--extension", fixtures + "/runtime-events", "--trace", trace])
        #expect(flag.stdout.contains("extension \(fixtures)/runtime-events"), "\(flag.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(lines.contains("background#1 console.log asked 1 https://docs.example.com/guide false"), "\(lines)")
        #expect(!flag.stdout.contains("expect tab t1 theme=sepia\n  tab t1 shows"), "the script's answer is the tab's: \(flag.stdout)")

        let wins = try HarnessBinary.run(["run", own, "--extension", fixtures + "/runtime-native", "--trace", trace])
        #expect(try String(contentsOfFile: trace, encoding: .utf8).contains("console.log asked 1"), "\(wins.stdout)")

        let inProcess = try HarnessBinary.run(["run", own, "--transport", "in-process"])
        #expect(inProcess.stdout.contains("skip  \(own)  its background is the extension's JavaScript, which runs in node: the process transport only"),
                "\(inProcess.stdout)")
        #expect(inProcess.stdout.contains("0 passed, 0 failed, 1 skipped"), "\(inProcess.stdout)")

        let broken = try HarnessBinary.run(["run", plain, "--extension", fixtures + "/runtime-escape/no-such-folder"])
        #expect(broken.status == 2 && broken.stderr.contains("no-such-folder/manifest.json"), "\(broken.stderr)")
        let flawed = try HarnessBinary.run(["run", plain, "--extension", fixtures + "/runtime-events", "--flaw", "no-outbox"])
        #expect(flawed.status == 2 && flawed.stderr.contains("run the flaws without '--extension'"), "\(flawed.stderr)")
        // explore and sweep take it too: a finding's rerun command carries it.
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("explore-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let explored = try HarnessBinary.run(["explore", "--runs", "1", "--workers", "1", "--transport", "process", "--extension", fixtures + "/runtime-events", "--out", out])
        let findings = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".scenario") }
        #expect(explored.status == 1 && !findings.isEmpty, "\(explored.stdout)")
        for file in findings {
            let finding = try String(contentsOfFile: out + "/" + file, encoding: .utf8)
            #expect(finding.contains("--extension \(fixtures)/runtime-events\n"), "\(finding)")
        }
        // Without --transport, --extension chooses the process transport, the only one that runs it.
        let swept = try HarnessBinary.run(["sweep", plain, "--extension", fixtures + "/runtime-events"])
        #expect(swept.stdout.hasPrefix("crash sweep: seed 1, transport process, extension \(fixtures)/runtime-events\n"), "\(swept.stdout)\(swept.stderr)")
        let sweptInProcess = try HarnessBinary.run(["sweep", plain, "--extension", fixtures + "/runtime-events", "--transport", "in-process"])
        #expect(sweptInProcess.status == 2 && sweptInProcess.stderr.contains("it needs '--transport process'"), "\(sweptInProcess.stderr)")
        let badStep = try scenario("extension \(fixtures)/no-such-folder\n" + steps)
        defer { try? FileManager.default.removeItem(atPath: badStep) }
        let check = try HarnessBinary.run(["check", badStep])
        #expect(check.status == 2 && check.stderr.contains("\(badStep):1: extension \(fixtures)/no-such-folder: "), "\(check.stderr)")
    }

    /// The growth benchmark runs its generated scenarios (typed steps, printed, parsed, run)
    /// and reports each length; its figures are measured, never asserted.
    @Test func theStepsBenchmarkRunsEveryLengthOfBothKinds() throws {
        let result = try HarnessBinary.run(["bench", "steps", "--steps", "5,10", "--rounds", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        for line in ["popup set (median of 1 rounds):", "app set (median of 1 rounds):", "  5 steps: ", "  10 steps: "] {
            #expect(result.stdout.contains(line), "\(result.stdout)")
        }
        let usage = try HarnessBinary.run(["bench", "steps", "--steps", "0"])
        #expect(usage.status == 2 && usage.stderr.contains("'--steps' expects whole numbers"))
    }
    /// A harness copied away from its build folder cannot start the processes: the commands
    /// that need them say so before anything runs, instead of failing every start.
    @Test func aHarnessWithoutItsProcessesSaysSoBeforeRunning() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lonely-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: HarnessBinary.path, toPath: folder + "/harness")
        let path = try scenario("tab open t1 https://a.example/\nsettle\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for arguments in [["soak", "--seconds", "1"], ["run", path]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: folder + "/harness")
            process.arguments = arguments
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1, "\(arguments)")
            #expect(text.contains("\(folder)/AppProcess: No such file or directory"), "\(arguments): \(text)")
        }
    }

    /// The page benchmark runs every named scenario and names the longest trace; its figures
    /// are measured, never asserted.
    @Test func theReportBenchmarkWritesEveryPageAndNamesTheLongestTrace() throws {
        let result = try HarnessBinary.run(["bench", "report", "--rounds", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("round 1/1: \(ScenarioParserTests.files.count) pages in "), "\(result.stdout)")
        #expect(result.stdout.contains("longest trace: Scenarios/"), "\(result.stdout)")
        #expect(result.stdout.contains("page made and written (median of 1 rounds): "), "\(result.stdout)")
    }

    /// Pass and fail are coloured on a terminal (`script` gives the harness one), and plain when
    /// `NO_COLOR` is set or the output is a file.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "no /usr/bin/script to give the harness a terminal"))
    func passAndFailAreColouredOnlyOnATerminalWithoutNoColor() throws {
        let passing = try scenario("shared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 theme=gray\n")
        let failing = try scenario("shared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 theme=dark\n")
        defer { for path in [passing, failing] { try? FileManager.default.removeItem(atPath: path) } }
        /// The harness's output with `NO_COLOR` set or not, on a terminal or into a file.
        func output(noColor: Bool, terminal: Bool) throws -> String {
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = noColor ? "1" : nil
            let transcript = FileManager.default.temporaryDirectory.appendingPathComponent("tty-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: transcript) }
            _ = FileManager.default.createFile(atPath: transcript, contents: nil)
            let arguments = ["run", passing, failing, "--transport", "in-process"]
            let process = Process()
            if terminal {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
                process.arguments = ["-qec", ([HarnessBinary.path] + arguments).joined(separator: " "), transcript]
                process.standardOutput = FileHandle.nullDevice
            } else {
                process.executableURL = URL(fileURLWithPath: HarnessBinary.path)
                process.arguments = arguments
                process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: transcript))
            }
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return try String(contentsOfFile: transcript, encoding: .utf8)
        }
        let coloured = try output(noColor: false, terminal: true)
        #expect(coloured.contains("\u{1B}[32mpass\u{1B}[0m  \(passing)"))
        #expect(coloured.contains("\u{1B}[1;31mFAIL\u{1B}[0m  \(failing)"))
        let plain = try output(noColor: true, terminal: true)
        #expect(plain.contains("pass  \(passing)") && plain.contains("FAIL  \(failing)"))
        #expect(!plain.contains("\u{1B}["))
        let file = try output(noColor: false, terminal: false)
        #expect(file.contains("pass  \(passing)") && !file.contains("\u{1B}["))
    }
}
