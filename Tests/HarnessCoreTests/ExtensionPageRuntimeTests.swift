import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The runtime of the extension's own pages (`pages.mjs`) on `node`, fed inputs as the harness
/// sends them: what a page's script can reach (its page's realm only, the frames' clock), and
/// what it cannot do to the page host (run outside the watchdog, end the process).
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"),
       .enabled(if: PageRuntime.jsdomMissing == nil, "\(PageRuntime.jsdomMissing.map(String.init(describing:)) ?? "")"))
struct ExtensionPageRuntimeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions").path
    static let epoch: EpochMillis = 1_772_355_600_000
    /// The named scenarios' folder, with their example extensions.
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios").path

    /// The page host over `fixture`, as a run starts it.
    private func host(_ fixture: String) throws -> PageHost {
        let command = PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(),
                                          extension: Self.fixtures + "/" + fixture, watchdogMilliseconds: 500)
        return try PageHost(command, seed: 7)
    }

    private func send(_ host: PageHost, _ input: PageHost.Input) throws -> [PageHost.Output] {
        try host.send(input, now: Self.epoch)
    }

    private static func load(_ tab: String, _ url: String) -> PageHost.Input {
        .load(PageKey(TabID(tab)), url: url, visible: true, appearance: .light, nativeDark: nil)
    }

    /// The logs among `outputs`, each as `page: text @ place`.
    private func logs(_ outputs: [PageHost.Output]) -> [String] {
        outputs.compactMap { output in
            guard case .log(let page, _, let text, let at) = output else { return nil }
            return "\(page?.hostName ?? "pages"): \(text)" + (at.map { " @ \($0)" } ?? "")
        }
    }

    private func state(classes: [String]) -> PageState {
        var state = PageState()
        state.classes = classes
        return state
    }

    /// Storage over a profile's folder: a content script reads it as its page loads; a change
    /// the background made reaches every page over that folder (and none over another), and a
    /// page's own change is heard by the pages and told to Safari; storage.session is the
    /// extension's pages' only.
    @Test func pagesReadStorageAndHearEveryChangeOverTheirFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("page-storage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"color":"green"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/sync.json"))
        let command = PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(),
                                          extension: Self.scenarios + "/extensions/highlighter", watchdogMilliseconds: 500)
        let host = try PageHost(command, seed: 7)
        let t1 = PageKey(TabID("t1")), t2 = PageKey(TabID("t1"), profile: "work")
        let loaded = try send(host, .load(t1, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, storage: folder))
        #expect(logs(loaded) == ["tab t1: highlight green"], "\(loaded)")
        _ = try send(host, .load(t2, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, storage: folder + "-elsewhere"))
        let pink = JSONValue.object(["color": .object(["oldValue": .string("green"), "newValue": .string("pink")])])
        let heard = try send(host, .storageChanged(storage: folder, area: "sync", changes: pink))
        #expect(logs(heard) == ["tab t1: highlight pink"], "only the page over that folder hears it: \(heard)")
        let opened = try send(host, .openPopup(TabID("t1"), appearance: .light, tabs: nil, windowId: nil, storage: folder))
        #expect(!logs(opened).contains { $0.contains("Uncaught") }, "\(opened)")
        let chose = try send(host, .choose(element: "color", value: "yellow"))
        let told = chose.filter { if case .storageChanged = $0 { true } else { false } }
        #expect(told == [PageHost.Output.storageChanged(from: .popup, area: "sync", changes: .object(["color": .object(["oldValue": .string("green"), "newValue": .string("yellow")])]))],
                "\(chose)")
        #expect(logs(chose).contains("tab t1: highlight yellow"), "\(chose)")
        #expect(try String(contentsOfFile: folder + "/sync.json", encoding: .utf8) == #"{"color":"yellow"}"#)
        // The same value again changes nothing: no one hears it.
        let same = try send(host, .choose(element: "color", value: "yellow"))
        #expect(!same.contains { if case .storageChanged = $0 { true } else { false } }, "\(same)")
    }

    /// storage.session is absent from a content script (and its changes unheard there) until
    /// the extension lets content scripts in (`storage.session.setAccessLevel`, kept with the
    /// profile's storage until Safari quits); then it is theirs.
    @Test func aContentScriptHasStorageSessionOnlyWhenTheExtensionLetsItIn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("session-access-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"draft":"hello"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/session.json"))
        let host = try host("session-access")
        let t1 = PageKey(TabID("t1"))
        let load = { () throws -> [PageHost.Output] in try self.send(host, .load(t1, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, storage: folder)) }
        let draft = JSONValue.object(["draft": .object(["newValue": .string("bye")])])
        let first = logs(try load())
        #expect(first == ["tab t1: session undefined false false"], "\(first)")
        #expect(logs(try send(host, .storageChanged(storage: folder, area: "session", changes: draft))).isEmpty, "a change of storage.session is not the content script's")
        try Data(#"{"accessLevel":"TRUSTED_AND_UNTRUSTED_CONTEXTS"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/session-access.json"))
        #expect(logs(try load()) == ["tab t1: session object true true", "tab t1: draft hello"])
        #expect(logs(try send(host, .storageChanged(storage: folder, area: "session", changes: draft))) == ["tab t1: heard session draft"])
        try Data(#"{"accessLevel":"TRUSTED_CONTEXTS"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/session-access.json"))
        let closed = logs(try load())
        #expect(closed == ["tab t1: session undefined false false"], "\(closed)")
    }

    /// localStorage is the origin's for the whole run and sessionStorage the tab's until it
    /// closes; DOMContentLoaded reaches the window; history keeps its state and the address
    /// stays; getPlatformInfo says the page host's platform, and what Safari lacks is absent.
    @Test func aPagesWebStorageOutlivesItsLoadAsABrowsersDoes() throws {
        let host = try host("web-storage")
        let first = try send(host, Self.load("t1", "https://a.example/one"))
        #expect(logs(first) == ["tab t1: visits 1 1 1 true visits 2 1 true", "tab t1: browser info undefined", "tab t1: platform ios",
                                "tab t1: window heard DOMContentLoaded true"], "\(first)")
        #expect(logs(try send(host, Self.load("t1", "https://a.example/two"))).first == "tab t1: visits 2 2 1 true visits 2 1 true", "a reload keeps both")
        #expect(logs(try send(host, Self.load("t2", "https://a.example/"))).first == "tab t2: visits 3 1 1 true visits 2 1 true", "another tab has its own session")
        _ = try send(host, .close(PageKey(TabID("t1"))))
        #expect(logs(try send(host, Self.load("t1", "https://a.example/"))).first == "tab t1: visits 4 1 1 true visits 2 1 true", "a closed tab's session is gone")
        #expect(logs(try send(host, Self.load("t3", "https://b.example/"))).first == "tab t3: visits 1 1 1 true visits 2 1 true", "another origin has its own")
    }

    /// A page's listener whose promise rejects is no answer, and nothing reported (WebKit drops
    /// the rejection): the background waits on (until the page goes, when Safari answers it with
    /// nothing), and one that returned true still answers later.
    @Test func aPagesRejectedPromiseLeavesTheBackgroundWaitingAndIsNotReported() throws {
        let host = try host("answers")
        let message = { (id: Int, kind: String) in PageHost.Input.message(.tab(PageKey(TabID("t1"))), id: id, message: .object(["kind": .string(kind)])) }
        _ = try send(host, Self.load("t1", "https://a.example/"))
        let rejected = try send(host, message(1, "reject"))
        #expect(!rejected.contains { if case .answer = $0 { true } else { false } }, "\(rejected)")
        let held = try send(host, message(2, "held"))
        #expect(!held.contains { if case .answer = $0 { true } else { false } }, "\(held)")
        let later = try send(host, .timer(load: PageLoad(.tab(PageKey(TabID("t1"))), number: 1), number: 1))
        #expect(later.contains(.answer(id: 2, answer: .string("later"), unreachable: false)), "\(later)")
        let resolved = try send(host, message(3, "resolve"))
        #expect(resolved.contains(.answer(id: 3, answer: .object(["ok": .bool(true)]), unreachable: false)), "\(resolved)")
        #expect(logs(rejected + held + later + resolved).isEmpty)
    }

    /// The popup's scripts run while its page is parsed, so one that waits for DOMContentLoaded
    /// hears it.
    @Test func thePopupsScriptsRunBeforeDOMContentLoaded() throws {
        let host = try host("answers")
        let opened = try send(host, .openPopup(TabID("t1"), appearance: .light, tabs: nil, windowId: nil))
        #expect(logs(opened) == ["popup: popup runs loading", "popup: popup ready interactive"], "\(opened)")
    }

    /// A popup whose page is parsed as a tree (head and body, nested elements, options, text
    /// with character references, a comment, a p closed by the next) runs its classic script as
    /// it is parsed and its module scripts, with their imports, before DOMContentLoaded; the
    /// module awaits tabs.query, fills a select, and hears a choice; it reads the tabs Safari
    /// hands it again after a change; the popup hears that it closes (pagehide), and what it
    /// sends then still leaves.
    @Test func aPopupOfModulesReadsItsTabsAndItsSelects() throws {
        let host = try host("module-popup")
        // Two windows, each with its active tab: the popup's is window 1.
        let tabs = [PageHost.PopupTab(id: TabID("t0"), url: "https://z.example/", windowId: 2, active: true),
                    PageHost.PopupTab(id: TabID("t1"), url: "https://a.example/", windowId: 1, active: false),
                    PageHost.PopupTab(id: TabID("t2"), url: "https://b.example/", windowId: 1, active: true)]
        let opened = try send(host, .openPopup(TabID("t2"), appearance: .light, tabs: tabs, windowId: 1))
        #expect(logs(opened) == [
            // Every element is in place before any script runs (PROTOCOL.md section 15).
            "popup: classic loading size",
            "popup: module loading true Fish & chips",
            "popup: size large 2 Default|small|large",
            "popup: paragraphs one form true",
            "popup: tabs t1 behind in 1 at 0, t2 active in 1 at 1",
            "popup: active t2 https://b.example/",
            "popup: filled b 2 AB",
            "popup: shown false null",
            "popup: missing browser.windows.create is not provided in pages by the harness's runtime",
            // The refused import() settles before DOMContentLoaded, which does not wait for it.
            "popup: import() true import() is not provided in pages by the harness's runtime",
            "popup: ready interactive",
        ], "\(opened)")
        let chose = try send(host, .choose(element: "size", value: "small"))
        #expect(logs(chose) == ["popup: changed small 1"], "\(chose)")
        // Safari hands the open popup its tabs again when they change: t1 is shown now.
        let shown = [PageHost.PopupTab(id: TabID("t1"), url: "https://a.example/", windowId: 1, active: true),
                     PageHost.PopupTab(id: TabID("t2"), url: "https://b.example/", windowId: 1, active: false)]
        #expect(try send(host, .tabs(shown)).isEmpty)
        let clicked = try send(host, .click(element: "box"))
        #expect(logs(clicked) == ["popup: box true t1"], "\(clicked)")
        // A control inside a hidden element is out of the user's reach: nothing happens.
        let hidden = try send(host, .click(element: "inside"))
        #expect(logs(hidden) == ["popup: popup click inside: nothing happens, #inside is hidden"], "\(hidden)")
        let refused = try send(host, .choose(element: "size", value: "huge"))
        #expect(logs(refused) == [#"popup: Not done: popup choose size huge: the select has no option of that value (it has "", "small", "large")"#], "\(refused)")
        let closed = try send(host, .closePopup(hide: true))
        #expect(closed.contains { if case .sendMessage(_, .popup, .object(["closing": .bool(true)]), _) = $0 { true } else { false } }, "\(closed)")
        // A popup that goes with its profile or with Safari runs nothing as it goes.
        _ = try send(host, .openPopup(TabID("t2"), appearance: .light, tabs: tabs, windowId: 1))
        #expect(try send(host, .closePopup(hide: false)).isEmpty)
    }

    /// A page's runtime.connect opens a numbered port; its posts and disconnects leave as
    /// outputs; the background's messages reach its onMessage; its end closing fires
    /// onDisconnect with runtime.lastError saying why, and a post after it throws. A port of a
    /// page that loaded again goes nowhere.
    @Test func aPagesPortCarriesMessagesAndHearsItsDisconnection() throws {
        let host = try host("ports")
        let loaded = try send(host, Self.load("t1", "https://a.example/"))
        #expect(loaded.contains(.connect(port: 1, name: "first", from: .tab(PageKey(TabID("t1"))))), "\(loaded)")
        #expect(loaded.contains(.postOnPort(port: 1, message: .string("hello"))), "\(loaded)")
        #expect(loaded.contains(.connect(port: 2, name: "", from: .tab(PageKey(TabID("t1"))))), "\(loaded)")
        #expect(loaded.filter { $0 == .disconnectPort(port: 2) }.count == 1, "a port disconnects once: \(loaded)")
        let heard = try send(host, .portMessage(port: 1, message: .string("echo hello")))
        #expect(logs(heard) == ["tab t1: heard echo hello true"])
        let refused = try send(host, .portDisconnected(port: 1, error: SafariMachine.noConnectListener))
        #expect(logs(refused) == ["tab t1: disconnected \(SafariMachine.noConnectListener)", "tab t1: after the port is disconnected"])
        #expect(try send(host, .portMessage(port: 1, message: .string("late"))).isEmpty)
        let again = try send(host, Self.load("t1", "https://a.example/"))
        #expect(again.contains(.connect(port: 3, name: "first", from: .tab(PageKey(TabID("t1"))))), "\(again)")
        #expect(try send(host, .portDisconnected(port: 2, error: nil)).isEmpty, "the page that held it is gone")
    }

    /// A page of the extension's own in a tab (its options page, or one it opened) is its file:
    /// its own scripts run (an inline one is refused) with the extension pages' APIs, and no
    /// content script; its `tabs.query` reads the tabs Safari handed over, its tab's window the
    /// current one, and its `windows.*` the windows Safari handed over; a click reaches its
    /// element; `runtime.openOptionsPage` asks Safari. A file
    /// the extension lacks is a plain page that says so.
    @Test func anOwnPageInATabRunsItsFileWithTheExtensionPagesAPIs() throws {
        let host = try host("own-pages")
        let o1 = PageKey(TabID("o1"))
        func text(_ selector: String) throws -> String? {
            guard case .queried(let found?)? = try send(host, .query(.tab(o1), selector: selector)).first else { return nil }
            return found.first?.text
        }
        _ = try send(host, .tabs([PageHost.PopupTab(id: TabID("t1"), url: "https://a.example/", windowId: 1, active: true, number: 1),
                                  PageHost.PopupTab(id: TabID("o1"), url: "safari-web-extension://extension/settings/options.html", windowId: 2, active: true, number: 2)],
                                 frontWindow: 1, focusedWindow: -1))
        let loaded = try send(host, Self.load("o1", "safari-web-extension://extension/settings/options.html"))
        #expect(logs(loaded) == ["tab o1: Refused to execute an inline script in settings/options.html: the extension's content security policy allows only its own files"])
        #expect(try text("#out") == "session object, tabs 2, at /settings/options.html")
        #expect(try text("#inline-result") == "no inline script ran")
        // Its windows: its tab's is the current one; the front one is the last focused, and no
        // window has focus while another app is in front.
        #expect(try text("#windows") == "current 2 (1 tab), last focused 1, focus none, 2 windows")
        let clicked = try send(host, .click(element: "again", page: .tab(o1)))
        #expect(clicked.contains(.openOptionsPage(from: .tab(o1))), "\(clicked)")
        #expect(logs(clicked) == ["tab o1: asked"], "\(clicked)")
        // A web page runs the content scripts, and a file that is not there is said.
        #expect(logs(try send(host, Self.load("t1", "https://a.example/"))) == ["tab t1: a content script ran at https://a.example/"])
        let missing = try send(host, Self.load("o2", "safari-web-extension://extension/missing.html"))
        #expect(logs(missing).contains { $0.hasPrefix("tab o2: Uncaught Error: missing.html cannot be read") }, "\(missing)")
        #expect(!logs(missing).contains { $0.contains("content script") }, "\(missing)")
    }

    /// The background's scripts and style sheets for a tab's page (`scripting.executeScript` and
    /// kin): a function's result, at once or when its promise settles; a file's last value; what
    /// a script threw or JSON cannot carry, as the run's error; a sheet added and taken away; a
    /// tab with no page, a file that is not there, and a page that goes before its script ends.
    @Test func aPageRunsTheBackgroundsScriptsAndStyleSheetsAndAnswersEach() throws {
        let command = PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(),
                                          extension: Self.scenarios + "/extensions/word-count", watchdogMilliseconds: 500)
        let host = try PageHost(command, seed: 7)
        let t1 = PageKey(TabID("t1"))
        _ = try send(host, .load(t1, url: "https://docs.example.com/", visible: true, appearance: .light, nativeDark: nil,
                                 html: "<!DOCTYPE html><html><head><style>p { display: block }</style></head><body><p>one two</p></body></html>"))
        func run(_ request: Int, _ injection: ExtensionWire.Injection, as kind: ExtensionWire.InjectionKind = .executeScript) throws -> [PageHost.Output] {
            try send(host, .inject(t1, request: request, kind, injection))
        }
        func answered(_ request: Int, _ results: [JSONValue]) -> PageHost.Output { .injected(request: request, results: .array(results), error: nil) }
        func result(_ value: JSONValue) -> JSONValue { .object(["frameId": .integer(0), "result": value]) }
        func error(_ text: String) -> JSONValue { .object(["frameId": .integer(0), "error": .string(text)]) }

        #expect(try run(1, .function("(a, b) => a + b", arguments: [.integer(2), .integer(3)])) == [answered(1, [result(.integer(5))])])
        #expect(try run(2, .function("() => { throw new RangeError('boom') }", arguments: [])) == [answered(2, [error("RangeError: boom")])])
        let unsent = try run(3, .function("() => () => 1", arguments: []))
        guard case .injected(3, .array(let only)?, nil)? = unsent.first, case .object(let members)? = only.first, case .string(let why)? = members["error"] else {
            Issue.record("a function is no result: \(unsent)")
            return
        }
        #expect(why.contains("must be JSON"), "\(why)")
        // A promise is waited for: the page's timer settles it in a later input.
        let waiting = try run(4, .function("() => new Promise((resolve) => setTimeout(() => resolve(document.querySelector('p').textContent), 10))", arguments: []))
        #expect(!waiting.contains { if case .injected = $0 { true } else { false } }, "\(waiting)")
        guard case .setTimer(let load, let number, _)? = waiting.first(where: { if case .setTimer = $0 { true } else { false } }) else {
            Issue.record("no timer was set: \(waiting)")
            return
        }
        #expect(try send(host, .timer(load: load, number: number)).contains(answered(4, [result(.string("one two"))])))
        // Each file gives its last value; the page keeps what it did.
        let files = try run(5, .files(["marker.js", "marker.js"]))
        #expect(files.first == answered(5, [result(.string("yes")), result(.string("yes"))]), "\(files)")
        #expect(files.contains { if case .state(t1, let state) = $0 { state.data == ["marked": "yes"] } else { false } }, "\(files)")
        let missing = try run(6, .files(["gone.js"]))
        guard case .injected(6, nil, let cannot?)? = missing.first else { Issue.record("\(missing)"); return }
        #expect(cannot.hasPrefix("the file gone.js cannot be read"), "\(cannot)")
        // A style sheet applies, and goes when removed. Added after the page's scripts ran, it
        // comes after the page's own sheets in jsdom's order (which keeps them as the page left
        // them), so it wins a tie there (PROTOCOL.md section 15).
        let display = ExtensionWire.Injection.function("() => getComputedStyle(document.querySelector('p')).display + ' ' + getComputedStyle(document.body).display", arguments: [])
        #expect(try run(7, .code("p { display: inline } body { display: flex }"), as: .insertCSS) == [answered(7, [])])
        #expect(try run(8, display) == [answered(8, [result(.string("inline flex"))])])
        #expect(try run(9, .code("p { display: inline } body { display: flex }"), as: .removeCSS) == [answered(9, [])])
        #expect(try run(10, display) == [answered(10, [result(.string("block block"))])])
        #expect(try run(11, .files([])) == [answered(11, [])], "no file, no run")
        // No page, or a page that goes before its script ends.
        #expect(try send(host, .inject(PageKey(TabID("t9")), request: 13, .insertCSS, .code("p {}")))
                == [.injected(request: 13, results: nil, error: "could not inject stylesheet on this tab")])
        _ = try run(12, .function("() => new Promise(() => {})", arguments: []))
        #expect(try send(host, .close(t1)) == [answered(12, [error("the page went before the script finished")])])
    }

    /// A page's local time is Safari's, in the offset the frame gives, as a background's is:
    /// one load at UTC+01:00, the next at UTC.
    @Test func aPagesLocalTimeIsTheFramesOffset() throws {
        let host = try host("pages-time")
        let east = try host.send(Self.load("t1", "https://a.example/"), now: Self.epoch, utcOffsetMinutes: 60)
        #expect(logs(east) == ["tab t1: local 10 -60 Sun Mar 01 2026 10:00:00 GMT+0100", "tab t1: random true"], "\(east)")
        let utc = try send(host, Self.load("t1", "https://a.example/"))
        #expect(logs(utc) == ["tab t1: local 9 0 Sun Mar 01 2026 09:00:00 GMT+0000 (Coordinated Universal Time)", "tab t1: random true"], "\(utc)")
    }

    @Test func nothingAPagesScriptCanReachBelongsToTheHostsRealmAndTimeIsTheFrames() throws {
        let host = try host("pages-escape")
        let first = try send(host, Self.load("t1", "https://a.example/"))
        #expect(logs(first) == [
            "tab t1: stack Error: here |    at Document.ready (start.js:3:87)",
            "tab t1: escapes EvalError EvalError EvalError EvalError EvalError EvalError",
            "tab t1: at the limit EvalError EvalError extension",
            "tab t1: import at the limit EvalError",
            "tab t1: clock true true Sun Mar 01 2026 09:00:00 GMT+0000 (Coordinated Universal Time) 9:00 AM object",
            "tab t1: import refused EvalError",
            "tab t1: Uncaught Error: late throws @ late.js:3:7",
        ], "\(logs(first))")
        #expect(first.last == .state(PageKey(TabID("t1")), state(classes: ["late"])), "the microtasks of a script that threw ran before the page was read")
        _ = try send(host, Self.load("t2", "https://b.example/"))
        let dark = try send(host, .appearance(.dark))
        #expect(logs(dark) == [
            "tab t1: Uncaught (in promise) Error: dark in https://a.example/ @ content.js:2:94",
            "tab t2: Uncaught (in promise) Error: dark in https://b.example/ @ content.js:2:94",
        ], "each page's rejection is its own: \(logs(dark))")
    }

    /// A page given its own document (`html`) is jsdom's, with the manifest's content script
    /// `css` applied before the page's own sheets: a content script finds by `*`,
    /// `[id*=…]` and `:not()`, walks it with a filtered TreeWalker, opens a shadow root, reads
    /// its stylesheet's rule and the frames' clock through `document.defaultView`, and hears text
    /// and child-list mutations in the turn that made them. An observer that never returns is
    /// stopped by the watchdog, and the page goes on.
    @Test func aPagesOwnDocumentIsARealDOMAndItsObserversRunUnderTheWatchdog() throws {
        let host = try host("page-document")
        let html = """
            <!DOCTYPE html><html><head><style>#box-x { color: rgb(1, 2, 3) }</style></head>
            <body><p id="px">a paragraph</p><div id="box-x">box</div><span>one</span><div><span>two</span></div><div id="host"></div>
            <script>document.body.dataset.ran = 'yes'</script></body></html>
            """
        let t1 = PageKey(TabID("t1"))
        let loaded = try send(host, .load(t1, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, html: html))
        #expect(logs(loaded).filter { !$0.hasPrefix("tab t1: random") } == [
            "tab t1: document box-x 7 one|two inside rgb(1, 2, 3) true true complete its own script did not run",
            // The manifest's css applies; the page's own rule wins a tie (above).
            "tab t1: extension css rgb(9, 8, 7)",
            "tab t1: records characterData,childList",
        ], "\(loaded)")
        let looped = try send(host, .message(.tab(t1), id: 2, message: .string("loop")))
        #expect(logs(looped).contains("tab t1: Uncaught Error: a script did not yield within 500 ms"), "\(looped)")
        let after = try send(host, .message(.tab(t1), id: 3, message: .string("count")))
        #expect(logs(after).first?.hasPrefix("tab t1: still here") == true, "\(after)")
    }

    /// What jsdom does later (a details element's toggle event, a postMessage's message) is a
    /// timer of the page, on the frames' clock, and runs in the page's turn under the watchdog;
    /// what jsdom stamps, and an iframe's window, read the frames' clock; a page's clearTimeout
    /// cannot reach jsdom's work; the page makes no request. A page that changes
    /// what every page shares (node's Function.prototype, reached through a DOM method) leaves a
    /// host that serves no other run.
    @Test func jsdomsOwnWorkRunsInThePagesTurnsOnTheFramesClock() throws {
        let host = try host("jsdom-work")
        let t1 = PageKey(TabID("t1"))
        let loaded = try send(host, Self.load("t1", "https://a.example/"))
        #expect(logs(loaded) == ["tab t1: stamps 0 0 true true", "tab t1: offline true true null", "tab t1: frame 0 true"], "\(loaded)")
        let timers = loaded.compactMap { output -> (PageLoad, Int, EpochMillis)? in
            if case .setTimer(let load, let number, let at) = output { (load, number, at) } else { nil }
        }
        #expect(timers.count == 2 && timers.allSatisfy { $0.2 == Self.epoch }, "the toggle and the message wait for a turn of their own: \(loaded)")
        var heard: [String] = []
        for (load, number, _) in timers { heard += logs(try host.send(.timer(load: load, number: number), now: Self.epoch + 5)) }
        #expect(heard == ["tab t1: toggle 5 5", "tab t1: message hello 5"], "each is heard when its turn comes, its event made then")
        let looping = try send(host, .message(.tab(t1), id: 1, message: .string("loop")))
        let next = try #require(looping.compactMap { output -> (PageLoad, Int)? in if case .setTimer(let load, let number, _) = output { (load, number) } else { nil } }.first)
        let looped = try host.send(.timer(load: next.0, number: next.1), now: Self.epoch)
        #expect(logs(looped) == ["tab t1: message loop 0", "tab t1: Uncaught Error: a script did not yield within 500 ms"], "\(looped)")
        #expect(logs(try send(host, .message(.tab(t1), id: 2, message: .string("count")))) == ["tab t1: still here"])
        let extensionFolder = Self.fixtures + "/jsdom-work"
        #expect(try send(host, .reset(extension: extensionFolder, seed: 1, platform: .iOS)) == [], "nothing shared was changed yet")
        _ = try send(host, Self.load("t1", "https://a.example/"))
        _ = try send(host, .message(.tab(t1), id: 3, message: .string("tamper")))
        let refused = try send(host, .reset(extension: extensionFolder, seed: 1, platform: .iOS))
        #expect(logs(refused) == ["pages: a page of an earlier run changed what every page shares (Function.prototype: harnessWasHere changed): this host serves no other run"],
                "\(refused)")
    }

    /// A host a run gave back is reset for the next (`PageHostPool`), whatever its extension: the
    /// last run's pages are gone, and a page loads as in a host started afresh for the new run's
    /// extension and seed. A host whose page changed what every page shares is not taken again.
    @Test func aHostGivenBackIsResetForTheNextRun() throws {
        let pool = PageHostPool()
        let command = PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(),
                                          extension: Self.fixtures + "/page-document", watchdogMilliseconds: 500)
        let html = #"<!DOCTYPE html><body><div id="box-x">box</div><span>one</span><div id="host"></div></body>"#
        let t1 = PageKey(TabID("t1"))
        let load = PageHost.Input.load(t1, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, html: html)
        let fresh = try send(PageHost(command, seed: 9), load)
        let minimal = PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(),
                                          extension: Self.fixtures + "/minimal", watchdogMilliseconds: 500)
        let first = try pool.take(minimal, seed: 9, platform: .iOS)
        #expect(try send(first, load) != fresh, "another extension's content script runs")
        pool.give(first)
        let again = try pool.take(command, seed: 8, platform: .iOS)
        #expect(again === first)
        #expect(try send(again, load) != fresh, "another seed draws other numbers")
        pool.give(again)
        let second = try pool.take(command, seed: 9, platform: .iOS)
        #expect(second === first && second.runs == 3)
        #expect(try send(second, .message(.tab(t1), id: 1, message: .string("count"))) == [.answer(id: 1, answer: nil, unreachable: true)],
                "the last run's page is gone")
        #expect(try send(second, load) == fresh)
        let tampering = PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(),
                                            extension: Self.fixtures + "/jsdom-work", watchdogMilliseconds: 500)
        pool.give(second)
        let third = try pool.take(tampering, seed: 9, platform: .iOS)
        #expect(third === first)
        _ = try send(third, Self.load("t1", "https://a.example/"))
        _ = try send(third, .message(.tab(t1), id: 1, message: .string("tamper")))
        pool.give(third)
        let fourth = try pool.take(command, seed: 9, platform: .iOS)
        #expect(fourth !== first && fourth.runs == 1, "a host whose page changed what every page shares is ended")
        #expect(try send(fourth, load) == fresh)
    }

    @Test func noPagesScriptRunsOutsideTheWatchdogOrEndsTheHost() throws {
        let host = try host("pages-outside")
        let load = try send(host, Self.load("t1", "https://a.example/"))
        #expect(logs(load) == [
            "tab t1: Uncaught Error: formatted without the script @ stack-formatter.js:4:7",
            "tab t1: Uncaught TypeError: Cannot redefine property: Error @ error-global.js:2:8",
            "tab t1: Uncaught a thrown object @ message-getter.js:2:15",
            "tab t1: Uncaught Error: a long stack",
            "tab t1: Uncaught a thrown object",
            "tab t1: Uncaught a proxy",
            "tab t1: Uncaught Error: not now @ broken-root.js:6:39",
        ], "\(logs(load))")
        #expect(!load.contains { if case .state = $0 { true } else { false } }, "a page its script broke is not read")
        #expect(try send(host, .show(PageKey(TabID("t1")), visible: false)) == [.state(PageKey(TabID("t1")), state(classes: ["kept"]))],
                "the host goes on, and reads the page once it can")
    }
}
