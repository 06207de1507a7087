import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The JavaScript runtime as a run's background on the process transport: started by the
/// harness's launcher like any background executable, its answer to a tab's question shown by
/// the page, its console in the run's trace, the popup's messages at its listeners.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"))
struct JavaScriptBackgroundTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HarnessCoreTests/Fixtures/extensions").path

    /// A run on the process transport whose background is the runtime over `fixture`, in a new
    /// folder the caller removes.
    private func simulation(with fixture: String) throws -> (Simulation, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("javascript-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true)
        var executables = HarnessBinary.executables
        executables.background = ExtensionRuntime.background(node: try #require(ExtensionRuntime.installedNode), runtime: try ExtensionRuntime.installed(),
                                                             extension: Self.fixtures + "/" + fixture)
        return (Simulation(platform: .iOS, transport: .process, seed: 1, epoch: 1_772_355_600_000, executables: executables, directory: folder + "/run"),
                folder)
    }

    /// Runs `body` with a run whose background is the runtime over `fixture`, torn down and its
    /// folder removed after.
    private func withSimulation(_ fixture: String, _ body: (Simulation) throws -> Void) throws {
        let (simulation, folder) = try simulation(with: fixture)
        defer {
            simulation.teardown()
            try? FileManager.default.removeItem(atPath: folder)
        }
        try body(simulation)
    }

    @Test func aJavaScriptBackgroundAnswersATabAndItsConsoleReachesTheTraceAndThePopupsMessagesReachItsListeners() throws {
        try withSimulation("runtime-events") { simulation in
            let t1 = TabID("t1")
            simulation.openTab(t1, url: "https://docs.example.com/guide")
            simulation.settle()
            let lines = simulation.trace.lines
            #expect(lines.contains { $0.hasSuffix("background#1 console.log asked 1 https://docs.example.com/guide false") }, "\(lines)")
            #expect(lines.contains { $0.hasSuffix(#"background#1 -> {"events":["message","tabActivated","tabRemoved","windowFocus"],"type":"listen"}"#) })
            #expect(simulation.tabs[t1]?.applied?.theme.rawValue == "sepia", "the page shows the script's answer")
            // The listener that throws is an error the scripts did not catch (invariant 15); the
            // background lives on.
            #expect(simulation.violations.map(\.description) == ["background#1 at background.js:19:53: Uncaught Error: second listener fails (invariant 15)"],
                    "\(simulation.violations)")
            let before = simulation.trace.lines.count
            simulation.openPopup(on: t1)
            simulation.settle()
            let after = simulation.trace.lines.dropFirst(before)
            #expect(after.contains { $0.hasSuffix(#"background#1 <- {"tab":"t1","type":"popupOpened"}"#) }, "\(after.joined(separator: "\n"))")
            #expect(after.contains { $0.hasSuffix("background#1 console.error Uncaught Error: second listener fails (background.js:19:53)") },
                    "the popup's message reached every listener: \(after.joined(separator: "\n"))")
        }
    }

    /// Its storage goes through the background's yield points and completions as the Swift
    /// background's does.
    @Test func aJavaScriptBackgroundsStorageTakesTheHarnesssYieldPointsAndCompletions() throws {
        try withSimulation("runtime-storage") { simulation in
            simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
            simulation.settle()
            let lines = simulation.trace.lines
            for expected in ["background#1 yield storage-read", "background#1 -> {\"token\":1,\"type\":\"storagePending\"}",
                             "background#1 <- {\"token\":1,\"type\":\"storageCompleted\"}", "background#1 console.log loads 0",
                             "background#1 yield storage-write-temp", "background#1 yield storage-rename", "background#1 console.log saved"] {
                #expect(lines.contains { $0.hasSuffix(expected) }, "\(expected)\n\(lines.joined(separator: "\n"))")
            }
            #expect(simulation.violations.isEmpty, "\(simulation.violations)")
        }
    }
    /// The listener rule applies to the script as written: Safari hears a message listener added
    /// once an API promise settles as it is added, so only the question that woke the
    /// background is lost (answered with nothing at once, and the page asks again), where the
    /// same question to a listener added at the top level is answered the first time.
    @Test func aListenerAddedAfterAnAPIPromiseMissesOnlyTheEventThatWokeTheBackground() throws {
        func run(_ fixture: String, expecting theme: String) throws -> ScenarioRunner.Outcome {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("javascript-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let text = "extension \(Self.fixtures)/\(fixture)\ntab open t1 https://docs.example.com/guide\nexpect tab t1 theme=\(theme) within 1s\n"
            return try ScenarioRunner(try Scenario.parse(text, name: "late.scenario"), transport: .process, seed: 1, executables: HarnessBinary.executables,
                                      directory: folder).run()
        }
        let late = try run("runtime-late-listener", expecting: "gray")
        #expect(late.failures.isEmpty && late.marks.failures.isEmpty, "\(late.failures)")
        let lost = late.trace.firstIndex { $0.hasSuffix("safari tabRequestedDecision lost: background#1 has no message listener") }
        let listening = late.trace.firstIndex { $0.hasSuffix(#"background#1 -> {"events":["message"],"type":"listen"}"#) }
        #expect(lost != nil && listening != nil && lost! < listening!, "\(late.trace.joined(separator: "\n"))")
        #expect(late.trace.filter { $0.hasSuffix("safari tab t1 asks again") }.count == 1)
        let early = try run("runtime-events", expecting: "sepia")
        #expect(!early.marks.failures.contains { $0.line == 3 && $0.property == .expectation }, "\(early.failures)")
        #expect(!early.trace.contains { $0.contains("lost: background#1 has no message listener") })
    }

    /// Named alarms: Safari keeps each by its name across unloads and fires it by that name,
    /// waking the background; a periodic one comes round again; a cleared one never fires; and
    /// Safari's rules stated a second time (invariant 14) find nothing wrong.
    @Test func namedAlarmsFireByNameAcrossUnloadsAndACLearedOneNever() throws {
        try withSimulation("runtime-alarms") { simulation in
            simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
            simulation.settle()
            simulation.advance(by: 150_000)
            let lines = simulation.trace.lines
            let fired = lines.filter { $0.contains(#"<- {"name":"refresh","type":"alarmFired"}"#) }
            #expect(fired.count == 2, "at 60 s and 120 s: \(lines.joined(separator: "\n"))")
            #expect(lines.contains { $0.hasSuffix("console.log alarm refresh 1") })
            #expect(!lines.contains { $0.contains("dropped") && $0.contains("alarmFired") })
            #expect(lines.contains { $0.contains(#"-> {"name":"dropped","type":"clearAlarm"}"#) })
            #expect(lines.contains { $0.hasSuffix("unloaded") || $0.contains("unload") }, "the background unloaded between alarms")
            // Each incarnation hears from Safari which alarms it holds: none at first, then the
            // unnamed one (named "") and the periodic one; a clear says whether there was one, and
            // get reads one's time.
            let held = lines.filter { $0.contains("console.log held ") }.map { String($0.split(separator: " ").last!) }
            #expect(held.first == "none" && held.dropFirst().allSatisfy { $0 == ":once,refresh:1" } && held.count >= 2, "\(held)")
            #expect(lines.contains { $0.contains(#"<- {"alarms":{"":{"at":"#) && $0.contains(#""refresh":{"at":"#) && $0.contains(#""period":60000}}"#) },
                    "\(lines.joined(separator: "\n"))")
            #expect(lines.contains { $0.hasSuffix("console.log cleared true") })
            #expect(lines.contains { $0.hasSuffix("console.log refresh due 60000") })
            // The tab asks a background with no message listener, and is never answered: that is
            // all that fails.
            #expect(simulation.violations.allSatisfy { $0.property == .invariant(6) }, "\(simulation.violations)")
        }
    }

    /// What alarms.getAll answers is what Safari holds: a delay raised to Safari's minimum (once
    /// Safari took the turn that set it: the question that woke the background comes first), a
    /// one-shot alarm that fired unheard (the background has no alarm listener) still there, due
    /// in the past, as Safari keeps it, and every alarm moved later by the device's sleep.
    @Test func theAlarmListIsSafarisAfterARaiseAnUnheardAlarmAndASleep() throws {
        try withSimulation("runtime-alarm-list") { simulation in
            let t1 = TabID("t1")
            simulation.openTab(t1, url: "https://docs.example.com/guide")
            simulation.settle()
            simulation.advance(by: 20_000)
            simulation.reloadTab(t1)
            simulation.settle()
            simulation.advance(by: 15_000)
            simulation.reloadTab(t1)
            simulation.settle()
            simulation.sleepDevice(for: 60_000)
            simulation.reloadTab(t1)
            simulation.settle()
            let held = simulation.trace.lines.filter { $0.contains("console.log held ") }.map { String($0[$0.range(of: "held ")!.upperBound...]) }
            #expect(held == ["later:300 soon:6", "later:280 soon:10", "later:265 soon:-5", "later:265 soon:-5"], "\(simulation.trace.lines.joined(separator: "\n"))")
        }
    }

    /// Safari's launch loads the background and fires runtime.onStartup; an update loads the
    /// new version and fires runtime.onInstalled with reason update and the version before; a
    /// run that starts with the install loads the background at once (before any tab opens) and
    /// fires it with reason install; an ordinary load fires neither.
    @Test func theLoadsForSafarisLaunchAndAnUpdateFireOnStartupAndOnInstalled() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = """
            extension \(Self.fixtures)/runtime-lifecycle
            fresh-install
            tab open t1 https://docs.example.com/guide
            settle
            safari restart
            settle
            safari update-extension
            settle
            """
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "lifecycle.scenario"), transport: .process, seed: 1,
                                         executables: HarnessBinary.executables, directory: folder).run()
        let said = outcome.trace.filter { $0.contains("console.log") }.map { String($0.split(separator: " ", maxSplits: 2).last!) }
        #expect(said == ["console.log loaded", "console.log installed install first", "console.log loaded", "console.log startup", "console.log loaded",
                         "console.log installed update 1.0"], "\(said)")
        #expect(outcome.trace.contains { $0.contains(#""reason":"startup""#) } && outcome.trace.contains { $0.contains(#""reason":"update""#) })
        #expect(outcome.trace.contains { $0.hasPrefix("+0.000s background#1 <- ") && $0.contains(#""reason":"install""#) && $0.contains(#""tabs":{}"#) },
                "the install loads the background before the tab opens: \(outcome.trace.prefix(5))")
    }

    /// An update to another folder is read before the run, relative to the scenario: a folder
    /// Safari would not load, and one whose manifest gives the version installed then, are
    /// mistakes at the update's line, before anything starts.
    @Test(arguments: [
        ("safari update-extension nowhere", "s:3: safari update-extension nowhere: ", "/extensions/nowhere/manifest.json: no manifest.json in the extension folder"),
        ("safari update-extension notes", "s:3: safari update-extension notes: ",
         "version 1.0 is installed already, and Safari sees an update only when the version changes (notes's manifest.json gives 1.0)"),
        ("safari update-extension notes-2\nsafari update-extension version=2.0", "s:4: safari update-extension version=2.0: ",
         "version 2.0 is installed already, and Safari sees an update only when the version changes"),
    ] as [(String, String, String)])
    func anUpdateToAnotherFolderIsReadBeforeTheRun(step: String, line: String, message: String) throws {
        let error = try #require(try Self.mistakeBeforeTheRun("extension notes\ntab open t1 https://a.example/\n" + step), "expected the error \(message)")
        #expect(error.hasPrefix(line) && error.hasSuffix(message), "\(error)")
    }

    /// The mistake a scenario of `Scenarios/extensions/` is refused with before anything starts
    /// (nil when it runs), after checking that nothing started.
    static func mistakeBeforeTheRun(_ text: String) throws -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mistake-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try ScenarioRunner(try Scenario.parse(text, name: "s"), transport: .process, seed: 1, executables: HarnessBinary.executables,
                                   directory: directory, folder: ScenarioTests.folder + "/extensions").run()
            return nil
        } catch {
            #expect(!FileManager.default.fileExists(atPath: directory), "nothing started")
            return error.description
        }
    }

    /// A `command` step names one of the installed extension's commands (the nearest is
    /// suggested), and `_execute_action` is the popup's, before anything starts.
    @Test(arguments: [
        ("command toggle-drak", "s:3: the extension has no command 'toggle-drak' (its manifest's commands: toggle-dark); did you mean 'toggle-dark'?"),
        ("command _execute_action", "s:3: '_execute_action' opens the extension's popup rather than firing commands.onCommand: use 'popup open TAB'"),
    ] as [(String, String)])
    func aCommandStepNamesOneOfTheExtensionsCommands(step: String, message: String) throws {
        let error = try #require(try Self.mistakeBeforeTheRun("extension quick-toggle pages\ntab open t1 https://a.example/\n" + step), "expected the error \(message)")
        #expect(error.contains(message), "\(error)")
    }

    /// The run of scenario `text` on real processes, in a folder of its own removed after; the
    /// extensions it names by a relative path are the named scenarios' examples.
    static func outcome(of text: String) throws -> ScenarioRunner.Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try ScenarioRunner(try Scenario.parse(text, name: "s"), transport: .process, seed: 1, executables: HarnessBinary.executables,
                                  directory: folder, folder: ScenarioTests.folder + "/extensions").run()
    }

    /// `options open` needs the extension's options page, said before anything starts; a click
    /// in a tab's page needs the tab in front in its window, as the user can reach only what
    /// they see, or the run fails saying so.
    @Test func theOptionsPageAndATabsPageAreReachedAsTheUserReachesThem() throws {
        let error = try #require(try Self.mistakeBeforeTheRun("extension quick-toggle pages\ntab open t1 https://a.example/\noptions open"))
        #expect(error.contains("s:3: the extension has no options page (its manifest gives neither options_ui.page nor options_page)"), "\(error)")
        let outcome = try Self.outcome(of: "extension text-size pages\ntab open t1 https://news.example.com/a\ntab open t2 https://news.example.com/b\ntab click t1 more\n")
        #expect(!outcome.passed)
        #expect(outcome.failures.contains { $0.contains("tab click t1: the tab is not its window's active tab, so the user cannot reach its page (bring it with 'tab activate t1')") },
                "\(outcome.failures)")
    }

    /// `permission grant` answers a prompt on screen: with none pending, the user cannot take
    /// the step, and the run fails saying so.
    @Test func aPermissionAnswerWithNoPromptOnScreenFailsTheRun() throws {
        let outcome = try Self.outcome(of: "extension site-access pages\ntab open t1 https://news.example.com/a\npermission grant\n")
        #expect(!outcome.passed)
        #expect(outcome.failures.contains { $0.contains("permission grant: no permission prompt is pending") }, "\(outcome.failures)")
    }

    /// An extension page runs scripts and style sheets in tabs as the background does
    /// (`scripting`, through Safari): the popup counts the active tab's paragraphs (`activeTab`)
    /// and styles it, and is refused a tab it was not let into, and one that is not open.
    @Test func thePopupRunsAScriptInTheActiveTabAndIsRefusedAnother() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/popup-script pages
            tab open t2 https://b.example/
            tab open t1 https://a.example/ html=\(Self.fixtures)/popup-script/pages/story.html
            popup open t1
            settle
            popup click count
            settle
            expect console popup contains "counted 3 in tab 2"
            expect console popup contains "tab 1: Invalid call to scripting.executeScript(). This extension does not have access to this tab."
            expect console popup contains "tab 99: Invalid call to scripting.executeScript(). Tab not found."
            expect tab t1 page "head style" text "html { outline-style: solid; }"

            """)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(outcome.log.entries.contains { $0.what == "the popup runs a function in tab t1's page" }, "Safari hands the popup's script to the tab")
    }

    /// Pages that answer each other's changes and messages without end are stopped within the
    /// input: the page host hears 1000 of them, says so, and the run goes on.
    @Test func pagesThatAnswerEachOtherWithoutEndAreStoppedWithinTheInput() throws {
        let outcome = try Self.outcome(of: "extension \(Self.fixtures)/page-loop pages\noptions open\nsettle\npopup open options\nsettle\n")
        #expect(outcome.log.entries.contains {
            $0.what.contains("the pages changed storage, sent each other messages, answered them and posted on ports between them 1000 times in one input: the rest are not heard")
        }, "\(outcome.failures)")
    }

    /// The worker reads the toolbar item as Safari holds it in every turn, its own timer's
    /// included: what the popup set after the worker woke is what the worker's timer reads.
    @Test func theWorkersTimerReadsTheBadgeThePopupSet() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/page-badge pages
            tab open t1 https://a.example/
            popup open t1
            settle
            popup click wake
            settle
            popup click set
            settle
            expect action badge="X"
            advance 6s
            expect console background contains "later X"

            """)
        #expect(outcome.passed, "\(outcome.failures)")
    }

    /// A page's `runtime.sendMessage` reaches the extension's other pages as well as the worker
    /// (never the page that sent it): a content script's reaches the options page, with the tab it
    /// came from, and the popup's too. The first answer that is not nothing wins: the options
    /// page's a second later, after the worker answered nothing; nothing when every one answered
    /// nothing.
    @Test func aPagesMessageReachesTheOtherPagesAndTheirLateAnswerStillWins() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/page-messages pages
            options open
            settle
            tab open t1 https://a.example/
            settle
            popup open t1
            settle
            advance 2s
            tab reload t1
            settle
            expect console popup contains "the popup heard from the page?"
            expect console popup contains "late? -> late answer"
            expect console popup contains "none? -> nothing"
            expect console tab options contains "heard late? from /popup.html"
            expect console tab options contains "heard from the page? from tab 2 at 1"
            expect console tab t1 contains "content -> nothing"
            expect console background contains "worker heard late?"
            popup click go
            settle
            expect console popup contains "answer yes, after: X"

            """)
        #expect(outcome.passed, "\(outcome.failures)")
        #expect(!outcome.log.entries.contains { $0.what.contains("the popup heard late?") || $0.what.contains("the popup heard none?") },
                "the sender does not hear its own message")
    }

    /// An extension page's `tabs.connect` opens a port to the tab's content script, whose
    /// `runtime.onConnect` takes it with the page as its sender: each end hears what the other
    /// posts, and the one left hears the other close it (what it posts after goes nowhere). A tab
    /// that is not open, and a tab whose page does not listen, close the port at once, in
    /// WebKit's words as for the background's.
    @Test func anExtensionPagesPortReachesItsTabsContentScript() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/page-ports pages
            tab open t1 https://a.example/
            tab open t2 https://b.example/
            settle
            popup open t1
            settle
            popup click talk
            settle
            expect console tab t1 contains "content took talk from safari-web-extension://extension/popup.html"
            expect console popup contains "the popup heard heard hello"
            expect console popup contains "the port to tab 1 closed: by the page"
            popup click nobody
            settle
            expect console popup contains "the port to tab 999 closed: Invalid call to tabs.connect(). Tab not found."
            popup close
            popup open t2
            settle
            popup click talk
            settle
            expect console popup contains "the port to tab 2 closed: Invalid call to tabs.connect(). No runtime.onConnect listeners found."

            """)
        #expect(outcome.passed, "\(outcome.failures)")
        // What the popup posted after the content script closed the port ("bye"), and the ports
        // that never connected, went nowhere: Safari never heard of them.
        #expect(!outcome.log.entries.contains { $0.what.contains("open to no background") || $0.what.contains("bye") }, "\(outcome.log.entries.map(\.what))")
    }

    /// An open extension page hears `webNavigation`'s stages of every tab's load, in order, as
    /// the background would, with a listener's filter of the address kept; the worker, which
    /// does not listen, is not woken for them.
    @Test func anOpenPopupHearsEachStageOfATabsLoad() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/page-navigation pages
            tab open t1 https://a.example/
            settle
            popup open t1
            settle
            tab navigate t1 https://b.example/x
            settle
            tab navigate t1 https://c.example/
            settle
            expect console popup contains "onBeforeNavigate 1 0 https://b.example/x"
            expect console popup contains "onCompleted 1 0 https://c.example/"
            expect console popup contains "b.example loaded https://b.example/x"

            """)
        #expect(outcome.passed, "\(outcome.failures)")
        let heard = outcome.log.entries.map(\.what).filter { $0.contains("https://b.example/x") && $0.contains("popup") }
        #expect(heard.map { $0.components(separatedBy: "console.log ").last ?? $0 } == [
            "onBeforeNavigate 1 0 https://b.example/x", "onCommitted 1 0 https://b.example/x", "onDOMContentLoaded 1 0 https://b.example/x",
            "onCompleted 1 0 https://b.example/x", "b.example loaded https://b.example/x",
        ], "\(heard)")
        #expect(!outcome.log.entries.contains { $0.what.contains("b.example loaded https://c.example/") }, "the filter keeps c.example out")
    }

    /// An extension page's `menus` are Safari's, as the background's are: the popup makes an item,
    /// the loaded worker hears the list and makes its next item after the popup's, the popup
    /// renames the worker's (it reads what Safari holds), and a choice reaches both, each of
    /// which makes one more item in it: Safari keeps both.
    @Test func thePopupsMenuItemsAreSafarisAsTheWorkersAre() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/page-menus pages
            tab open t1 https://a.example/
            settle
            popup open t1
            settle
            popup click add
            settle
            expect console popup contains "popup made pin"
            expect console popup contains "worker made later"
            popup click rename
            settle
            expect console popup contains "popup renamed"
            menu click pin t1
            settle
            expect console popup contains "popup heard pin checked true on tab 1"
            expect console background contains "worker heard pin on tab 1"
            menu click later t1
            settle
            expect console background contains "worker heard later on tab 1"
            expect console popup contains "popup heard later checked undefined on tab 1"
            menu click from-popup t1
            menu click from-worker t1
            settle
            expect console background contains "worker heard from-popup on tab 1"
            expect console popup contains "popup heard from-worker checked undefined on tab 1"

            """)
        #expect(outcome.passed, "\(outcome.failures)")
    }

    /// What Safari hands the pages of its toolbar item is what it holds when it hands it over:
    /// the worker sets the badge as it answers the popup, the popup sets it again in the turn the
    /// answer brings, and a later read in the popup finds the popup's, as Safari holds it.
    @Test func thePagesReadTheToolbarItemAsSafariHoldsItAfterAnAnswerTheyActedOn() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/page-badge-answer pages
            tab open t1 https://a.example/
            settle
            popup open t1
            settle
            popup click go
            settle
            expect action badge="P"
            popup click read
            settle
            expect console popup contains "badge P"

            """)
        #expect(outcome.passed, "\(outcome.failures)")
    }

    /// `permission revoke ITEM` takes back what the user granted: an item the user did not grant
    /// (a manifest's own included) is a step the user cannot take, and the run fails naming what
    /// is granted.
    @Test func takingBackWhatTheUserDidNotGrantFailsTheRun() throws {
        let outcome = try Self.outcome(of: "extension site-access pages\ntab open t1 https://news.example.com/a\naction click t1\npermission grant\nsettle\n"
                                           + "permission revoke https://docs.example.com/*\n")
        #expect(!outcome.passed)
        #expect(outcome.failures.contains {
            $0.contains("permission revoke https://docs.example.com/*: the user granted no such thing (granted: https://news.example.com/*)")
        }, "\(outcome.failures)")
    }

    /// A tab's sessionStorage lasts until Safari quits (its pages go with it, in every profile:
    /// the front one's tabs load new pages at the launch, a profile put away its own when it is
    /// in front again), where localStorage lasts the whole run; a reload keeps both.
    @Test func aSafariRestartStartsEachTabsSessionStorageAfresh() throws {
        let outcome = try Self.outcome(of: """
            extension \(Self.fixtures)/web-storage pages
            tab open t1 https://a.example/one
            tab reload t1
            expect console tab t1 contains "visits 2 2 "
            profile work
            tab open w1 https://a.example/w
            tab reload w1
            expect console tab w1 contains "visits 2 2 "
            profile default
            safari restart
            expect console tab t1 contains "visits 3 1 "
            profile work
            expect console tab w1 contains "visits 3 1 "

            """)
        #expect(outcome.passed, "\(outcome.failures)")
    }

    /// What an extension page asks of Safari's tabs goes to the pages once everything the page
    /// did in that input is carried out: its state after a tab's answer is the answer's, a
    /// reload's page is the new load's; a page that keeps asking its own tab without end fails
    /// the run, saying so, and never takes the harness down. (The page marks how many times it
    /// loaded, which a fresh load shows otherwise: invariant 16 fails on purpose.)
    @Test func anExtensionPagesCallsOnTabsAreCarriedOutInOrderAndWithinBounds() throws {
        func run(_ steps: String) throws -> ScenarioRunner.Outcome {
            try Self.outcome(of: "extension \(Self.fixtures)/page-calls pages\nexpect-failure invariant 16\ntab open t1 https://news.example.com/a\noptions open\nsettle\n" + steps)
        }
        let asked = try run("options click ask\nsettle\nexpect tab options page data.step=pong-ping\n")
        #expect(asked.passed, "\(asked.failures)")
        let reloaded = try run("options click reload\nsettle\nexpect tab options page data.loads=2\n")
        #expect(reloaded.passed, "\(reloaded.failures)")
        let looped = try run("options click loop\nsettle\n")
        #expect(!looped.passed)
        #expect(looped.failures.contains { $0.contains("the extension's pages handed Safari 1000 inputs for one of Safari's without end") }, "\(looped.failures)")
    }

    /// A scenario's `fetch` lines are the network's only answers: a stubbed address gives its
    /// status and body (the rest of the line, or a file's, as it is), any other fails; with a
    /// background that is not an extension's JavaScript, the lines are a mistake, and so is a
    /// body file that is not there.
    @Test func theNetworkAnswersOnlyWhatTheScenarioStubs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let steps = """
            fetch https://config.example.com/flags.json 200 {"dark":true}
            fetch https://notes.example.com/readme.txt 200 file \(Self.fixtures)/runtime-fetch/answers/readme.txt
            tab open t1 https://docs.example.com/guide
            settle
            """
        let text = "extension \(Self.fixtures)/runtime-fetch\n" + steps
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "fetch.scenario"), transport: .process, seed: 1,
                                         executables: HarnessBinary.executables, directory: folder).run()
        let said = outcome.trace.filter { $0.contains("console.log") }.map { String($0.split(separator: " ", maxSplits: 2).last!) }
        #expect(said == ["console.log refused Failed to fetch https://other.example.com/: the scenario gives no answer for it (fetch URL STATUS BODY)",
                         "console.log flags 200 true true", ##"console.log notes "# Notes\n  two  spaces\n""##], "\(said)")
        #expect(!FileManager.default.fileExists(atPath: folder + ".fetch.json"), "the answers are removed with the run")
        #expect(throws: ScenarioErrors.self) {
            try ScenarioRunner(try Scenario.parse(steps, name: "built-in.scenario"), transport: .process, seed: 1,
                               executables: HarnessBinary.executables, directory: folder).run()
        }
        let missing = text.replacingOccurrences(of: "answers/readme.txt", with: "answers/nosuch.txt")
        let error = #expect(throws: ScenarioErrors.self) {
            try ScenarioRunner(try Scenario.parse(missing, name: "missing.scenario"), transport: .process, seed: 1,
                               executables: HarnessBinary.executables, directory: folder).run()
        }
        #expect(error?.description.contains("missing.scenario:3: fetch https://notes.example.com/readme.txt: ") == true && error?.description.contains("nosuch.txt") == true,
                "\(error?.description ?? "")")
    }
}
