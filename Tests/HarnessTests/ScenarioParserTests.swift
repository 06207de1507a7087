import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The scenario language read whole before anything runs: every mistake with its line and the
/// nearest valid word, line endings of every kind, and steps printed back as they were read.
struct ScenarioParserTests {
    /// Every mistake a scenario's text has, as `harness check` prints them (the file is `s`).
    static func mistakes(_ text: String) -> [String] {
        do {
            _ = try Scenario.parse(text, name: "s")
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    private func mistakes(_ text: String) -> [String] { Self.mistakes(text) }

    /// A manifest's version: one to four numbers up to 65535; a plain update installs the next.
    @Test func versionsAreReadAsManifestsWriteThemAndAPlainUpdateGivesTheNext() {
        #expect(ExtensionVersion("1.0")?.next.text == "1.1")
        #expect(ExtensionVersion("2.0.65535")?.next.text == "2.0.65535.1")
        #expect(ExtensionVersion.following("1.2.3.4") == "1.2.3.5")
        #expect(ExtensionVersion.following("beta") == "beta.1", "a version outside the rule gets a number added")
        for bad in ["", "1.", ".1", "1.2.3.4.5", "65536", "1.-1", "1.x", "٣"] { #expect(ExtensionVersion(bad) == nil, "\(bad)") }
    }

    /// The system keeps a handler's process for the next request unless the scenario says
    /// `handler fresh` (Apple leaves the process's life to the system, which keeps it a while).
    @Test func theHandlersProcessIsKeptUnlessTheScenarioSaysFresh() throws {
        func reuse(_ text: String) throws -> Bool {
            try ScenarioSetup(try Scenario.parse(text, name: "s"), seed: 1, folder: "/").handlerReuse
        }
        #expect(try reuse("tab open t1 https://a.example/\n"))
        #expect(try reuse("handler reuse\ntab open t1 https://a.example/\n"))
        #expect(try !reuse("handler fresh\ntab open t1 https://a.example/\n"))
        #expect(ScenarioPrinter.line(.handlerFresh) == "handler fresh")
    }

    /// A persistent background (Manifest V2's default) runs on macOS and is refused on iOS, as
    /// WebKit refuses it there (`WebExtensionContext::load`), at the line that names the extension.
    @Test func aPersistentBackgroundIsRefusedOnIOSOnly() throws {
        let folder = String(#filePath[..<(#filePath.range(of: "/Tests/")!.lowerBound)]) + "/Scenarios/extensions"
        let macOS = try ScenarioSetup(try Scenario.parse("platform macos\nextension uptime pages\ntab open t1 https://a.example/\n", name: "s"), seed: 1, folder: folder)
        #expect(macOS.persistentBackground)
        #expect(throws: ScenarioErrors.self) { try ScenarioSetup(try Scenario.parse("extension uptime pages\ntab open t1 https://a.example/\n", name: "s"), seed: 1, folder: folder) }
        do {
            _ = try ScenarioSetup(try Scenario.parse("extension uptime pages\ntab open t1 https://a.example/\n", name: "s"), seed: 1, folder: folder)
        } catch {
            #expect(error.description.contains("s:1: Safari on iOS refuses a persistent background (\"Cannot load persistent background content on this platform\")"), "\(error)")
        }
        #expect(try !ScenarioSetup(try Scenario.parse("extension visit-counter pages\ntab open t1 https://a.example/\n", name: "s"), seed: 1, folder: folder).persistentBackground)
    }

    /// A tab the extension opens is named x1, x2, …: steps and expectations may name it though no
    /// step opened it (the run says whether it is open); any other unopened name is a mistake.
    @Test func aTabTheExtensionOpensMayBeNamedBeforeTheRun() throws {
        let scenario = try Scenario.parse("extension e pages\ntab open t1 https://a.example/\ntab activate x1\nexpect tab x12 page \"html\" absent\ntab close x1\n", name: "s")
        #expect(scenario.steps[2] == .tab(.activate(TabID("x1"))))
        #expect(ScenarioParserTests.mistakes("tab open t1 https://a.example/\ntab activate y1").contains { $0.contains("s:2: tab y1 was never opened (open: t1)") })
        #expect(ScenarioParserTests.mistakes("tab open t1 https://a.example/\ntab close x1\ntab activate x1").contains { $0.contains("s:3: tab x1 was closed on line 2") })
    }

    @Test func everyMistakeInAFileIsReportedWithItsLine() {
        let text = """
            # Three mistakes, one per line, and nothing runs.
            tab opn t1 https://a.example/
            tab open t1 https://a.example/
            popup open t1
            popup set tehme=dark
            advance soon
            """
        #expect(mistakes(text) == [
            "s:2: unknown word 'opn' (expected open, activate, reload, navigate, close, native-dark, click, choose); did you mean 'open'?",
            "s:5: unknown key 'tehme' (expected mode, theme, nativeDarkPolicy); did you mean 'theme'?",
            "s:6: 'soon' is not a duration (30s, 500ms, 2m, 1h)",
        ])
    }

    @Test(arguments: [
        // Line endings: CRLF and CR are line breaks, so a comment line does not swallow the file.
        ("# A comment.\r\ntab open t1 https://a.example/\r\nexpect tab t1 thme=gray\r\n",
         "s:3: unknown key 'thme' (expected theme, reason, scope, mode, nativeDarkPolicy, source.mode, source.theme, source.nativeDarkPolicy, enabled); did you mean 'theme'?"),
        ("# A comment.\rtab open t1 https://a.example/\rtab activate t2\r",
         "s:3: tab t2 was never opened (open: t1); did you mean 't1'?"),
        ("# Only comments.\r\n# and no steps\r\n", "s: the scenario has no steps"),
        ("", "s: the scenario has no steps"),
        // Options after a URL.
        ("tab open t1 https://a.example/ window=abc", "s:1: 'abc' is not a window number (1 to 64)"),
        ("tab open t1 https://a.example/ windw=2",
         "s:1: unknown option 'windw=2' after the URL (expected native-dark, window=N or html=FILE; a URL has no spaces); did you mean 'window=N'?"),
        ("tab open t1 https://a.example/ htm=story.html",
         "s:1: unknown option 'htm=story.html' after the URL (expected native-dark, window=N or html=FILE; a URL has no spaces); did you mean 'html=FILE'?"),
        ("tab open t1 https://a.example/ html=", "s:1: html= names no file (html=FILE, relative to the scenario)"),
        ("tab open t1 https://a.example/ html=a.html html=b.html", "s:1: 'html' is given twice"),
        ("tab open t1 https://a.example/\ntab navigate t1 https://b.example/ htm=b.html",
         "s:2: unknown option 'htm=b.html' after the URL (expected html=FILE; a URL has no spaces); did you mean 'html=FILE'?"),
        ("tab open t1 https://a.example/ nativ-dark",
         "s:1: unknown option 'nativ-dark' after the URL (expected native-dark, window=N or html=FILE; a URL has no spaces); did you mean 'native-dark'?"),
        ("tab open t1 https://a.example/my page",
         "s:1: unknown option 'page' after the URL (expected native-dark, window=N or html=FILE; a URL has no spaces)"),
        ("tab open t1 https://a.example/ native-dark native-dark", "s:1: 'native-dark' is given twice"),
        // Tabs that were never opened, or were closed.
        ("tab activate nosuch", "s:1: tab nosuch was never opened (open: none)"),
        ("tab open t1 https://a.example/\npopup open nosuch", "s:2: tab nosuch was never opened (open: t1)"),
        ("tab open t1 https://a.example/\ntab close t1\nexpect tab t1 enabled", "s:3: tab t1 was closed on line 2"),
        ("tab open t1 https://a.example/\ntab open t1 https://b.example/", "s:2: tab t1 is already open (line 1); use 'tab navigate'"),
        ("profile work\ntab open t1 https://a.example/\nprofile home\ntab reload t1", "s:4: tab t1 was never opened in profile home (open: none)"),
        // Words a step does not take, and keys an expectation does not know.
        ("settle now", "s:1: unexpected 'now' after 'settle'"),
        ("app launch quickly", "s:1: unexpected 'quickly' after 'app launch'"),
        ("tab open t1 https://a.example/\nexpect tab t1", "s:2: missing what to check (enabled, disabled, theme, reason, scope, mode, nativeDarkPolicy, source.mode, source.theme, source.nativeDarkPolicy, undecided)"),
        ("tab open t1 https://a.example/\nexpect tab t1 theme=sepa", "s:2: 'sepa' is not a valid theme (expected dark, gray, sepia, invert); did you mean 'sepia'?"),
        ("tab open t1 https://a.example/\nexpect tab t1 enabled disabled", "s:2: 'enabled' is checked twice"),
        ("expect shared site a.example colour=red", "s:1: unknown key 'colour' (expected mode, theme, nativeDarkPolicy)"),
        ("fresh-install\ncache defaults theme=sepia\ntab open t1 https://a.example/", "s:2: a fresh install has nothing cached (line 1)"),
        ("cache defaults theme=sepia\nfresh-install\ntab open t1 https://a.example/", "s:2: a fresh install has nothing cached, and line 1 gives the cache"),
        ("fresh-install\nfresh-install\ntab open t1 https://a.example/", "s:2: 'fresh-install' is given twice (first on line 1)"),
        ("safari update-extension versoin=1.1", "s:1: unknown option 'versoin=' after update-extension (expected version=VERSION, the same files as that version, or a folder: the extension's files to install, relative to the scenario)"),
        ("safari update-extension ../extensions/v2 version=2.0", "s:1: unexpected 'version=2.0' after 'safari update-extension ../extensions/v2'"),
        ("safari update-extension version=1.x", "s:1: version=1.x: expected one to four numbers from 0 to 65535 joined by dots, as a manifest's version (1.1, 2.0.3)"),
        ("background-load-time 11s\ntab open t1 https://a.example/", "s:1: a background's load time is at most 10s, not 11s"),
        ("handler reuse\nhandler fresh\ntab open t1 https://a.example/", "s:2: 'handler reuse or fresh' is given twice (first on line 1)"),
        ("tab open t1 https://a.example/\nexpect popup open t2", "s:2: tab t2 was never opened (open: t1); did you mean 't1'?"),
        ("expect popup open", "s:1: missing a tab name after 'expect popup open'"),
        ("expect popup enabled", "s:1: unknown key 'enabled' (expected theme, scope, mode, nativeDarkPolicy, source.mode, source.theme, source.nativeDarkPolicy)"),
        ("expect background runing", "s:1: unknown word 'runing' (expected running, frozen, unloaded, killed or incarnation=N, each once); did you mean 'running'?"),
        ("expect app answer saved", "s:1: 'expect app answer' with no app edit before it (app set, reset or delete)"),
        ("app set default theme=dark theme=gray", "s:1: 'theme' is given twice"),
        ("app set site a.example schedule=20:00-06:00", "s:1: a schedule belongs to the defaults, not to a site"),
        ("app set site ..bad theme=dark", "s:1: '..bad' is not a site key: empty label in host"),
        ("release handler", "s:1: 'release handler' with no 'hold handler at POINT' before it"),
        ("hold handler at renme", "s:1: unknown word 'renme' (expected lock, read, write-temp, rename, unlock, set-aside, storage-read, storage-write-temp, storage-rename); did you mean 'rename'?"),
        ("fail app at lock with EIO after", "s:1: 'after' needs a point that writes: write-temp, rename, storage-write-temp or storage-rename"),
        ("handler crashing befor-write", "s:1: unknown word 'befor-write' (expected before-write, after-write); did you mean 'before-write'?"),
        ("teb open t1 https://a.example/", "s:1: unknown step 'teb'; did you mean 'tab'?"),
        ("tab open t1 https://a.example/\nplatform macos", "s:2: 'platform' must come before the first action"),
        ("advance 5x", "s:1: '5x' is not a duration (30s, 500ms, 2m, 1h)"),
        ("advance -5s", "s:1: '-5s' is not a duration (30s, 500ms, 2m, 1h)"),
        // Setup lines that would contradict each other.
        ("platform ios\nplatform macos", "s:2: 'platform' is given twice (first on line 1)"),
        ("cache defaults theme=sepia\nshared defaults mode=on",
         "s:2: a 'shared' line after the cache's (line 1): the cache starts from the shared document as it stands then; put every 'shared' line first"),
        ("shared defaults mode=on\nshared file doc.json", "s:2: 'shared file' replaces the 'shared' lines before it (line 1); put it first"),
        ("alarm-minimum 2h", "s:1: an alarm minimum is from 1s to 10m, not 2h"),
        ("watchdog 50ms", "s:1: a watchdog is from 100ms to 1m, not 50ms"),
        ("watchdog 1s\nwatchdog 2s", "s:2: 'watchdog' is given twice (first on line 1)"),
        ("heap-limit 64", "s:1: '64' is not a size in MiB (64MiB)"),
        ("heap-limit 8MiB", "s:1: a heap limit is from 16MiB to 16384MiB, not 8MiB"),
        ("fetch https://a.example/ ok", "s:1: a status is from 100 to 599, not 'ok'"),
        ("fetch https://a.example/", "s:1: missing the answer's status (200) after 'fetch https://a.example/'"),
        ("fetch https://a.example/ 200\nfetch https://a.example/ 404", "s:2: 'fetch https://a.example/' is given twice (first on line 1)"),
        ("tab open t1 https://a.example/ window=2", "s:1: iOS shows one window: 'window=' needs 'platform macos'"),
        // The popup: open before it is used, and editing one of its page's records.
        ("tab open t1 https://a.example/\npopup set theme=dark", "s:2: 'popup set' with no popup open (open one with 'popup open TAB')"),
        ("tab open t1 https://a.example/\npopup open t1\ntab close t1\npopup pause 1m", "s:4: 'popup pause' with no popup open (open one with 'popup open TAB')"),
        ("tab open t1 https://a.example/\npopup open t1\nsafari restart\npopup forget", "s:4: 'popup forget' with no popup open (open one with 'popup open TAB')"),
        ("tab open t1 https://a.example/\npopup open t1\nsafari update-extension\npopup reset theme", "s:4: 'popup reset' with no popup open (open one with 'popup open TAB')"),
        ("tab open t1 https://docs.example.com/guide\npopup open t1\npopup scope example.com",
         "s:3: 'example.com' is not a record of the popup's page (expected docs.example.com/guide, docs.example.com, .example.com); did you mean '.example.com'?"),
        // An extension's own popup takes clicks and choices, and only those.
        ("tab open t1 https://a.example/\npopup open t1\npopup choose theme sepia",
         "s:3: 'popup choose' acts in the extension's own popup: name it with 'extension DIR pages' first"),
        ("extension x pages\ntab open t1 https://a.example/\npopup open t1\npopup choose theme",
         "s:4: missing the option's value after 'popup choose theme' (\"\" for the empty value)"),
        ("extension x pages\ntab open t1 https://a.example/\npopup open t1\npopup set theme=dark",
         "s:4: 'popup set' sends the reference popup's messages, and this scenario's extension runs its own popup: use 'popup click ID' or 'popup choose ID VALUE'"),
        // Common slips: other tools' steps, other capitals, a value without '=', a bare reason,
        // an ordering check on a decision's line, a host without a scheme.
        ("wait 5s", "s:1: unknown step 'wait': virtual time moves with 'advance DURATION' (what falls due fires on the way); 'settle' lets pending work play out without moving it; did you mean 'advance'?"),
        ("PLATFORM ios", "s:1: unknown step 'PLATFORM'; did you mean 'platform'?"),
        ("tab open t1 https://a.example/\nexpect tab t1 theme sepia", "s:2: 'theme' and its value are one word, joined by '='; did you mean 'theme=sepia'?"),
        ("tab open t1 https://a.example/\nexpect first-decision t1 theme=dark before native-reply",
         "s:2: 'before native-reply' is an expectation of its own: 'expect first-decision t1 before native-reply' on one line, the decision's keys on another"),
        ("tab open t1 https://a.example/\nexpect tab t1 paused",
         "s:2: unknown word 'paused' (expected enabled, disabled, theme, reason, scope, mode, nativeDarkPolicy, source.mode, source.theme, source.nativeDarkPolicy, undecided); did you mean 'reason=paused'?"),
        ("tab open t1 https://a.example/\nexpect tab t1 decided",
         "s:2: unknown word 'decided' (expected enabled, disabled, theme, reason, scope, mode, nativeDarkPolicy, source.mode, source.theme, source.nativeDarkPolicy, undecided); did you mean 'undecided'?"),
        ("tab open t1 https://a.example/\nexpect tab t1 sepia",
         "s:2: unknown word 'sepia' (expected enabled, disabled, theme, reason, scope, mode, nativeDarkPolicy, source.mode, source.theme, source.nativeDarkPolicy, undecided); did you mean 'theme=sepia'?"),
        ("tab open t1 https://a.example/\nexpect tab t1 enabled within", "s:2: 'within' needs a duration after it (30s, 500ms, 2m, 1h)"),
        ("tab open t1 https://a.example/\nexpect tab t1 enabled within soon", "s:2: 'soon' is not a duration (30s, 500ms, 2m, 1h)"),
        ("tab open t2 docs.example.com", "s:1: 'docs.example.com' has no scheme: a page's URL starts with https:// or http://; did you mean 'https://docs.example.com'?"),
        ("tab open t1 https://a.example/\ntab navigate t1 b.example/x", "s:2: 'b.example/x' has no scheme: a page's URL starts with https:// or http://; did you mean 'https://b.example/x'?"),
    ] as [(String, String)])
    func aMistakeNamesItsLineAndTheNearestWord(text: String, message: String) {
        #expect(mistakes(text) == [message])
    }

    @Test func aByteOrderMarkAtTheStartIsNotPartOfTheFirstLine() throws {
        let scenario = try Scenario.parse("\u{FEFF}# Saved by an editor that marks UTF-8.\nsettle\n", name: "s")
        #expect(scenario.description == "Saved by an editor that marks UTF-8." && scenario.steps == [.settle])
    }

    @Test func aHashInsideAWordIsPartOfIt() throws {
        let scenario = try Scenario.parse("tab open t1 https://a.example/#top   # a comment\n", name: "s")
        #expect(scenario.steps == [.tab(.open(TabID("t1"), url: "https://a.example/#top", nativeDark: false, window: nil))])
    }

    /// Words part at runs of spaces and tabs; a word that starts with `#` ends the line's words.
    @Test func wordsPartAtSpacesAndTabsUntilAComment() throws {
        let text = "\t tab \topen  t1\thttps://ex.ample/caf\u{E9}#x\t#\tnote here\n  settle   #done\n# whole line\nsettle"
        let scenario = try Scenario.parse(text, name: "s")
        #expect(scenario.lines.map(\.text) == ["tab open t1 https://ex.ample/caf\u{E9}#x", "settle", "settle"])
        #expect(scenario.lines.map(\.number) == [1, 2, 4])
        #expect(scenario.steps.first == .tab(.open(TabID("t1"), url: "https://ex.ample/caf\u{E9}#x", nativeDark: false, window: nil)))
        // A space that a combining mark follows begins a character of the word: no break there.
        #expect(ScenarioParser.words(of: "tab open t1 https://a.example/x \u{301}y") == ["tab", "open", "t1", "https://a.example/x \u{301}y"])
    }

    @Test func aCRLFFileReadsAsTheSameStepsAndDescription() throws {
        let text = "# Cold start.\n# Second line.\n\nplatform macos\ntab open t1 https://a.example/ window=2\nsettle\nexpect tab t1 enabled\n"
        let unix = try Scenario.parse(text, name: "s")
        let windows = try Scenario.parse(text.replacingOccurrences(of: "\n", with: "\r\n"), name: "s")
        let classic = try Scenario.parse(text.replacingOccurrences(of: "\n", with: "\r"), name: "s")
        #expect(unix.steps.count == 4)
        #expect(windows.lines == unix.lines && classic.lines == unix.lines)
        #expect(windows.description == "Cold start. Second line." && classic.description == unix.description)
    }

    // MARK: - Printing

    static let folder: String = {
        let file = #filePath
        return String(file[..<file.range(of: "/Tests/HarnessTests/")!.lowerBound]) + "/Scenarios"
    }()

    static let files: [String] = {
        let walker = FileManager.default.enumerator(atPath: folder)!
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".scenario") }.sorted()
    }()

    @Test(arguments: files)
    func everyNamedScenarioPrintsBackToTheSameSteps(file: String) throws {
        let text = try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8)
        let scenario = try Scenario.parse(text, name: file)
        let printed = ScenarioPrinter.print(scenario.steps, description: [scenario.description])
        let again = try Scenario.parse(printed, name: file)
        #expect(again.steps == scenario.steps)
        #expect(again.description == scenario.description)
    }

    @Test(arguments: 1...200)
    func generatedStepsPrintBackToTheSameSteps(seed: UInt64) throws {
        let steps = StepSample.scenario(seed: seed)
        let printed = ScenarioPrinter.print(steps)
        let parsed: Scenario
        do { parsed = try Scenario.parse(printed, name: "generated") } catch {
            Issue.record("seed \(seed): \(error)\n\(printed)")
            return
        }
        #expect(parsed.steps == steps, "seed \(seed):\n\(printed)")
    }

    @Test func theSampleReachesEveryKindOfStep() {
        var kinds: Set<String> = []
        for seed in 1...200 as ClosedRange<UInt64> {
            for step in StepSample.scenario(seed: seed) {
                kinds.insert(String(ScenarioPrinter.line(step).split(separator: " ").prefix(2).joined(separator: " ")))
            }
        }
        // Each verb with each of its first arguments: a case the sample never makes is a case
        // the round trip never checks.
        for expected in ["platform ios", "platform macos", "shared defaults", "shared site", "shared file", "shared legacy", "shared damaged",
                         "cache defaults", "cache site", "cache file", "app set", "app reset", "app delete", "app launch", "tab open",
                         "tab native-dark", "popup set", "popup pause", "handler slow", "handler crashing", "fail handler",
                         "expect tab", "expect first-decision", "expect shared", "expect app", "expect popup", "expect background",
                         "expect converged", "expect legacy", "expect alarm", "advance", "seed", "epoch", "profile", "hold", "release", "alarm-minimum"]
        where !kinds.contains(where: { $0.hasPrefix(expected) }) {
            Issue.record("the sample never makes '\(expected)'")
        }
    }
}

/// Arbitrary valid steps for the round-trip test: setup first, tabs opened before they are
/// named, a hold before its release, an app edit before `expect app answer`.
enum StepSample {
    static func scenario(seed: UInt64) -> [Step] {
        var random = SeededRandom(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[random.below(items.count)] }
        func values(schedule: Bool) -> FieldValues {
            var values = FieldValues()
            repeat {
                if random.chance(1, in: 2) { values.mode = pick(Mode.allCases) }
                if random.chance(1, in: 2) { values.theme = pick(Theme.catalogue) }
                if random.chance(1, in: 3) { values.nativeDarkPolicy = pick(NativeDarkPolicy.allCases) }
                if schedule && random.chance(1, in: 3) {
                    values.schedule = Schedule(start: TimeOfDay(minutes: random.below(1440))!, end: TimeOfDay(minutes: random.below(1440))!)
                }
            } while values.isEmpty
            return values
        }
        func scope() -> WrittenScope {
            try! WrittenScope(pick(["a.example", "docs.example.com", ".example.org", "example.net/tools/editor", "DOCS.Example.com.", "192.0.2.1"]))
        }
        func fields() -> [SiteField] { Array(SiteField.allCases.shuffledPrefix(1 + random.below(3), &random)) }
        func duration() -> EpochMillis { pick([0, 500, 1000, 30_000, 90_000, 3_600_000, 7_200_000, 1234]) }
        func checks(popup: Bool) -> [DecisionCheck] {
            var all: [DecisionCheck] = [.theme(pick(Theme.catalogue)), .mode(pick(Mode.allCases)),
                                        .nativeDarkPolicy(pick(NativeDarkPolicy.allCases)), .source(pick(SiteField.allCases), pick(ValueSource.allCases)),
                                        .scope(random.chance(1, in: 2) ? nil : scope())]
            if !popup { all += [.enabled(random.chance(1, in: 2)), .reason(pick(DecisionReason.allCases))] }
            var chosen: [DecisionCheck] = []
            for check in all where random.chance(1, in: 2) && !chosen.contains(where: { $0.key == check.key }) { chosen.append(check) }
            return chosen.isEmpty ? [all[0]] : chosen
        }
        func fieldChecks() -> [SiteFieldCheck] {
            fields().map { field in
                let value: String? = switch field {
                case .mode: pick(Mode.allCases).rawValue
                case .theme: pick(Theme.catalogue).rawValue
                case .nativeDarkPolicy: pick(NativeDarkPolicy.allCases).rawValue
                }
                return SiteFieldCheck(field, random.chance(1, in: 3) ? nil : value)
            }
        }

        var steps: [Step] = []
        // Setup.
        let platform = pick(Simulation.Platform.allCases)
        if random.chance(1, in: 2) || platform == .macOS { steps.append(.platform(platform)) }
        if random.chance(1, in: 3) { steps.append(.epoch(1_772_355_600_000 + Int64(random.below(1_000_000)) * 1000)) }
        if random.chance(1, in: 3) { steps.append(.seed(UInt64(random.below(1000)))) }
        if random.chance(1, in: 4) { steps.append(.alarmMinimum(pick([30_000, 60_000, 1_000]))) }
        // Every shared line before the cache's, a document file first in each.
        for target in [Step.shared, Step.cache] {
            if random.chance(1, in: 4) { steps.append(target(.file("../documents/settings.json"))) }
            for _ in 0..<random.below(3) {
                steps.append(target(random.chance(1, in: 2) ? .defaults(values(schedule: true)) : .site(scope(), values(schedule: false))))
            }
        }
        if random.chance(1, in: 4) { steps.append(.sharedLegacy(enabled: random.chance(1, in: 2))) }
        if random.chance(1, in: 4) { steps.append(.sharedDamaged) }
        // Actions, on tabs that are open.
        var open: [TabID] = [TabID("t1")]
        var made = 1
        var held: [ProcessName] = []
        var appEdited = false
        var urls: [TabID: String] = [TabID("t1"): "https://docs.example.com/guide"]
        var popup: TabID?
        steps.append(.tab(.open(open[0], url: "https://docs.example.com/guide", nativeDark: false, window: nil)))
        for _ in 0..<(5 + random.below(30)) {
            let tab = pick(open)
            let step: Step = switch random.below(22) {
            case 0:
                { () -> Step in
                    made += 1
                    let id = TabID("t\(made)")
                    open.append(id)
                    let url = pick(["https://a.example/", "http://[2001:db8::1]/x", "https://b.example/#frag", "about:blank"])
                    urls[id] = url
                    return .tab(.open(id, url: url, nativeDark: random.chance(1, in: 2),
                                      window: platform == .macOS && random.chance(1, in: 2) ? 1 + random.below(3) : nil,
                                      html: random.chance(1, in: 3) ? "pages/story.html" : nil))
                }()
            case 1:
                { () -> Step in
                    let step = pick([TabStep.activate(tab), .reload(tab), .navigate(tab, url: "https://c.example/p"), .navigate(tab, url: "https://c.example/q", html: "q.html"),
                                     .nativeDark(tab, random.chance(1, in: 2))])
                    if case .navigate(_, let url, _) = step { urls[tab] = url }
                    return .tab(step)
                }()
            case 2:
                { () -> Step in
                    appEdited = true
                    return .app(pick([.setDefaults(values(schedule: true)), .setSite(scope(), values(schedule: false)),
                                      .resetSite(scope(), fields()), .deleteSite(scope())]))
                }()
            case 3: .app(pick([.launch, .foreground, .background, .kill]))
            case 4:
                { () -> Step in
                    let step = pick(SafariStep.allCases)
                    // The popup goes with Safari, and with a new version of the extension.
                    if step == .restart || step == .updateExtension() { popup = nil }
                    return .safari(step)
                }()
            case 5:
                { () -> Step in
                    // Popup steps need the popup open; its scope is one of its page's records.
                    guard let on = popup else {
                        popup = tab
                        return .popup(.open(tab))
                    }
                    let keys = (try? PageAddress.parse(urls[on] ?? "").get())?.scopeKeys() ?? []
                    var choices: [PopupStep] = [.open(tab), .set(values(schedule: false)), .reset(fields()), .forget, .pause(duration()), .close]
                    if !keys.isEmpty { choices.append(.scope(try! WrittenScope(keys[random.below(keys.count)].text))) }
                    let step = pick(choices)
                    if case .open(let id) = step { popup = id }
                    if case .close = step { popup = nil }
                    return .popup(step)
                }()
            case 6: .appearance(pick(Appearance.allCases))
            case 7: .background(pick(BackgroundStep.allCases))
            case 8: .handler(pick([.healthy, .slow(duration()), .hung, .crashing(afterWrite: random.chance(1, in: 2)), .garbage]))
            case 9:
                { () -> Step in
                    let process = pick(ProcessName.allCases)
                    if let index = held.firstIndex(of: process) {
                        held.remove(at: index)
                        return .release(process)
                    }
                    held.append(process)
                    return .hold(process, at: pick(YieldPoint.allCases))
                }()
            case 10: .crash(pick(ProcessName.allCases), at: pick(YieldPoint.allCases))
            case 11:
                .fail(pick(ProcessName.allCases), at: pick([.writeTemp, .rename, .storageRename]), with: pick(StorageErrno.allCases), after: random.chance(1, in: 2))
            case 12: .legacy(pick(LegacyStep.allCases))
            case 13: .advance(duration())
            case 14: .settle
            case 15: .expect(pick([.tab(tab, checks(popup: false)), .tabUndecided(tab), .firstDecision(tab, checks(popup: false)),
                                   .firstDecisionBeforeNativeReply(tab)]), within: random.chance(1, in: 3) ? pick([500, 30_000, 3_600_000, 1234]) : nil)
            case 16: .expect(pick([.sharedDefaults(values(schedule: true)), .sharedSite(scope(), fieldChecks()), .sharedSiteAbsent(scope()),
                                   .sharedTombstone(scope()), .sharedDamaged(count: random.below(3))]))
            case 17: .expect(pick([.appSites(random.chance(1, in: 3) ? [] : [scope(), scope()]), .appSite(scope(), fieldChecks()),
                                   .appDefaults(values(schedule: true))] + (appEdited ? [.appAnswer(pick(AppAnswer.allCases))] : [])))
            case 18: .expect(.popup(checks(popup: true)))
            case 19: .expect(pick([.background(pick(BackgroundState.allCases), incarnation: nil),
                                   .background(nil, incarnation: random.below(5)),
                                   .background(pick(BackgroundState.allCases), incarnation: random.below(5))]))
            case 20: .expect(pick([.converged, .legacy(enabled: random.chance(1, in: 2)), .alarm(.none), .alarm(.due), .alarm(.inTime(duration()))]))
            default: .profile(pick(["default", "work"]))
            }
            steps.append(step)
            // A profile switch leaves the tabs and the popup of the other profile behind: open a
            // tab there.
            if case .profile = step {
                made += 1
                open = [TabID("t\(made)")]
                popup = nil
                urls[open[0]] = "https://d.example/"
                steps.append(.tab(.open(open[0], url: "https://d.example/", nativeDark: false, window: nil)))
            }
        }
        return steps
    }
}

extension Array {
    /// The first `count` elements of a seeded shuffle.
    func shuffledPrefix(_ count: Int, _ random: inout SeededRandom) -> ArraySlice<Element> {
        var items = self
        for index in items.indices.reversed() where index > 0 { items.swapAt(index, random.below(index + 1)) }
        return items.prefix(count)
    }
}
