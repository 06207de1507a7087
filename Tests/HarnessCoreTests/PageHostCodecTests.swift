import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The page host's codec (`PageHost.Input`, `PageHost.Output`): each input as the exact JSON
/// `pages.mjs` reads, each output read from the JSON it writes, and an output it does not write
/// reported with its number and what is wrong with it.
struct PageHostCodecTests {
    private static let t1 = TabID("t1"), t2 = TabID("t2")
    /// Their pages, in the default profile, and t1's in the profile `work`.
    private static let p1 = PageKey(t1), p2 = PageKey(t2), work1 = PageKey(t1, profile: "work")

    /// Every input, with the text it travels as (keys sorted, as `JSONWriter.compact` writes
    /// them); a member that is nil is left out.
    static let inputs: [(PageHost.Input, String)] = [
        (.load(p1, url: "https://a.example/", visible: true, appearance: .dark, nativeDark: false),
         #"{"appearance":"dark","nativeDark":false,"tab":"t1","type":"load","url":"https://a.example/","visible":true}"#),
        (.load(p2, url: "https://b.example/", visible: false, appearance: .light, nativeDark: nil),
         #"{"appearance":"light","tab":"t2","type":"load","url":"https://b.example/","visible":false}"#),
        (.close(p2), #"{"tab":"t2","type":"close"}"#),
        (.show(p1, visible: false), #"{"tab":"t1","type":"show","visible":false}"#),
        (.appearance(.dark), #"{"appearance":"dark","type":"appearance"}"#),
        (.answer(id: 4, answer: .object(["ok": .bool(true)])), #"{"answer":{"ok":true},"id":4,"type":"answer"}"#),
        (.answer(id: 5, answer: nil), #"{"id":5,"type":"answer"}"#),
        (.nativeDark(p1, nativeDark: true), #"{"nativeDark":true,"tab":"t1","type":"nativeDark"}"#),
        (.message(.tab(p1), id: 2, message: .string("hi")), #"{"id":2,"message":"hi","tab":"t1","type":"message"}"#),
        (.message(.popup, id: 3, message: .object(["kind": .string("x")])), #"{"id":3,"message":{"kind":"x"},"popup":true,"type":"message"}"#),
        (.openPopup(t2, appearance: .light, tabs: [PageHost.PopupTab(id: t1, url: "https://a.example/", windowId: 1, active: false),
                                                   PageHost.PopupTab(id: t2, url: "https://b.example/", windowId: 2, active: true)], windowId: 2),
         #"{"appearance":"light","tab":"t2","tabs":[{"active":false,"id":"t1","url":"https://a.example/","windowId":1},"# +
         #"{"active":true,"id":"t2","url":"https://b.example/","windowId":2}],"type":"openPopup","windowId":2}"#),
        (.openPopup(t1, appearance: .dark, tabs: nil, windowId: nil), #"{"appearance":"dark","tab":"t1","type":"openPopup"}"#),
        (.tabs([PageHost.PopupTab(id: t1, url: "https://a.example/", windowId: 3, active: true)]),
         #"{"tabs":[{"active":true,"id":"t1","url":"https://a.example/","windowId":3}],"type":"tabs"}"#),
        (.tabs([]), #"{"tabs":[],"type":"tabs"}"#),
        (.tabs([], frontWindow: 2, focusedWindow: -1), #"{"focusedWindow":-1,"frontWindow":2,"tabs":[],"type":"tabs"}"#),
        (.closePopup(hide: true), #"{"hide":true,"type":"closePopup"}"#),
        (.click(element: "box"), #"{"element":"box","popup":true,"type":"click"}"#),
        (.choose(element: "size", value: "small"), #"{"element":"size","popup":true,"type":"choose","value":"small"}"#),
        (.click(element: "save", page: .tab(work1)), #"{"element":"save","tab":"work/t1","type":"click"}"#),
        (.choose(element: "size", value: "", page: .tab(p1)), #"{"element":"size","tab":"t1","type":"choose","value":""}"#),
        (.portMessage(port: 1, message: .array([.integer(1), .null])), #"{"message":[1,null],"port":1,"type":"portMessage"}"#),
        (.portDisconnected(port: 2, error: "gone"), #"{"error":"gone","port":2,"type":"portDisconnected"}"#),
        (.portDisconnected(port: 3, error: nil), #"{"port":3,"type":"portDisconnected"}"#),
        (.portOpened(p1, port: -2, name: "words"), #"{"name":"words","port":-2,"tab":"t1","type":"portOpened"}"#),
        (.timer(load: PageLoad(.tab(p1), number: 2), number: 7), #"{"page":"tab t1#2","timer":7,"type":"timer"}"#),
        (.timer(load: PageLoad(.tab(work1), number: 3), number: 1), #"{"page":"tab work/t1#3","timer":1,"type":"timer"}"#),
        (.close(work1), #"{"tab":"work/t1","type":"close"}"#),
        (.reset(extension: "/x/reader", seed: 18_446_744_073_709_551_615, platform: .macOS),
         #"{"extension":"/x/reader","platform":"macos","seed":"18446744073709551615","type":"reset"}"#),
        (.query(.tab(p1), selector: "#story .title"), ##"{"selector":"#story .title","tab":"t1","type":"query"}"##),
        (.query(.popup, selector: "p"), #"{"popup":true,"selector":"p","type":"query"}"#),
        (.load(p1, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, storage: "/run/extension-storage"),
         #"{"appearance":"light","storage":"/run/extension-storage","tab":"t1","type":"load","url":"https://a.example/","visible":true}"#),
        (.load(p1, url: "https://a.example/", visible: true, appearance: .light, nativeDark: nil, html: "<p id=\"x\">Hi</p>"),
         #"{"appearance":"light","html":"<p id=\"x\">Hi</p>","tab":"t1","type":"load","url":"https://a.example/","visible":true}"#),
        (.storageChanged(storage: "/run/extension-storage", area: "sync", changes: .object(["color": .object(["newValue": .string("green")])])),
         #"{"area":"sync","changes":{"color":{"newValue":"green"}},"storage":"/run/extension-storage","type":"storageChanged"}"#),
        (.inject(p1, request: 3, .executeScript, .function("(a) => a", arguments: [.integer(1)])),
         #"{"args":[1],"func":"(a) => a","method":"executeScript","request":3,"tab":"t1","type":"inject"}"#),
        (.inject(work1, request: 4, .insertCSS, .files(["a.css"])), #"{"files":["a.css"],"method":"insertCSS","request":4,"tab":"work/t1","type":"inject"}"#),
        (.inject(p2, request: 5, .removeCSS, .code("p {}")), #"{"code":"p {}","method":"removeCSS","request":5,"tab":"t2","type":"inject"}"#),
        (.permissionsAnswered(id: 2, granted: true), #"{"granted":true,"id":2,"type":"permissionsAnswered"}"#),
        (.action({ var action = ExtensionAction(); action.set(.badgeText, to: .string("G"), tab: nil); return action }(), storage: "/run/extension-storage"),
         #"{"action":{"default":{"badgeText":"G"}},"storage":"/run/extension-storage","type":"action"}"#),
        (.alarms(["remind": ExtensionWire.Alarm(at: 1_772_355_660_000, period: 60_000)], storage: "/run/extension-storage"),
         #"{"alarms":{"remind":{"at":1772355660000,"period":60000}},"storage":"/run/extension-storage","type":"alarms"}"#),
        (.windowFocus(windowId: -1, storage: "/run/extension-storage"), #"{"storage":"/run/extension-storage","type":"windowFocus","windowId":-1}"#),
        (.tabEvent(.tabClosed(t1), tabId: .integer(1), windowId: 2, storage: "/run/extension-storage"),
         #"{"event":{"tab":"t1","type":"tabClosed"},"storage":"/run/extension-storage","tabId":1,"type":"tabEvent","windowId":2}"#),
        (.alarmFired(name: "", storage: "/run/extension-storage"), #"{"name":"","storage":"/run/extension-storage","type":"alarmFired"}"#),
        (.menus([ExtensionMenuItem(id: .string("save"), title: "Save")], storage: "/run/extension-storage"),
         #"{"items":[{"checked":false,"contexts":["page"],"enabled":true,"id":"save","title":"Save","type":"normal","visible":true}],"storage":"/run/extension-storage","type":"menus"}"#),
        (.menuClicked(.menuClicked(id: .string("save"), parentId: nil, tab: t1, url: "https://a.example/", checked: nil, wasChecked: nil), tabId: .integer(1),
                      storage: "/run/extension-storage"),
         #"{"event":{"id":"save","tab":"t1","type":"menuClicked","url":"https://a.example/"},"storage":"/run/extension-storage","tabId":1,"type":"menuClicked"}"#),
        (.commandPressed("toggle", tab: nil, storage: "/run/extension-storage"), #"{"name":"toggle","storage":"/run/extension-storage","type":"commandPressed"}"#),
        (.actionClicked(PageHost.PopupTab(id: t1, url: "https://a.example/", windowId: 1, active: true, number: 1), storage: "/run/extension-storage"),
         #"{"storage":"/run/extension-storage","tab":{"active":true,"id":"t1","number":1,"url":"https://a.example/","windowId":1},"type":"actionClicked"}"#),
        (.permissionsChanged(storage: "/run/extension-storage", added: false, permissions: [], origins: ["https://*.example.org/*"]),
         #"{"change":"removed","origins":["https://*.example.org/*"],"permissions":[],"storage":"/run/extension-storage","type":"permissionsChanged"}"#),
        (.tabsAnswered(id: 3, tab: PageHost.PopupTab(id: TabID("x1"), url: "https://a.example/", windowId: 1, active: true, number: 4), error: nil),
         #"{"id":3,"tab":{"active":true,"id":"x1","number":4,"url":"https://a.example/","windowId":1},"type":"tabsAnswered"}"#),
        (.tabsAnswered(id: 4, tab: nil, error: "Invalid call to tabs.update(). Tab not found: x9."),
         #"{"error":"Invalid call to tabs.update(). Tab not found: x9.","id":4,"type":"tabsAnswered"}"#),
    ]

    @Test(arguments: inputs)
    func anInputTravelsAsTheJSONThePagesRead(_ input: PageHost.Input, _ text: String) {
        #expect(String(decoding: JSONWriter.compact(input.json), as: UTF8.self) == text)
    }

    /// The input's `type` on the wire; a new input is a new case here, and an example above.
    private static func type(_ input: PageHost.Input) -> String {
        switch input {
        case .load: "load"
        case .close: "close"
        case .show: "show"
        case .appearance: "appearance"
        case .answer: "answer"
        case .nativeDark: "nativeDark"
        case .message: "message"
        case .openPopup: "openPopup"
        case .tabs: "tabs"
        case .closePopup: "closePopup"
        case .click: "click"
        case .choose: "choose"
        case .portMessage: "portMessage"
        case .portDisconnected: "portDisconnected"
        case .portOpened: "portOpened"
        case .timer: "timer"
        case .query: "query"
        case .storageChanged: "storageChanged"
        case .reset: "reset"
        case .inject: "inject"
        case .permissionsAnswered: "permissionsAnswered"
        case .permissionsChanged: "permissionsChanged"
        case .action: "action"
        case .actionClicked: "actionClicked"
        case .commandPressed: "commandPressed"
        case .alarms: "alarms"
        case .tabEvent: "tabEvent"
        case .windowFocus: "windowFocus"
        case .alarmFired: "alarmFired"
        case .tabsAnswered: "tabsAnswered"
        case .menus: "menus"
        case .menuClicked: "menuClicked"
        }
    }

    @Test func theExamplesHaveEveryInputAndEachIsNamedByItsType() {
        #expect(Set(Self.inputs.map { Self.type($0.0) }) == ["load", "close", "show", "appearance", "answer", "nativeDark", "message", "openPopup", "tabs",
                                                             "closePopup", "click", "choose", "portMessage", "portDisconnected", "portOpened", "timer", "query",
                                                             "storageChanged", "reset", "inject", "permissionsAnswered", "permissionsChanged", "action", "actionClicked", "commandPressed", "alarms", "alarmFired", "tabEvent", "windowFocus", "tabsAnswered",
                                                             "menus", "menuClicked"])
        for (input, _) in Self.inputs { #expect(input.json.member("type") == .string(Self.type(input)), "\(input)") }
    }

    @Test func aFrameCarriesTheTimeAndTheInput() {
        #expect(String(decoding: PageHost.Input.close(Self.p1).frame(now: 1_772_355_600_000), as: UTF8.self) ==
                #"{"input":{"tab":"t1","type":"close"},"now":1772355600000}"#)
    }

    // MARK: - Outputs

    private static func state() -> PageState {
        var state = PageState()
        state.style = ["color": "red"]
        state.classes = ["dark"]
        state.data = ["theme": "night"]
        state.attributes = ["lang": "en"]
        state.styles = ["a{}"]
        return state
    }

    /// Every output's form as `pages.mjs` writes it, with what it reads as.
    static let outputs: [(String, PageHost.Output)] = [
        (#"{"type":"sendMessage","id":1,"message":{"a":1},"tab":"t1"}"#, .sendMessage(id: 1, from: .tab(p1), message: .object(["a": .integer(1)]))),
        (#"{"type":"sendMessage","id":2,"message":null,"popup":true}"#, .sendMessage(id: 2, from: .popup, message: .null)),
        (#"{"type":"answer","id":3,"answer":"yes"}"#, .answer(id: 3, answer: .string("yes"), unreachable: false)),
        (#"{"type":"answer","id":4}"#, .answer(id: 4, answer: nil, unreachable: false)),
        (#"{"type":"answer","id":5,"unreachable":true}"#, .answer(id: 5, answer: nil, unreachable: true)),
        (#"{"type":"page","tab":"t2","state":{"style":{"color":"red"},"classes":["dark"],"data":{"theme":"night"},"attributes":{"lang":"en"},"styles":["a{}"]}}"#,
         .state(p2, state())),
        (#"{"type":"log","page":"tab t1","level":"error","text":"Uncaught Error: no","at":"content.js:1:2"}"#,
         .log(page: .tab(p1), level: "error", text: "Uncaught Error: no", at: "content.js:1:2")),
        (#"{"type":"log","page":"popup","level":"log","text":"ready"}"#, .log(page: .popup, level: "log", text: "ready", at: nil)),
        (#"{"type":"log","page":"pages","level":"error","text":"no"}"#, .log(page: nil, level: "error", text: "no", at: nil)),
        (#"{"type":"log","page":"tab work/t1","level":"log","text":"w"}"#, .log(page: .tab(work1), level: "log", text: "w", at: nil)),
        (#"{"type":"setTimer","page":"tab t1#1","timer":2,"at":1772355601000}"#, .setTimer(load: PageLoad(.tab(p1), number: 1), number: 2, at: 1_772_355_601_000)),
        (#"{"type":"cancelTimer","page":"popup#3","timer":2}"#, .cancelTimer(load: PageLoad(.popup, number: 3), number: 2)),
        (#"{"type":"connect","port":1,"name":"first","tab":"t1"}"#, .connect(port: 1, name: "first", from: .tab(p1))),
        (#"{"type":"connect","port":2,"name":"","popup":true}"#, .connect(port: 2, name: "", from: .popup)),
        (#"{"type":"portPost","port":1,"message":"hello"}"#, .postOnPort(port: 1, message: .string("hello"))),
        (#"{"type":"portDisconnect","port":2}"#, .disconnectPort(port: 2)),
        (#"{"type":"portDisconnect","port":-1,"unheard":true}"#, .disconnectPort(port: -1, unheard: true)),
        (#"{"type":"queried","found":{"count":2,"first":{"html":"<p class=\"a\">x</p>","text":"x","classes":["a"],"attributes":{"class":"a"},"style":{"color":"red"}}}}"#,
         .queried(PageQuery(count: 2, first: PageQuery.Element(html: #"<p class="a">x</p>"#, text: "x", classes: ["a"], attributes: ["class": "a"], style: ["color": "red"])))),
        (#"{"type":"queried","found":{"count":0,"first":null}}"#, .queried(PageQuery(count: 0, first: nil))),
        (#"{"type":"queried","found":{"error":"beyond"}}"#, .queried(PageQuery(count: 0, first: nil, refused: "beyond"))),
        (#"{"type":"queried","found":null}"#, .queried(nil)),
        (#"{"type":"storageChanged","popup":true,"area":"sync","changes":{"color":{"newValue":"green"}}}"#,
         .storageChanged(from: .popup, area: "sync", changes: .object(["color": .object(["newValue": .string("green")])]))),
        (#"{"type":"injected","request":3,"results":[{"frameId":0,"result":5},{"frameId":0,"error":"no"}]}"#,
         .injected(request: 3, results: .array([.object(["frameId": .integer(0), "result": .integer(5)]), .object(["frameId": .integer(0), "error": .string("no")])]),
                   error: nil)),
        (#"{"type":"injected","request":4,"error":"could not execute script on this tab"}"#,
         .injected(request: 4, results: nil, error: "could not execute script on this tab")),
        (#"{"type":"openOptionsPage","popup":true}"#, .openOptionsPage(from: .popup)),
        (#"{"type":"tabsCall","id":1,"popup":true,"call":{"method":"create","url":"https://help.example.com/","active":true}}"#,
         .tabsCall(id: 1, from: .popup, call: .create(url: "https://help.example.com/", active: true))),
        (#"{"type":"tabsCall","id":2,"tab":"options","call":{"method":"remove","tabs":["x1"]}}"#,
         .tabsCall(id: 2, from: .tab(PageKey(name: "options")), call: .remove([TabID("x1")]))),
        (#"{"type":"messageTab","id":5,"popup":true,"to":"t1","message":{"type":"size?"}}"#,
         .messageTab(id: 5, from: .popup, to: TabID("t1"), message: .object(["type": .string("size?")]))),
        (#"{"type":"sendMessage","id":4,"tab":"options","message":"allow","userGesture":true}"#,
         .sendMessage(id: 4, from: .tab(PageKey(name: "options")), message: .string("allow"), userGesture: true)),
        (#"{"type":"openOptionsPage","tab":"x1"}"#, .openOptionsPage(from: .tab(PageKey(name: "x1")))),
        (#"{"type":"requestPermissions","id":3,"tab":"options","permissions":["tabs"],"origins":["https://*.example.org/*"]}"#,
         .requestPermissions(id: 3, from: .tab(PageKey(name: "options")), permissions: ["tabs"], origins: ["https://*.example.org/*"])),
        (#"{"type":"tabsCall","id":1,"popup":true,"call":{"method":"executeScript","tab":"t1","code":"1"}}"#,
         .tabsCall(id: 1, from: .popup, call: .inject(.executeScript, TabID("t1"), .code("1")))),
        (#"{"type":"setAlarm","popup":true,"at":1772355660000,"name":"remind","period":60000}"#,
         .setAlarm(from: .popup, at: 1_772_355_660_000, name: "remind", period: 60_000)),
        (#"{"type":"clearAlarm","tab":"options","name":""}"#, .clearAlarm(from: .tab(PageKey(name: "options")), name: "")),
        (#"{"type":"permissionsRemoved","popup":true,"permissions":["tabs"],"origins":[]}"#,
         .permissionsRemoved(from: .popup, permissions: ["tabs"], origins: [])),
        (#"{"type":"actionSet","tab":"options","for":"t1","property":"title","value":"Large"}"#,
         .actionSet(from: .tab(PageKey(name: "options")), tab: TabID("t1"), property: .title, value: .string("Large"))),
        (#"{"type":"actionSet","popup":true,"property":"badgeText","value":null}"#, .actionSet(from: .popup, tab: nil, property: .badgeText, value: .null)),
        (#"{"type":"menuChanged","popup":true,"op":"create","item":{"id":"save","title":"Save","contexts":["page"],"type":"normal","checked":false,"enabled":true,"visible":true}}"#,
         .menuChanged(from: .popup, .create(ExtensionMenuItem(id: .string("save"), title: "Save")))),
        (#"{"type":"menuChanged","tab":"options","op":"update","item":{"id":1,"title":"Pin","type":"checkbox","checked":true}}"#,
         .menuChanged(from: .tab(PageKey(name: "options")), .update(ExtensionMenuItem(id: .integer(1), title: "Pin", type: "checkbox", checked: true)))),
        (#"{"type":"menuChanged","popup":true,"op":"remove","id":"save"}"#, .menuChanged(from: .popup, .remove(.string("save")))),
        (#"{"type":"menuChanged","popup":true,"op":"removeAll"}"#, .menuChanged(from: .popup, .removeAll)),
    ]

    @Test(arguments: outputs)
    func anOutputReadsAsWhatThePageDid(_ text: String, _ output: PageHost.Output) throws {
        #expect(try PageHost.Output.decode(frame: Array(#"{"outputs":[\#(text)]}"#.utf8)) == [output])
    }

    @Test func aFramesOutputsKeepTheirOrder() throws {
        let frame = "{\"outputs\":[" + Self.outputs.map(\.0).joined(separator: ",") + "]}"
        #expect(try PageHost.Output.decode(frame: Array(frame.utf8)) == Self.outputs.map(\.1))
        #expect(try PageHost.Output.decode(frame: Array(#"{"outputs":[]}"#.utf8)) == [])
    }

    /// Outputs `pages.mjs` does not write, each with the failure that names it (the second of
    /// its frame).
    static let malformed: [(String, String)] = [
        (#"{"type":"foo","port":1}"#, "output 2: unknown type 'foo'"),
        (#"{"type":"setAlarm","popup":true,"at":1,"name":"x","period":0}"#, "output 2 (setAlarm): 'period' is not an integer above 0"),
        (#"{"type":"actionSet","popup":true,"property":"colour","value":1}"#, "output 2 (actionSet): 'property': \(ExtensionAction.expectedProperty)"),
        (#"{"type":"menuChanged","popup":true,"op":"add"}"#, "output 2 (menuChanged): 'op' is not create, update, remove or removeAll"),
        (#"{"type":"menuChanged","popup":true,"op":"remove","id":1.5}"#, "output 2 (menuChanged): 'id' is not a string or a whole number"),
        (#"{"type":"menuChanged","popup":true,"op":"create","item":{"title":"x"}}"#, "output 2 (menuChanged): item.id: expected a string or an integer"),
        (#"3"#, "output 2: not an object"),
        (#"{"port":1}"#, "output 2: no string 'type'"),
        (#"{"type":"setTimer","page":"tab t1#1","timer":"2","at":5}"#, "output 2 (setTimer): no integer 'timer'"),
        (#"{"type":"setTimer","page":"tab t1#1","timer":2}"#, "output 2 (setTimer): no integer 'at'"),
        (#"{"type":"cancelTimer","timer":2}"#, "output 2 (cancelTimer): no string 'page'"),
        (#"{"type":"storageChanged","tab":"t1","area":"cloud","changes":{}}"#, "output 2 (storageChanged): 'area' is not local, session or sync"),
        (#"{"type":"storageChanged","tab":"t1","area":"local","changes":[]}"#, "output 2 (storageChanged): 'changes' is not an object"),
        (#"{"type":"cancelTimer","page":"tab t1","timer":2}"#, "output 2 (cancelTimer): 'page' names no page's load: 'tab t1'"),
        (#"{"type":"setTimer","page":"frame#1","timer":2,"at":5}"#, "output 2 (setTimer): 'page' names no page's load: 'frame#1'"),
        (#"{"type":"log","page":"frame","level":"log","text":"x"}"#, "output 2 (log): 'page' names no page: 'frame'"),
        (#"{"type":"sendMessage","id":1,"message":1,"tab":"t1","popup":true}"#, "output 2 (sendMessage): both 'tab' and 'popup'"),
        (#"{"type":"sendMessage","id":1,"message":1}"#, "output 2 (sendMessage): no string 'tab' and no 'popup': true"),
        (#"{"type":"sendMessage","id":1,"tab":"t1"}"#, "output 2 (sendMessage): no 'message'"),
        (#"{"type":"connect","port":1,"tab":"t1"}"#, "output 2 (connect): no string 'name'"),
        (#"{"type":"answer","id":1,"unreachable":false}"#, "output 2 (answer): 'unreachable' is neither true nor left out"),
        (#"{"type":"page","tab":"t1","state":"dark"}"#, "output 2 (page): no object 'state'"),
        (#"{"type":"log","page":"popup","level":"log"}"#, "output 2 (log): no string 'text'"),
        (#"{"type":"portPost","port":1,"message":2,"extra":true}"#, "output 2 (portPost): unexpected member 'extra'"),
        (#"{"type":"portDisconnect","port":1.5}"#, "output 2 (portDisconnect): no integer 'port'"),
        (#"{"type":"injected","request":1,"results":[],"error":"no"}"#, "output 2 (injected): neither an array 'results' nor a string 'error'"),
        (#"{"type":"injected","request":1}"#, "output 2 (injected): neither an array 'results' nor a string 'error'"),
        (#"{"type":"openOptionsPage","tab":"t1","page":"options.html"}"#, "output 2 (openOptionsPage): unexpected member 'page'"),
        (#"{"type":"requestPermissions","id":1,"popup":true,"permissions":[1],"origins":[]}"#, "output 2 (requestPermissions): 'permissions' holds what is not a string"),
        (#"{"type":"tabsCall","id":1,"popup":true,"call":{"method":"requestPermissions","permissions":[],"origins":[]}}"#,
         "output 2 (tabsCall): a page's tabs call is create, update, reload, remove or an injection (a permission request is its own output)"),
        (#"{"type":"tabsCall","id":1,"popup":true,"call":{"method":"create"}}"#, "output 2 (tabsCall): call: url: expected a string"),
    ]

    @Test(arguments: malformed)
    func anOutputThePagesDoNotWriteIsReportedByNumber(_ text: String, _ problem: String) {
        let frame = #"{"outputs":[{"type":"portDisconnect","port":9},\#(text)]}"#
        #expect("the pages' runtime sent " + problem == Self.failure(frame)?.description)
    }

    @Test func anUnknownOutputIsAFailureNamingItsTypeAndPlace() {
        #expect(Self.failure(#"{"outputs":[{"type":"portDisconnect","port":9},{"type":"foo"}]}"#) ==
                .malformedOutput(number: 2, type: nil, problem: "unknown type 'foo'"))
        #expect(Self.failure(#"{"outputs":[{"type":"setTimer","page":"popup#1","at":5}]}"#) ==
                .malformedOutput(number: 1, type: "setTimer", problem: "no integer 'timer'"))
    }

    @Test func aFrameThatIsNotOutputsIsAFailureShowingIt() {
        #expect(Self.failure(#"{"output":[]}"#) == .notOutputs(#"{"output":[]}"#))
        #expect(Self.failure(#"{"outputs":{}}"#) == .notOutputs(#"{"outputs":{}}"#))
    }

    /// How reading `frame` fails, or nil when it does not.
    private static func failure(_ frame: String) -> PageHost.Failure? {
        do {
            _ = try PageHost.Output.decode(frame: Array(frame.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// A page host that writes an output it should not: `send` reports it, where it used to
    /// leave it out.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed"))
    func aHostThatWritesAnUnknownOutputFailsTheInput() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/unknown-output-host.mjs").path
        let host = try PageHost(ProcessExecutables.Command(path: try #require(ExtensionRuntime.installedNode), arguments: [script]), seed: 1)
        #expect(throws: PageHost.Failure.malformedOutput(number: 2, type: nil, problem: "unknown type 'foo'")) {
            try host.send(.close(Self.p1), now: 0)
        }
    }

    /// Every input the codec writes is one `pages.mjs` takes: none is answered with its
    /// refusal, and each is answered with outputs it reads.
    @Test(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed"))
    func thePageHostTakesEveryInputTheCodecWrites() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/extensions/module-popup").path
        let host = try PageHost(PageRuntime.command(node: try #require(ExtensionRuntime.installedNode), runtime: try PageRuntime.installed(), extension: fixture),
                                seed: 1)
        for (input, _) in Self.inputs {
            let outputs = try host.send(input, now: 1_772_355_600_000)
            for case .log(_, _, let text, _) in outputs { #expect(!text.contains("does not take"), "\(input): \(text)") }
        }
    }
}

private extension JSONValue {
    func member(_ name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }
}
