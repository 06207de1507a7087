import Foundation
@testable import HarnessCore
import Testing

/// `harness run --html`: the index and a page per run, checked as text and, when a Chromium is
/// installed, as a browser renders it.
@Suite(.serialized)
struct RunPageTests {
    /// A scenario of the repository that fails under a flaw: two backgrounds, six handlers, one
    /// tab, failures on lines 19, 23 and 24.
    static let scenario = ScenarioParserTests.folder + "/lifecycle/a-crashing-handler-loses-nothing-the-outbox-keeps.scenario"
    static let page = "lifecycle--a-crashing-handler-loses-nothing-the-outbox-keeps.html"

    /// Runs the scenario with `--html` and `--trace` into a new folder; the caller removes it.
    static func report() throws -> (folder: String, page: String, trace: [String], run: HarnessBinary.Output) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)").path
        let run = try HarnessBinary.run(["run", scenario, "--flaw", "no-outbox", "--transport", "in-process",
                                         "--html", folder + "/report", "--trace", folder + "/trace.txt"])
        let trace = try String(contentsOfFile: folder + "/trace.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        let page = try String(contentsOfFile: folder + "/report/" + Self.page, encoding: .utf8)
        return (folder, page, trace, run)
    }

    /// The process incarnations the trace shows (`background#2`), in order.
    static func incarnations(_ trace: [String]) -> [String] {
        var seen: [String] = []
        for line in trace where !line.hasPrefix("#") {
            let label = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            if ["app#", "background#", "handler#"].contains(where: label.hasPrefix), !seen.contains(label) { seen.append(label) }
        }
        return seen
    }

    /// Every value of `attribute` on elements carrying `marker`, in order.
    static func values(of attribute: String, after marker: String, in html: String) -> [String] {
        html.components(separatedBy: marker).dropFirst().compactMap { part in
            guard let start = part.range(of: attribute + "=\"") else { return nil }
            return String(part[start.upperBound...].prefix { $0 != "\"" })
        }
    }

    /// What makes a page depend on anything outside itself.
    static func externalReferences(_ html: String) -> [String] {
        var found: [String] = []
        for pattern in ["<script", "<link", "<iframe", "<img", "src=", "@import", "url(http", "url(//", "href=\"http", "href=\"//", "href=\"file:"]
            where html.range(of: pattern, options: .caseInsensitive) != nil {
            found.append(pattern)
        }
        return found
    }

    @Test func theIndexListsTheRunAndItsPageShowsEveryLaneTheFailuresAndNothingFromOutside() throws {
        let (folder, page, trace, run) = try Self.report()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(run.status == 1)
        #expect(run.stdout.contains("pages in \(folder)/report/index.html"))
        let index = try String(contentsOfFile: folder + "/report/index.html", encoding: .utf8)
        #expect(index.contains("<a href=\"\(Self.page)\">\(Self.scenario)</a>"))
        #expect(index.contains("FAIL"))

        let processes = Self.incarnations(trace)
        // The system keeps a handler that answered for the next request: a new one starts only
        // for a request that comes while the kept one is busy, or after one crashed.
        #expect(processes == ["background#1", "handler#1", "background#2", "handler#2", "handler#3"])
        #expect(Self.values(of: "data-name", after: "data-lane=\"process\"", in: page) == processes)
        #expect(Self.values(of: "data-name", after: "data-lane=\"tab\"", in: page) == ["t1"])
        // The failing steps are marked in the list, and on the timeline at their moment.
        for line in [19, 23, 24] {
            #expect(page.contains("<li id=\"line-\(line)\" class=\"step failed\">"))
            #expect(page.contains("id=\"step-\(line)\""))
        }
        #expect(!page.contains("<li id=\"line-18\" class=\"step failed\">"))
        #expect(Self.values(of: "data-line", after: "class=\"failure\"", in: page).joined(separator: " ").contains("19"))
        #expect(page.contains("shared site docs.example.com is absent"))
        // The error Safari gave for the crashed handler is drawn as a refused reply.
        #expect(page.contains("data-outcome=\"refused\""))
        // What was expected is beside what happened.
        #expect(page.contains("line 19 <code>expect shared site docs.example.com theme=sepia</code>"))
        #expect(page.contains("<details class=\"trace\">"))
        // Safari's lane; the tab's look written with its reason; each trace line's time linked
        // to the step it belongs to.
        #expect(page.contains("<g data-lane=\"safari\">"))
        #expect(page.contains(">in front</text>"))
        #expect(page.contains(">gray · modeOn</text>"))
        #expect(page.contains("<a href=\"#step-18\" title=\"line 18 of the scenario\">"))
        #expect(Self.externalReferences(page).isEmpty)
        // Written whole: no temporary file is left behind.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/report").sorted()
        #expect(files == ["index.html", Self.page])
    }

    /// An extension of another design: its page draws the messages between the pages and the
    /// background and why each background started, and nothing of the design (no decisions
    /// awaited, no shared document or cache lanes); a design's run keeps those.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
    func anExtensionOfAnotherDesignGetsItsOwnLanes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reader = ScenarioParserTests.folder + "/extensions/a-site-the-reader-turned-off-stays-off-after-safari-unloads-the-background.scenario"
        let design = ScenarioParserTests.folder + "/transitions/01-an-app-default-change-reaches-an-open-tab.scenario"
        let run = try HarnessBinary.run(["run", reader, design, "--html", folder])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let own = try String(contentsOfFile: folder + "/extensions--a-site-the-reader-turned-off-stays-off-after-safari-unloads-the-background.html", encoding: .utf8)
        #expect(Self.values(of: "data-started", after: "data-lane=\"process\"", in: own) == ["tab t1's message", "tab t2's message"], "\(own)")
        #expect(own.contains("data-outcome=\"page\""))
        #expect(!own.contains("no decision") && !own.contains(">shared document<") && !own.contains(">cache<"))
        #expect(own.contains("page message or answer"))
        let theirs = try String(contentsOfFile: folder + "/transitions--01-an-app-default-change-reaches-an-open-tab.html", encoding: .utf8)
        #expect(theirs.contains(">shared document<") && theirs.contains("no decision yet") && !theirs.contains("data-outcome=\"page\""))
        #expect(Self.values(of: "data-started", after: "data-lane=\"process\"", in: theirs).first == "tab t1's question")
    }

    /// `harness explore` writes each shrunk failure's page beside its scenario, and an index.
    @Test func exploreWritesAPageBesideEachShrunkFailure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("found-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try HarnessBinary.run(["explore", "--flaw", "no-reconcile-on-foreground", "--stop", "--runs", "50", "--workers", "1", "--out", folder])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let scenario = try #require(files.first { $0.hasSuffix(".scenario") }, "\(files)")
        let page = String(scenario.dropLast(".scenario".count)) + ".html"
        #expect(files == ["index.html", page, scenario])
        let index = try String(contentsOfFile: folder + "/index.html", encoding: .utf8)
        #expect(index.contains("<a href=\"\(page)\">\(folder)/\(scenario)</a>"))
        let html = try String(contentsOfFile: folder + "/" + page, encoding: .utf8)
        #expect(html.contains("found by harness explore, seed ") && html.contains("class=\"failure\""))
    }

    /// A scenario that could not run as written has no page but a line in the index.
    @Test func theIndexListsAScenarioThatCouldNotRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = folder + "/good.scenario", unreached = folder + "/unreached.scenario"
        try "tab open t1 https://a.example/\nsettle\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "hold app at rename\ntab open t1 https://a.example/\nsettle\n".write(toFile: unreached, atomically: true, encoding: .utf8)
        let run = try HarnessBinary.run(["run", good, unreached, "--transport", "in-process", "--html", folder + "/report"])
        #expect(run.status == 2)
        let index = try String(contentsOfFile: folder + "/report/index.html", encoding: .utf8)
        #expect(index.contains("<p>1 passed, 0 failed, 1 could not run as written</p>"))
        #expect(index.contains("<td class=\"fail\">ERROR</td><td>\(unreached)<br><small>"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/report").sorted() == ["good.html", "index.html"])
    }

    @Test func aFolderThatCannotBeMadeIsAnErrorBeforeAnythingRuns() throws {
        let file = try HarnessBinary.file("not a folder")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try HarnessBinary.run(["run", Self.scenario, "--html", file + "/report"])
        #expect(run.status != 0)
        #expect(run.stderr.contains(file + "/report"))
        #expect(!run.stdout.contains("pass") && !run.stdout.contains("FAIL"))
    }

    @Test(.enabled(if: Chromium.path != nil, "no Chromium found (Debian's chromium package; .ci/run installs it)"))
    func chromiumRendersThePageWithEveryLaneAndTheFailureMarked() throws {
        let browser = try #require(Chromium.path)
        let (folder, _, trace, _) = try Self.report()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = "file://" + folder + "/report/" + Self.page

        let dom = try Chromium.run(browser, ["--dump-dom", url], folder: folder)
        #expect(dom.contains("<svg class=\"lanes\""))
        #expect(Self.values(of: "data-name", after: "data-lane=\"process\"", in: dom) == Self.incarnations(trace))
        #expect(Self.values(of: "data-name", after: "data-lane=\"tab\"", in: dom) == ["t1"])
        #expect(dom.contains("<li id=\"line-19\" class=\"step failed\">"))
        #expect(Self.externalReferences(dom).isEmpty)

        let shot = folder + "/shot.png"
        _ = try Chromium.run(browser, ["--screenshot=" + shot, "--window-size=1000,1000", url], folder: folder)
        let image = try PNGImage(contentsOfFile: shot)
        #expect(image.width == 1000 && image.height == 1000)
        #expect(image.pixelsUnlikeTheBackground > image.width * image.height / 50)
        #expect(image.distinctColours > 20)
        // The timeline itself is drawn: lanes of living processes (far more of their colour
        // than the legend's swatch holds), and the failures' rules, a colour nothing else uses.
        // (How much of them shows depends on the page's layout: a longer scenario path wraps
        // the title and moves the timeline down.)
        var alive = 0, rule = 0
        for offset in stride(from: 0, to: image.pixels.count, by: 4) {
            let pixel = (image.pixels[offset], image.pixels[offset + 1], image.pixels[offset + 2])
            if pixel == (0xa5, 0xd6, 0xa7) { alive += 1 }
            if pixel == (0xd5, 0x00, 0x00) { rule += 1 }
        }
        #expect(alive > 2000, "\(alive) pixels of living processes")
        #expect(rule > 40, "\(rule) pixels of failure rules")
    }
}

/// A headless Chromium, if one is installed.
enum Chromium {
    static let path: String? = {
        var candidates = ["/usr/lib/chromium/chromium"]
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            for name in ["chromium", "chromium-browser", "google-chrome"] { candidates.append("\(folder)/\(name)") }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs the browser headless with its own profile in `folder`, and gives its standard
    /// output. Output goes to a file: the browser's helpers may outlive it holding a pipe.
    static func run(_ browser: String, _ arguments: [String], folder: String) throws -> String {
        let out = folder + "/browser-out", err = folder + "/browser-err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                             "--user-data-dir=" + folder + "/profile"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        // A browser that hangs fails the test instead of holding the run.
        let deadline = Date().addingTimeInterval(90)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            Issue.record("\(browser) did not finish within 90 s")
        }
        process.waitUntilExit()
        let output = try String(contentsOfFile: out, encoding: .utf8)
        if process.terminationStatus != 0 {
            Issue.record("\(browser) exited with \(process.terminationStatus): \(try String(contentsOfFile: err, encoding: .utf8).suffix(2000))")
        }
        return output
    }
}
