import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// An extension's own pages under the harness (`extension DIR pages`): what their scripts can do
/// and leave on a page, and a bug planted in the first version's content script, which its named
/// scenarios catch.
@Suite(.serialized, .enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"),
       .enabled(if: PageRuntime.jsdomMissing == nil, "\(PageRuntime.jsdomMissing.map(String.init(describing:)) ?? "")"))
struct OwnPagesRunTests {
    static let firstVersion = ScenarioTests.folder + "/extensions/first-version"
    static let fixture = String(#filePath[..<(#filePath.lastIndex(of: "/") ?? #filePath.startIndex)]) + "/Fixtures/pages-dom"

    /// Plays the scenario text with `extension` steps resolved from `folder`, on real processes.
    private func run(_ text: String, name: String, folder: String) throws -> ScenarioRunner.Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-pages-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try ScenarioRunner(try Scenario.parse(text, name: name), transport: .process, seed: 1, executables: HarnessBinary.executables,
                                  directory: directory, folder: folder).run()
    }

    /// The fixture's scripts use what PROTOCOL.md section 15 gives a page, and each leaves a mark
    /// a scenario reads: every expectation holds, and invariant 16 fails as marked (the marks of
    /// what happened are gone once the page loads afresh).
    @Test func aPagesScriptsLeaveWhatTheScenarioReads() throws {
        let folder = Self.fixture
        let outcome = try run(try String(contentsOfFile: folder + "/features.scenario", encoding: .utf8), name: "features.scenario", folder: folder)
        #expect(outcome.skipped == nil)
        let passed = outcome.passed
        #expect(passed, "\(outcome.failures.joined(separator: "\n"))")
        #expect(outcome.knownFailures.contains { $0.contains("invariant 16") })
    }

    /// A page of a profile put away stops: its timer waits for the profile to come back.
    @Test func aPutAwayProfilesPagesWaitForItsReturn() throws {
        let folder = Self.fixture
        let outcome = try run(try String(contentsOfFile: folder + "/put-away.scenario", encoding: .utf8), name: "put-away.scenario", folder: folder)
        let passed = outcome.passed
        #expect(passed, "\(outcome.failures.joined(separator: "\n"))")
    }

    /// A copy of the first version whose content script no longer asks when its page is shown
    /// again, in a folder the caller removes.
    private func plantedCopy() throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("first-version-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Self.firstVersion, toPath: copy)
        let content = copy + "/content.js"
        let source = try String(contentsOfFile: content, encoding: .utf8)
        let asks = "  if (document.visibilityState === \"visible\") {\n    askForTheSwitch();"
        try #require(source.contains(asks), "content.js no longer has the lines the bug is planted in")
        try source.replacingOccurrences(of: asks, with: "  if (document.visibilityState === \"visible\") {\n    // no question").write(toFile: content, atomically: true, encoding: .utf8)
        return copy
    }

    /// The tab behind keeps the old look until it is shown again, when the page asks: with a
    /// content script that no longer asks then, that line fails; the extension as written passes.
    @Test func aContentScriptThatNoLongerAsksWhenShownIsCaught() throws {
        let file = "extensions/the-first-versions-tab-behind-keeps-the-old-look-until-shown.scenario"
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("expect tab t1 page style.filter contains invert") }) + 1
        let asWritten = try run(text, name: file, folder: ScenarioTests.folder + "/extensions")
        let passed = asWritten.passed
        #expect(passed, "\(asWritten.failures)")
        let copy = try plantedCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let planted = try run(text.replacingOccurrences(of: "extension first-version pages", with: "extension \(copy) pages"), name: file,
                              folder: ScenarioTests.folder + "/extensions")
        #expect(planted.marks.failures.contains { $0.property == .expectation && $0.line == line }, "\(planted.failures)")
        // Nothing mends the page after healing either: loaded afresh it shows the switch.
        #expect(planted.marks.failures.contains { $0.property == .invariant(16) }, "\(planted.failures)")
    }

    /// The run's page draws what the page showed over time: the flip, then the old look again
    /// once it reloads.
    @Test func theTabsLaneShowsWhatThePageShows() throws {
        let file = "extensions/the-first-versions-toggle-flips-the-page-when-the-handler-crashed-before-saving.scenario"
        let outcome = try run(try String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8), name: file, folder: ScenarioTests.folder + "/extensions")
        let timeline = RunTimeline(log: outcome.log, marks: outcome.marks, epoch: outcome.epoch)
        let looks = try #require(timeline.tabs.first { $0.tab == "t1" }).segments.compactMap(\.page)
        let flipped = try #require(looks.firstIndex { $0.hasPrefix("style.filter=invert") }, "\(looks)")
        #expect(looks[..<flipped].contains("nothing set") && looks[flipped...].contains("nothing set"), "\(looks)")
    }

    /// A differential run compares the decisions tabs show: a scenario whose extension runs its
    /// own pages, which show none, fails as one that cannot be compared, at its extension step.
    @Test func aDifferentialRunOfOwnPagesSaysItCannotCompare() throws {
        let file = "extensions/the-site-settings-pages-follow-the-system-appearance.scenario"
        let text = try String(contentsOfFile: ScenarioTests.folder + "/" + file, encoding: .utf8)
        var outcome = try run(text, name: file, folder: ScenarioTests.folder + "/extensions")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("own-pages-reference-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = try Scenario.parse(text, name: file)
        try Differential.check(&outcome, of: scenario, reference: ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables,
                                                                                 directory: directory, folder: ScenarioTests.folder + "/extensions"))
        let line = try #require(scenario.lines.first { $0.text.hasPrefix("extension ") }).number
        #expect(outcome.marks.failures.map(\.property) == [.run] && outcome.marks.failures.first?.line == line, "\(outcome.failures)")
        #expect(outcome.failures.first?.contains("runs its own pages, which show none") == true, "\(outcome.failures)")
    }

    /// What a user does in an extension's own popup, read from its page: clicks on its buttons,
    /// inputs and links by id (not its paragraphs), the options its selects list (none for one a
    /// script fills), and which controls are the design's edits (`data-field`, `data-edit`).
    @Test func aPopupsControlsAreReadFromItsPage() throws {
        func manifest(_ folder: String) throws -> ExtensionManifest {
            guard case .success(let (manifest, _)) = ExtensionManifest.load(folder: folder) else { throw Failure(description: "\(folder) does not load") }
            return manifest
        }
        #expect(try manifest(Self.firstVersion).popupControls.clicks == ["toggle"])
        let siteSettings = try manifest(ScenarioTests.folder + "/extensions/site-settings").popupControls
        #expect(siteSettings.clicks == ["forget", "pause"])
        #expect(siteSettings.choices.map(\.id) == ["scope", "mode", "theme", "nativeDarkPolicy"])
        #expect(siteSettings.choices.first { $0.id == "theme" }?.values == ["", "dark", "gray", "sepia", "invert"])
        #expect(siteSettings.choices.first { $0.id == "scope" }?.values == [])
        #expect(siteSettings.fields == ["mode": .mode, "theme": .theme, "nativeDarkPolicy": .nativeDarkPolicy])
        #expect(siteSettings.forget == ["forget"])
        #expect(Explorer.OwnPages(try manifest(Self.firstVersion)).popup == .own(try manifest(Self.firstVersion).popupControls))

        // The explorer's schedules pick only options the page lists, and click the rest.
        var uses: Set<String> = []
        for seed in UInt64(1)...60 {
            for case .popup(let step) in ScheduleGenerator.schedule(seed: seed, count: 40, popup: .own(siteSettings)).steps {
                switch step {
                case .click(let id): uses.insert("click \(id)")
                case .choose(let id, let value):
                    #expect(siteSettings.choices.first { $0.id == id }?.values.contains(value) == true, "\(id) \(value)")
                    uses.insert("choose \(id)")
                case .open, .close: break
                default: Issue.record("a reference popup step: \(step)")
                }
            }
        }
        #expect(uses == ["click forget", "click pause", "choose mode", "choose theme", "choose nativeDarkPolicy"], "\(uses)")
    }

    private struct Failure: Error, CustomStringConvertible { var description: String }

    /// Explored with its own pages, the first version's schedules open its popup and click its
    /// toggle, never the reference popup's edits; its bugs are found blind, and each shrunk
    /// finding keeps the line that runs its pages and fails the same way again.
    @Test func exploringTheFirstVersionWithItsPagesFindsItsBugs() throws {
        guard case .success(let (manifest, _)) = ExtensionManifest.load(folder: Self.firstVersion) else { throw Failure(description: "the first version does not load") }
        // As `harness explore --extension DIR --pages` makes it: the extension's background is
        // the explorer's too, so a schedule that lost its pages line would still run it.
        guard case .success(let executables) = ExtensionRuntime.background(replacing: HarnessBinary.executables, extension: Self.firstVersion, transport: .process) else {
            throw Failure(description: "the runtime could not be set up")
        }
        var explorer = Explorer(transport: .process, executables: executables,
                                directory: FileManager.default.temporaryDirectory.appendingPathComponent("explore-pages-\(UUID().uuidString)").path)
        explorer.ownPages = Explorer.OwnPages(manifest)
        let pagesLine = Step.extensionFolder(try #require(explorer.ownPages).folder, pages: true)
        var popupSteps: [Step] = []
        for seed in UInt64(1)...40 {
            let steps = explorer.schedule(seed: seed).steps
            #expect(steps.prefix(2) == [.seed(seed), pagesLine])
            popupSteps += steps.filter { if case .popup = $0 { true } else { false } }
            #expect(!steps.contains { if case .cache = $0 { true } else { false } }, "a cache line writes a layout the extension may not keep")
        }
        #expect(popupSteps.contains(.popup(.click("toggle"))))
        #expect(popupSteps.allSatisfy { step in
            switch step {
            case .popup(.open), .popup(.close), .popup(.click("toggle")): true
            default: false
            }
        }, "\(popupSteps)")

        let run = try explorer.run(seed: 1)
        let (property, _) = try #require(run.failure, "seed 1's schedule breaks no property")
        #expect([.invariant(15), .invariant(16), .invariant(17)].contains(property), "\(property)")
        var shrinker = Shrinker(explorer: explorer, property: property, budget: 200)
        let shrunk = shrinker.shrink(run.steps, unreached: run.unreachedFaults)
        #expect(shrunk.prefix(2) == [.seed(1), pagesLine], "\(shrunk)")
        #expect(shrunk.count < run.steps.count)
        #expect(try explorer.play(shrunk, name: "shrunk").properties.contains(property))
    }

    /// A failure the background makes whether its pages run or not (an uncaught error at its
    /// load) still shrinks to a scenario that names the extension with its pages: without that
    /// line another background and other pages would run, and could fail the same property
    /// another way.
    @Test func aShrunkFindingKeepsTheLineThatRunsThePages() throws {
        let folder = String(#filePath[..<(#filePath.range(of: "/HarnessTests/")!.lowerBound)]) + "/HarnessCoreTests/Fixtures/extensions/runtime-classic"
        guard case .success(let (manifest, _)) = ExtensionManifest.load(folder: folder),
              case .success(let executables) = ExtensionRuntime.background(replacing: HarnessBinary.executables, extension: folder, transport: .process) else {
            throw Failure(description: "\(folder) does not load")
        }
        var explorer = Explorer(transport: .process, executables: executables,
                                directory: FileManager.default.temporaryDirectory.appendingPathComponent("explore-pages-\(UUID().uuidString)").path)
        explorer.ownPages = Explorer.OwnPages(manifest)
        #expect(explorer.ownPages?.popup == ScheduleGenerator.Popup.none, "it has no popup")
        let run = try explorer.run(seed: 1)
        #expect(run.failure?.property == .invariant(15), "\(run.outcome.failures)")
        var shrinker = Shrinker(explorer: explorer, property: .invariant(15), budget: 100)
        let shrunk = shrinker.shrink(run.steps, unreached: run.unreachedFaults)
        #expect(shrunk.prefix(2) == [.seed(1), .extensionFolder(folder, pages: true)], "\(shrunk)")
        #expect(!run.steps.contains { if case .popup = $0 { true } else { false } }, "no popup steps without a popup")
    }

    /// A page of a profile put away waits with its profile, whose extension does not run while
    /// another is in front: its message still waiting breaks no invariant 17.
    @Test func aPageOfAProfilePutAwayWaitsWithIt() throws {
        let text = """
            platform ios
            extension \(Self.firstVersion) pages
            app launch
            tab open t3 https://docs.example.com/guide
            profile work
            """
        let passed = try run(text, name: "put-away.scenario", folder: Self.firstVersion)
        #expect(passed.failures.isEmpty, "\(passed.failures.joined(separator: "\n"))")
    }

    /// `--pages` needs the extension, and does not go with `--differential`.
    @Test func explorePagesIsRefusedWhereItCannotRun() throws {
        let alone = try HarnessBinary.run(["explore", "--pages", "--runs", "1"])
        #expect(alone.status == 2 && alone.stderr.contains("give '--extension DIR'"), "\(alone.stderr)")
        let both = try HarnessBinary.run(["explore", "--pages", "--differential", "--extension", Self.firstVersion, "--transport", "process", "--runs", "1"])
        #expect(both.status == 2 && both.stderr.contains("give one"), "\(both.stderr)")
    }
}

/// Without jsdom a scenario with pages cannot run: it is reported as skipped, saying what is
/// missing and how to install it, never as passed.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
struct PagesWithoutJsdomTests {
    @Test func aScenarioWithPagesIsSkippedWithTheInstallCommand() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-jsdom-\(UUID().uuidString)").path
        let chosen = ExtensionRuntime.background(replacing: HarnessBinary.executables, extension: OwnPagesRunTests.firstVersion, transport: .process,
                                                 ownPages: true, jsdom: missing)
        guard case .failure(let reason) = chosen else {
            Issue.record("pages were given a runtime with no jsdom in \(missing)")
            return
        }
        #expect(reason.description == "jsdom is not installed in \(missing): the extension's pages cannot run (install it: apt-get install node-jsdom)")
        // The same extension without its pages needs no jsdom.
        let background = ExtensionRuntime.background(replacing: HarnessBinary.executables, extension: OwnPagesRunTests.firstVersion, transport: .process,
                                                     jsdom: missing)
        guard case .success = background else {
            Issue.record("a background alone was refused for want of jsdom")
            return
        }
    }
}
