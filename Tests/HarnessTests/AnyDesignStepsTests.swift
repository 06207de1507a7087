import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The steps any extension's design can use: the App Group's defaults its app and handler
/// share, and checks of its storage and console. Their values are JSON, read whole from the line.
struct AnyDesignStepsTests {
    private func mistakes(_ text: String) -> [String] { ScenarioParserTests.mistakes(text) }

    /// A word that starts with a quote, a brace or a bracket is JSON: its spaces and `#`s are
    /// its own, and a `#` after it still starts a comment.
    @Test func aJSONWordKeepsItsSpacesAndHashes() {
        #expect(ScenarioParser.words(of: #"app set group g k {"a": "x # y", "b": [1, 2]}  # note"#)
                == ["app", "set", "group", "g", "k", #"{"a": "x # y", "b": [1, 2]}"#])
        #expect(ScenarioParser.words(of: ##"expect tab t1 page "#story .title" text contains "Break \"ing\"""##)
                == ["expect", "tab", "t1", "page", ##""#story .title""##, "text", "contains", ##""Break \"ing\"""##])
        // Brackets inside a word that is not JSON are plain characters.
        #expect(ScenarioParser.words(of: "tab open t1 https://a.example/{x # c") == ["tab", "open", "t1", "https://a.example/{x"])
        // Left open, it runs to the end of the line.
        #expect(ScenarioParser.words(of: #"group defaults g k "open # here"#) == ["group", "defaults", "g", "k", #""open # here"#])
    }

    /// A probe takes every step any extension can: the team's app, the extension's pages and
    /// popup, lifecycle and faults, and the checks of what it keeps.
    @Test func aProbeTakesTheStepsOfAnyDesign() throws {
        let text = """
            probe ../extensions/reader
            expect-failure invariant 16
            group defaults group.example.reading
            tab open t1 https://example.com/
            handler slow 5s
            popup open t1
            popup click toggle
            app set group group.example.reading on true
            background unload
            safari restart
            advance 1m
            expect popup closed
            expect background unloaded
            expect tab t1 page class reading-mode
            expect storage local sites absent
            expect console background contains "x"
            expect console tab t1 contains "y"

            """
        let scenario = try Scenario.parse(text, name: "s")
        #expect(scenario.steps.first == .probe("../extensions/reader"))
        #expect(try Scenario.parse(ScenarioPrinter.print(scenario.steps), name: "s").steps == scenario.steps)
    }

    @Test func theStepsReadAndPrintBackAsTheyWere() throws {
        let text = """
            extension ../extensions/reading-defaults pages
            group defaults group.example.reading
            group defaults group.example.reading "reading mode" {"on": true, "sites": ["a # b"], "size": 1.5}
            tab open t1 https://docs.example.com/
            app set group group.example.reading theme "sepia"
            app reset group group.example.reading "reading mode"
            expect group defaults group.example.reading theme "sepia"
            expect group defaults group.example.reading "reading mode" absent
            expect storage local sites includes {"docs.example.com": {"reading": true}}
            expect storage session lastTab 3 within 5s
            expect storage session empty null
            expect console background contains "loaded # settings"
            expect console tab t1 contains "applied"
            expect console popup contains "shows"
            expect tab t1 page "#story .title" text contains "Break # ing"
            expect tab t1 page "html" class reading-mode
            expect tab t1 page "#banner" absent
            expect tab t1 page "p" count=3
            expect tab t1 page "#story" attribute.lang=en
            expect tab t1 page "#story" style.background-color=red
            expect popup page "#status" text "Reading on"
            expect popup page "[data-x=\\"a b\\"]" no-class off
            expect action badge="2 new" enabled=false
            expect action tab t1 title="Links # here" badge="" popup="popup.html"
            menu click "open link" t1
            menu click save t1
            command toggle-dark
            action click t1
            popup click done
            options open
            options click save
            options choose size large print
            expect options page "#saved" text "Saved"
            tab click t1 more
            tab choose t1 size ""
            options close
            permission grant
            permission refuse
            permission revoke "https://*.example.org/*"

            """
        let scenario = try Scenario.parse(text, name: "s")
        #expect(scenario.steps[2] == .groupDefaults(suite: "group.example.reading", key: "reading mode",
                                                    value: .object(["on": .bool(true), "sites": .array([.string("a # b")]), "size": .double(1.5)])))
        #expect(scenario.steps[5] == .app(.resetGroup(suite: "group.example.reading", key: "reading mode")))
        #expect(scenario.steps[8] == .expect(.storage(.local, key: "sites", .includes(.object(["docs.example.com": .object(["reading": .bool(true)])])))))
        #expect(scenario.steps[11] == .expect(.console(.background, contains: "loaded # settings")))
        #expect(scenario.steps[22] == .expect(.action(nil, [ActionCheck(property: .badgeText, value: .string("2 new")), ActionCheck(property: .enabled, value: .bool(false))])))
        #expect(scenario.steps[24] == .menuClick("open link", TabID("t1")))
        #expect(scenario.steps[26] == .command("toggle-dark"))
        // A click on the toolbar item may open the popup over the tab: the popup's steps may follow.
        #expect(scenario.steps[27] == .actionClick(TabID("t1")))
        #expect(scenario.steps[28] == .popup(.click("done")))
        // The options page is the tab `options open` opened: its steps are that tab's.
        #expect(scenario.steps[29] == .optionsOpen)
        #expect(scenario.steps[30] == .tab(.click(.options, "save")))
        #expect(scenario.steps[31] == .tab(.choose(.options, "size", value: "large print")))
        #expect(scenario.steps[32] == .expect(.element(.tab(.options), selector: "#saved", .text("Saved"))))
        #expect(scenario.steps[34] == .tab(.choose(TabID("t1"), "size", value: "")))
        #expect(scenario.steps[35] == .tab(.close(.options)))
        #expect(scenario.steps[36] == .permission(granted: true))
        #expect(scenario.steps[37] == .permission(granted: false))
        #expect(scenario.steps[38] == .permissionRevoke("https://*.example.org/*"))
        #expect(scenario.steps[23] == .expect(.action(TabID("t1"), [ActionCheck(property: .title, value: .string("Links # here")),
                                                                    ActionCheck(property: .badgeText, value: .string("")),
                                                                    ActionCheck(property: .popup, value: .string("popup.html"))])))
        let printed = ScenarioPrinter.print(scenario.steps)
        #expect(try Scenario.parse(printed, name: "s").steps == scenario.steps, "\(printed)")
    }

    @Test(arguments: [
        ("group defaults g k sepia", "s:1: the value of k: sepia is not JSON"),
        ("group defaults g k sepia", #"a text is quoted: "sepia""#),
        (#"group defaults g k "sepia"#, #"s:1: the value of k: a quoted string left open: "sepia"#),
        ("group defaults g k null", "s:1: null cannot be kept in the App Group's defaults"),
        (#"group defaults g k {"a": [null]}"#, "s:1: null cannot be kept in the App Group's defaults"),
        ("group defaults g k", "s:1: missing the value of k"),
        ("group defaults a/b", "s:1: 'a/b' is not a suite name"),
        ("tab open t1 https://a.example/\nexpect group defaults g.x k 1", "s:2: no line names the suite 'g.x' (none does)"),
        ("group defaults g.y\ntab open t1 https://a.example/\nexpect group defaults g.x k 1",
         "s:3: no line names the suite 'g.x' (named: g.y): set it up with 'group defaults g.x', or set a key with 'app set group'; did you mean 'g.y'?"),
        ("tab open t1 https://a.example/\nexpect storage cloud k 1", "s:2: unknown storage area 'cloud' (expected local, session, sync)"),
        ("tab open t1 https://a.example/\nexpect console background contains loaded", "s:2: the text a line contains, in quotes (\"loaded\"): 'loaded' is not in quotes"),
        ("tab open t1 https://a.example/\nexpect console tab t1 contains \"x\"", "s:2: 'expect console tab t1' reads what the extension's own content scripts log"),
        ("tab open t1 https://a.example/\nexpect console popup contains \"x\"", "s:2: 'expect console popup' reads what the extension's own popup logs"),
        ("group defaults g k 1\ngroup defaults g k 2", "s:2: 'group defaults g k' is given twice (first on line 1)"),
        ("probe\nshared defaults mode=on\ntab open t1 https://a.example/", "s:2: a probe runs any extension, and this step needs the design's shared document and cache"),
        ("probe\ntab open t1 https://a.example/\nexpect tab t1 theme=gray", "s:3: a probe runs any extension, and this step needs the design's decisions"),
        ("probe\ntab open t1 https://a.example/\napp set default theme=dark", "s:3: a probe runs any extension, and this step needs the design's app"),
        ("probe\nexpect-failure invariant 6\ntab open t1 https://a.example/", "s:2: a probe runs any extension, and this step needs invariant 6, one of the design's"),
        ("probe\nextension e\ntab open t1 https://a.example/", "s:2: a probe runs any extension, and this step needs an extension of its own"),
        ("extension e pages\ntab open t1 https://a.example/\nexpect tab t1 page \"p\" txt \"a\"", "s:3: unknown check 'txt' (expected text \"T\", text contains \"T\", attribute.NAME=VALUE, class NAME, no-class NAME, style.NAME=VALUE, absent, count=N); did you mean 'text'?"),
        ("extension e pages\ntab open t1 https://a.example/\nexpect tab t1 page \"p\" count=many", "s:3: 'count=many': a count is a whole number (count=3)"),
        ("extension e pages\ntab open t1 https://a.example/\nexpect tab t1 page \"p\" text Reading", "s:3: its text, in quotes (or: contains \"T\"): 'Reading' is not in quotes"),
        ("extension e pages\ntab open t1 https://a.example/\nexpect tab t1 page \"p text \"x\"", "s:3: a selector in quotes"),
        ("extension e pages\ntab open t1 https://a.example/\nexpect popup page class x", "s:3: 'expect popup page' takes a selector in quotes first"),
        ("extension e pages\ntab open t1 https://a.example/\noptions click save", "s:3: 'options click' with no options page open (open it with 'options open')"),
        ("extension e pages\noptions open\noptions open", "s:3: the options page is already open in tab options (line 2)"),
        ("extension e pages\noptions open\noptions close\nexpect options page \"p\" absent", "s:4: 'expect options page' with no options page open"),
        ("extension e\ntab open t1 https://a.example/\noptions open", "s:3: 'options open' acts on the extension's own options page: name it with 'extension DIR pages' first"),
        ("extension e pages\ntab open t1 https://a.example/\ntab choose t1 size", "s:3: missing the option's value after 'tab choose t1 size'"),
        ("extension e\ntab open t1 https://a.example/\ntab click t1 go", "s:3: 'tab click' acts in a page the extension's own scripts run in"),
        ("extension e\ntab open t1 https://a.example/\npermission allow", "s:3: unknown word 'allow' (expected grant, refuse, revoke)"),
        ("tab open t1 https://a.example/\nexpect popup page \"p\" absent", "s:2: 'expect popup page' reads the extension's own popup"),
        ("expect action badge=3", #"s:1: badge=3: the value is a string in quotes; did you mean 'badge="3"'?"#),
        ("expect action enabled=maybe", "s:1: enabled=maybe: expected enabled=true or enabled=false"),
        ("expect action colour=\"red\"", "s:1: unknown key 'colour' (expected badge, title, popup, enabled)"),
        ("expect action badge=\"1\" badge=\"2\"", "s:1: 'badge' is checked twice on one line"),
        ("expect action tab t9 badge=\"1\"", "s:1: tab t9 was never opened"),
        ("expect action", "s:1: missing a value of the toolbar item"),
        ("tab open t1 https://a.example/\nmenu save t1", "s:2: unknown word 'save' (expected click)"),
        ("menu click save t2", "s:1: tab t2 was never opened"),
        ("action click t2", "s:1: tab t2 was never opened"),
        ("tab open t1 https://a.example/\naction press t1", "s:2: unknown word 'press' (expected click)"),
        ("tab open t1 https://a.example/\nmenu click \"open link t1", "s:2: the menu item's id: \"open link t1 is not one string in quotes"),
    ])
    func aMistakeIsNamedWithItsLine(text: String, message: String) {
        let found = mistakes(text)
        #expect(found.contains { $0.contains(message) }, "\(found)")
    }

    /// A suite's file as the team's handler keeps it: JSON values in, the same values out, and
    /// a property list's own values (a date, data) read as text.
    @Test func groupDefaultsReadBackWhatTheyWrite() throws {
        let values: [String: JSONValue] = ["on": .bool(true), "count": .integer(3), "size": .double(1.5), "name": .string("sepia"),
                                           "list": .array([.integer(1), .string("x")]), "nested": .object(["off": .bool(false)])]
        #expect(try GroupDefaults.read(try GroupDefaults.write(values)) == values)
        #expect(try GroupDefaults.read(nil) == [:])
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>when</key><date>2026-03-01T09:00:00Z</date><key>bytes</key><data>AAEC</data></dict></plist>
            """
        #expect(try GroupDefaults.read(Array(plist.utf8)) == ["when": .string("2026-03-01T09:00:00Z"), "bytes": .string("AAEC")])
        #expect(throws: GroupDefaults.Unreadable.self) { try GroupDefaults.read(Array("not a plist".utf8)) }
    }

    /// A check of an element fails showing the element whole (its outer HTML, cut); a selector
    /// the page's DOM refuses fails naming it.
    @Test func anElementCheckShowsWhatItFound() throws {
        let title = PageQuery.Element(html: #"<h1 class="title">Breaking   news</h1>"#, text: "Breaking \n  news", classes: ["title"],
                                      attributes: ["class": "title"], style: ["color": "red"])
        let two = PageQuery(count: 2, first: title)
        #expect(ElementCheck.text("Breaking news").problem(two, selector: "h1") == nil)
        #expect(ElementCheck.textContains("news").problem(two, selector: "h1") == nil)
        #expect(ElementCheck.style("color", "red").problem(two, selector: "h1") == nil)
        #expect(ElementCheck.hasClass("dark").problem(two, selector: "h1")
                == #""h1" class dark: not so, the first of 2 is <h1 class="title">Breaking   news</h1>"#)
        #expect(ElementCheck.count(3).problem(two, selector: "h1") == #""h1": expected 3 elements, found 2"#)
        #expect(ElementCheck.absent.problem(two, selector: "h1")?.hasPrefix(#""h1": expected no element, found 2: <h1"#) == true)
        #expect(ElementCheck.text("x").problem(PageQuery(count: 0, first: nil), selector: "h2") == #""h2": no element matches"#)
        let long = PageQuery(count: 1, first: PageQuery.Element(html: String(repeating: "x", count: 400), text: "", classes: [], attributes: [:], style: [:]))
        #expect(ElementCheck.hasClass("a").problem(long, selector: "p")?.hasSuffix("… (400 characters)") == true)
        let refused = PageQuery(count: 0, first: nil, refused: "the selector \"a > b\" is beyond the harness's small DOM")
        #expect(ElementCheck.absent.problem(refused, selector: "a > b")?.contains("the page's DOM does not take it") == true)
    }

    /// Values compare as values: numbers by value, objects whatever their keys' order; `includes`
    /// looks at the members named, at any depth.
    @Test func valuesCompareAsValues() throws {
        let found = try JSONParser.parse(#"{"b": [1, 2], "a": {"x": 1.0, "y": "z"}}"#)
        #expect(ValueCheck.equals(try JSONParser.parse(#"{"a": {"y": "z", "x": 1}, "b": [1, 2.0]}"#)).problem(found) == nil)
        #expect(ValueCheck.equals(try JSONParser.parse(#"{"a": {"x": 1}, "b": [1, 2]}"#)).problem(found) != nil)
        #expect(ValueCheck.includes(try JSONParser.parse(#"{"a": {"x": 1}}"#)).problem(found) == nil)
        #expect(ValueCheck.includes(try JSONParser.parse(#"{"a": {"x": 2}}"#)).problem(found)?.contains(#"found {"#) == true)
        #expect(ValueCheck.includes(try JSONParser.parse(#"{"b": [1]}"#)).problem(found) != nil)
        #expect(ValueCheck.absent.problem(nil) == nil && ValueCheck.absent.problem(.integer(1)) == "expected it absent, found 1")
    }
}

/// The team's app played by the harness, on the simulated disk: what it sets is what the
/// expectations read, and a wrong expectation fails showing what was there.
struct TeamAppStepsTests {
    @Test func theTeamsAppSetsAndResetsAnAppGroupDefault() throws {
        let text = """
            group defaults group.example.reading theme "gray"
            tab open t1 https://docs.example.com/
            settle
            expect group defaults group.example.reading theme "gray"
            app set group group.example.reading theme "sepia"
            app set group group.example.reading sites {"docs.example.com": {"reading": true}}
            expect group defaults group.example.reading theme "sepia"
            expect group defaults group.example.reading sites includes {"docs.example.com": {}}
            app reset group group.example.reading theme
            expect group defaults group.example.reading theme absent
            expect group defaults group.example.reading sites "docs.example.com"
            """
        let failures = try HarnessBinary.failures(text, name: "team-app.scenario")
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?.contains(#"group defaults group.example.reading sites: expected "docs.example.com", found {"docs.example.com":{"reading":true}}"#) == true,
                "\(failures)")
    }

    /// `app dispatch` reaches the native port a loaded background holds (the built-in one opens
    /// it as it starts, on macOS), with the message whole; with no background loaded it is lost,
    /// and the trace says so. On iOS it is a mistake.
    @Test func theTeamsAppDispatchReachesAnOpenPortOrIsLost() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dispatch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = """
            platform macos
            app dispatch early {"n": 1}
            tab open t1 https://docs.example.com/
            settle
            app dispatch themeChanged {"theme": "sepia"}
            settle
            """
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "dispatch.scenario"), transport: .inProcess, seed: 1,
                                         executables: HarnessBinary.executables, directory: folder).run()
        let trace = outcome.trace.joined(separator: "\n")
        #expect(trace.contains("harness the team's app dispatches early to the extension\n+0.000s harness message to the extension failed: no native port is open (NotConnected)"), "\(trace)")
        #expect(trace.contains(#"background#1 <- {"message":{"name":"themeChanged","userInfo":{"theme":"sepia"}},"type":"appMessageArrived"}"#), "\(trace)")
        #expect(throws: ScenarioErrors.self) { try Scenario.parse("app dispatch x {}", name: "ios.scenario") }
    }

    /// On iOS, the app coming to the front sends Safari to the background: the background
    /// freezes, as for the design's own app.
    @Test func theTeamsAppComesToTheFrontFirst() throws {
        let text = """
            tab open t1 https://docs.example.com/
            settle
            app set group group.example.reading theme "sepia"
            expect background frozen
            """
        #expect(try HarnessBinary.failures(text, name: "front.scenario") == [])
    }
}
