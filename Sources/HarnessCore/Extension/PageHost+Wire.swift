import ProcessKit
import SiteSettings

/// How the page host's inputs and outputs travel (`pages.mjs`, `PROTOCOL.md` section 15): the
/// harness writes one frame `{"now": MS, "utcOffsetMinutes": N, "input": {...}}` per input
/// (`Input`; the offset left out when 0) and reads one
/// frame `{"outputs": [...]}` back (`Output`). An input's case is named as its `type`.
extension PageHost {
    /// Which page: a tab's, or the popup's.
    package enum Page: Hashable, Sendable {
        case tab(PageKey)
        case popup
    }

    /// A tab as the popup's `tabs.query` reads it: its window, and whether it is the active tab
    /// of that window.
    package struct PopupTab: Equatable, Sendable {
        var id: TabID
        var url: String
        var windowId: Int
        var active: Bool
        /// Its number (`tabs.Tab.id`), when Safari gave it one.
        var number: Int?

        init(id: TabID, url: String, windowId: Int, active: Bool, number: Int? = nil) {
            self.id = id
            self.url = url
            self.windowId = windowId
            self.active = active
            self.number = number
        }
    }

    /// What Safari tells the pages, one input per frame.
    package enum Input: Equatable, Sendable {
        /// The tab's page loads (afresh: its last load and its timers are gone) at `url`, with
        /// the content scripts that match it. `nativeDark`: whether the site has a dark theme of
        /// its own; nil leaves it out, which the pages read as false.
        /// `storage`: the folder of its profile's extension storage, which its scripts' `storage`
        /// reads and changes (nil: they have none). `html`: the page's own document (a scenario's
        /// `html=FILE`); nil is a plain page.
        /// `version`: the extension's version as Safari installed it, when not its manifest's;
        /// `extension`: the folder of the files an update installed, when not the run's.
        case load(PageKey, url: String, visible: Bool, appearance: Appearance, nativeDark: Bool?, storage: String? = nil, html: String? = nil,
                  version: String? = nil, extension: String? = nil)
        /// The tab closed: its page is gone.
        case close(PageKey)
        /// The tab's page became visible, or hidden.
        case show(PageKey, visible: Bool)
        /// The system's appearance changed, for every page.
        case appearance(Appearance)
        /// The background answered the page message `id` (nil: with nothing).
        case answer(id: Int, answer: JSONValue?)
        /// The site's own dark theme appeared or went on the tab's page.
        case nativeDark(PageKey, nativeDark: Bool)
        /// The background sent a page a message, numbered `id`, for it to answer.
        case message(Page, id: Int, message: JSONValue)
        /// The popup opens over the tab, reading `tabs` in its `tabs.query` and `windowId` as its
        /// window; nil leaves either out, which the pages read as no tabs and window 1.
        /// `page`: the popup's page the extension set (`action.setPopup`), when not its manifest's.
        case openPopup(TabID, appearance: Appearance, tabs: [PopupTab]?, windowId: Int?, storage: String? = nil, version: String? = nil,
                       extension: String? = nil, page: String? = nil)
        /// The background changed extension storage in the folder `storage`: the pages over it
        /// hear it (`storage.onChanged`).
        case storageChanged(storage: String, area: String, changes: JSONValue)
        /// The extension's grants changed (`added`, or taken back): the extension pages over
        /// the profile's storage folder `storage` hear it (`permissions.onAdded`, `onRemoved`).
        case permissionsChanged(storage: String, added: Bool, permissions: [String], origins: [String])
        /// What the extension set on its toolbar item, as Safari holds it now for the profile
        /// whose extension storage is the folder `storage`: the extension's pages over it read it
        /// (`action.getBadgeText` and its kin).
        case action(ExtensionAction, storage: String)
        /// The user clicked the toolbar item over `tab` where it has no popup: the extension's
        /// pages over the folder `storage` hear it (`action.onClicked`, with the tab as `tabs`
        /// lists it).
        case actionClicked(PopupTab, storage: String)
        /// The user pressed the keys of the extension's command `name`, over the front window's
        /// active tab, if it has one: the extension's pages over the folder `storage` hear it
        /// (`commands.onCommand`).
        case commandPressed(String, tab: PopupTab?, storage: String)
        /// Another of Safari's windows has focus (-1: none): the extension's pages over the
        /// folder `storage` hear it (`windows.onFocusChanged`).
        case windowFocus(windowId: Int, storage: String)
        /// A tab's event as the background hears it (`tabCreated`, `tabUpdated`, `tabActivated`,
        /// `tabClosed`), with the tab's id as the pages read it and its window: the extension's
        /// pages over the folder `storage` hear it (`tabs.onCreated` and its kin).
        case tabEvent(ExtensionWire.Event, tabId: JSONValue, windowId: Int, storage: String)
        /// The alarms Safari holds for the profile whose extension storage is the folder
        /// `storage`, by name (`at`, `period`): its extension pages read them.
        case alarms([String: ExtensionWire.Alarm], storage: String)
        /// The alarm `name` fell due: the extension's pages over the folder `storage` hear it
        /// (`alarms.onAlarm`).
        case alarmFired(name: String, storage: String)
        /// The menu items Safari holds for the profile whose extension storage is the folder
        /// `storage`: its extension pages read them (`menus.update` and its kin check them).
        case menus([ExtensionMenuItem], storage: String)
        /// The user chose one of the extension's menu items (`event`: the background's
        /// `menuClicked`), on the tab numbered `tabId` as the pages read it: the extension's pages
        /// over the folder `storage` hear it (`menus.onClicked`).
        case menuClicked(ExtensionWire.Event, tabId: JSONValue, storage: String)
        /// Safari's tabs or windows changed while the popup or a page of the extension's own is
        /// open: all the tabs now, and the frontmost window and the focused one (-1: another app
        /// is in front); nil leaves a window out, which the pages read as the popup's window.
        case tabs([PopupTab], frontWindow: Int? = nil, focusedWindow: Int? = nil)
        /// The popup closes; `hide`: the user closed it, so it hears that it goes.
        case closePopup(hide: Bool)
        /// The user clicks the element of id `element` in the page (the popup's, or a tab's).
        case click(element: String, page: Page = .popup)
        /// The user picks `value` in the page's select of id `element`.
        case choose(element: String, value: String, page: Page = .popup)
        /// The background posted `message` on a port a page opened.
        case portMessage(port: Int, message: JSONValue)
        /// The background's end of a page's port is gone; `error`: why, as `runtime.lastError`
        /// says it to the page's `onDisconnect`.
        case portDisconnected(port: Int, error: String?)
        /// The background opened a port to the tab's page (`tabs.connect`), numbered `port` by
        /// Safari (below 0), with the name it gave it: the page's `runtime.onConnect` takes it,
        /// or the page disconnects it unheard.
        case portOpened(PageKey, port: Int, name: String)
        /// A page's timer `number` fell due; `load` is the load of the page that set it
        /// (`tab t1#2`).
        case timer(load: PageLoad, number: Int)
        /// A run takes the host: every page goes, and the host is as a new one started for the
        /// extension in the folder `extension`, with the run's `seed` (written as a string: a seed
        /// may exceed what a JSON number holds) and `platform`.
        case reset(extension: String, seed: UInt64, platform: Simulation.Platform)
        /// A scenario's check reads a page: the elements that match `selector`, from the root
        /// element down (`expect tab t1 page "SELECTOR" ...`). No script of the page runs.
        case query(Page, selector: String)
        /// The background's script or style sheet for the tab's page (`scripting.executeScript`
        /// and kin), numbered `request`: the page answers with `injected` of that number, at
        /// once or when the script's promise settles.
        case inject(PageKey, request: Int, ExtensionWire.InjectionKind, ExtensionWire.Injection)
        /// The user answered the prompt for a page's permission request `id`.
        case permissionsAnswered(id: Int, granted: Bool)
        /// Safari did a page's call on its tabs numbered `id`: the tab it concerns (nil for
        /// `remove`), or why it could not (`error`).
        case tabsAnswered(id: Int, tab: PopupTab?, error: String?, results: JSONValue? = nil)
    }

    /// What the pages did in one input.
    package enum Output: Equatable, Sendable {
        /// A page sent the background a message, numbered `id`; `userGesture`: an extension page
        /// sent it in the user's click or pick.
        case sendMessage(id: Int, from: Page, message: JSONValue, userGesture: Bool = false)
        /// A page answered Safari's message `id` (nil: with nothing); `unreachable`: no page, or
        /// none that listens for messages.
        case answer(id: Int, answer: JSONValue?, unreachable: Bool)
        /// A tab's page changed what a scenario can check on it.
        case state(PageKey, PageState)
        /// A page's console, or an error nobody caught (`Uncaught ...`), with its place; `page`
        /// nil: the page host's own.
        case log(page: PageHost.Page?, level: String, text: String, at: String?)
        /// A page's `setTimeout` or `setInterval`: its timer `number` falls due `at`; `load` is
        /// the page's load (`tab t1#2`), whose timers die with it.
        case setTimer(load: PageLoad, number: Int, at: EpochMillis)
        /// A page's `clearTimeout` or `clearInterval` of its timer `number`.
        case cancelTimer(load: PageLoad, number: Int)
        /// A page opened port `port` to the background (`runtime.connect`), named `name`.
        case connect(port: Int, name: String, from: Page)
        /// A page posted a message on its port.
        case postOnPort(port: Int, message: JSONValue)
        /// A page disconnected a port; `unheard`: one the background opened, which no
        /// `runtime.onConnect` listener of the page took.
        case disconnectPort(port: Int, unheard: Bool = false)
        /// What a `query` found: how many elements match and the first (nil: no such page).
        case queried(PageQuery?)
        /// A page changed extension storage: the area, and what changed as `storage.onChanged`
        /// gives it.
        case storageChanged(from: Page, area: String, changes: JSONValue)
        /// The page did the injection numbered `request`: what each run gave
        /// (`[{frameId, result?, error?}]`), or nil with why it could not (`error`).
        case injected(request: Int, results: JSONValue?, error: String?)
        /// An extension page called `runtime.openOptionsPage()`.
        case openOptionsPage(from: Page)
        /// An extension page sent tab `to`'s page a message (`tabs.sendMessage`), numbered `id`
        /// as its own messages are: the answer comes back as `answer` with that number.
        case messageTab(id: Int, from: Page, to: TabID, message: JSONValue)
        /// An extension page's `tabs.create`, `update`, `reload` or `remove`, numbered `id`:
        /// Safari answers with `tabsAnswered`.
        case tabsCall(id: Int, from: Page, call: ExtensionWire.TabsCall)
        /// An extension page asked for permissions (`permissions.request`), numbered `id`, for
        /// Safari's prompt.
        case requestPermissions(id: Int, from: Page, permissions: [String], origins: [String])
        /// An extension page's `permissions.remove` took back what the user had granted: the
        /// permissions by name, the hosts as the patterns the grant kept.
        case permissionsRemoved(from: Page, permissions: [String], origins: [String])
        /// An extension page set a property of the toolbar item (`action.setBadgeText` and its
        /// kin), for `tab` alone (its name) or for every tab (nil).
        case actionSet(from: Page, tab: TabID?, property: ExtensionAction.Property, value: JSONValue)
        /// An extension page made an alarm (`alarms.create`): due `at`, then every `period`.
        case setAlarm(from: Page, at: EpochMillis, name: String, period: EpochMillis?)
        /// An extension page cleared an alarm.
        case clearAlarm(from: Page, name: String)
        /// An extension page changed the menu items (`menus.create` and its kin): the change, for
        /// Safari to make in the list it holds.
        case menuChanged(from: Page, MenuChange)
    }
}

// MARK: - Inputs

extension PageHost.Input {
    /// The input as it travels: an object with its `type` and its members, a member that is nil
    /// here left out.
    var json: JSONValue {
        func input(_ type: String, _ members: [String: JSONValue] = [:]) -> JSONValue {
            .object(members.merging(["type": .string(type)]) { _, type in type })
        }
        switch self {
        case .load(let tab, let url, let visible, let appearance, let nativeDark, let storage, let html, let version, let folder):
            var members: [String: JSONValue] = ["tab": .string(tab.name), "url": .string(url), "visible": .bool(visible),
                                                "appearance": .string(appearance.rawValue)]
            if let nativeDark { members["nativeDark"] = .bool(nativeDark) }
            if let storage { members["storage"] = .string(storage) }
            if let html { members["html"] = .string(html) }
            if let version { members["version"] = .string(version) }
            if let folder { members["extension"] = .string(folder) }
            return input("load", members)
        case .close(let tab): return input("close", ["tab": .string(tab.name)])
        case .show(let tab, let visible): return input("show", ["tab": .string(tab.name), "visible": .bool(visible)])
        case .appearance(let appearance): return input("appearance", ["appearance": .string(appearance.rawValue)])
        case .answer(let id, let answer):
            var members: [String: JSONValue] = ["id": .integer(Int64(id))]
            if let answer { members["answer"] = answer }
            return input("answer", members)
        case .nativeDark(let tab, let nativeDark): return input("nativeDark", ["tab": .string(tab.name), "nativeDark": .bool(nativeDark)])
        case .message(let page, let id, let message):
            return input("message", ["id": .integer(Int64(id)), "message": message].merging(Self.members(of: page)) { one, _ in one })
        case .openPopup(let tab, let appearance, let tabs, let windowId, let storage, let version, let folder, let page):
            var members: [String: JSONValue] = ["tab": .string(tab.rawValue), "appearance": .string(appearance.rawValue)]
            if let tabs { members["tabs"] = Self.json(tabs) }
            if let windowId { members["windowId"] = .integer(Int64(windowId)) }
            if let storage { members["storage"] = .string(storage) }
            if let version { members["version"] = .string(version) }
            if let folder { members["extension"] = .string(folder) }
            if let page { members["page"] = .string(page) }
            return input("openPopup", members)
        case .storageChanged(let storage, let area, let changes):
            return input("storageChanged", ["storage": .string(storage), "area": .string(area), "changes": changes])
        case .action(let action, let storage): return input("action", ["action": action.json, "storage": .string(storage)])
        case .alarms(let alarms, let storage):
            let held = alarms.mapValues { alarm in
                JSONValue.object(["at": .integer(alarm.at)].merging(alarm.period.map { ["period": .integer($0)] } ?? [:]) { a, _ in a })
            }
            return input("alarms", ["alarms": .object(held), "storage": .string(storage)])
        case .alarmFired(let name, let storage): return input("alarmFired", ["name": .string(name), "storage": .string(storage)])
        case .menus(let items, let storage): return input("menus", ["items": .array(items.map(\.json)), "storage": .string(storage)])
        case .menuClicked(let event, let tabId, let storage):
            return input("menuClicked", ["event": ExtensionWire.encode(event), "tabId": tabId, "storage": .string(storage)])
        case .windowFocus(let windowId, let storage): return input("windowFocus", ["windowId": .integer(Int64(windowId)), "storage": .string(storage)])
        case .tabEvent(let event, let tabId, let windowId, let storage):
            return input("tabEvent", ["event": ExtensionWire.encode(event), "tabId": tabId, "windowId": .integer(Int64(windowId)), "storage": .string(storage)])
        case .commandPressed(let name, let tab, let storage):
            var members: [String: JSONValue] = ["name": .string(name), "storage": .string(storage)]
            if let tab { members["tab"] = Self.json(tab) }
            return input("commandPressed", members)
        case .actionClicked(let tab, let storage):
            return input("actionClicked", ["tab": Self.json(tab), "storage": .string(storage)])
        case .permissionsChanged(let storage, let added, let permissions, let origins):
            return input("permissionsChanged", ["storage": .string(storage), "change": .string(added ? "added" : "removed"),
                                                "permissions": .array(permissions.map { .string($0) }), "origins": .array(origins.map { .string($0) })])
        case .tabs(let tabs, let front, let focused):
            var members: [String: JSONValue] = ["tabs": Self.json(tabs)]
            if let front { members["frontWindow"] = .integer(Int64(front)) }
            if let focused { members["focusedWindow"] = .integer(Int64(focused)) }
            return input("tabs", members)
        case .closePopup(let hide): return input("closePopup", ["hide": .bool(hide)])
        case .click(let element, let page): return input("click", ["element": .string(element)].merging(Self.members(of: page)) { one, _ in one })
        case .choose(let element, let value, let page):
            return input("choose", ["element": .string(element), "value": .string(value)].merging(Self.members(of: page)) { one, _ in one })
        case .portMessage(let port, let message): return input("portMessage", ["port": .integer(Int64(port)), "message": message])
        case .portDisconnected(let port, let error):
            var members: [String: JSONValue] = ["port": .integer(Int64(port))]
            if let error { members["error"] = .string(error) }
            return input("portDisconnected", members)
        case .portOpened(let tab, let port, let name):
            return input("portOpened", ["tab": .string(tab.name), "port": .integer(Int64(port)), "name": .string(name)])
        case .timer(let load, let number): return input("timer", ["page": .string(load.name), "timer": .integer(Int64(number))])
        case .reset(let folder, let seed, let platform):
            return input("reset", ["extension": .string(folder), "seed": .string(String(seed)), "platform": .string(platform.rawValue)])
        case .query(let page, let selector):
            return input("query", ["selector": .string(selector)].merging(Self.members(of: page)) { one, _ in one })
        case .inject(let tab, let request, let kind, let injection):
            return input("inject", injection.members.merging(["tab": .string(tab.name), "request": .integer(Int64(request)),
                                                              "method": .string(kind.rawValue)]) { a, _ in a })
        case .permissionsAnswered(let id, let granted): return input("permissionsAnswered", ["id": .integer(Int64(id)), "granted": .bool(granted)])
        case .tabsAnswered(let id, let tab, let error, let results):
            var members: [String: JSONValue] = ["id": .integer(Int64(id))]
            if let tab { members["tab"] = Self.json(tab) }
            if let error { members["error"] = .string(error) }
            if let results { members["results"] = results }
            return input("tabsAnswered", members)
        }
    }

    /// The page an input is for, as its members name it: `tab`, or `popup: true`.
    private static func members(of page: PageHost.Page) -> [String: JSONValue] {
        switch page {
        case .tab(let tab): ["tab": .string(tab.name)]
        case .popup: ["popup": .bool(true)]
        }
    }

    private static func json(_ tabs: [PageHost.PopupTab]) -> JSONValue { .array(tabs.map(json)) }

    /// A tab as the pages list it: its name, address, window, whether it is active there, and its
    /// number when Safari gave it one.
    private static func json(_ tab: PageHost.PopupTab) -> JSONValue {
        .object(["id": .string(tab.id.rawValue), "url": .string(tab.url), "windowId": .integer(Int64(tab.windowId)), "active": .bool(tab.active)]
            .merging(tab.number.map { ["number": .integer(Int64($0))] } ?? [:]) { a, _ in a })
    }

    /// The frame that hands the pages this input at `now`, with Safari's local time
    /// `utcOffsetMinutes` from UTC (left out when 0).
    func frame(now: EpochMillis, utcOffsetMinutes: Int = 0) -> [UInt8] {
        var frame: [String: JSONValue] = ["now": .integer(now), "input": json]
        if utcOffsetMinutes != 0 { frame["utcOffsetMinutes"] = .integer(Int64(utcOffsetMinutes)) }
        return JSONWriter.compact(.object(frame))
    }
}

// MARK: - Outputs

extension PageHost.Output {
    /// The outputs' `type` names on the wire.
    private enum Kind: String {
        case sendMessage, answer, page, log, setTimer, cancelTimer, connect, portPost, portDisconnect, queried, storageChanged, injected, openOptionsPage, requestPermissions, messageTab, tabsCall,
             permissionsRemoved, actionSet, setAlarm, clearAlarm, menuChanged
    }

    /// The outputs of one frame the pages wrote, `{"outputs": [...]}`, in order; a frame of
    /// another form, or an output that is not one of the forms `pages.mjs` writes, is an error
    /// naming it.
    static func decode(frame bytes: [UInt8]) throws(PageHost.Failure) -> [PageHost.Output] {
        guard case .object(let reply)? = try? JSONParser.parse(bytes), case .array(let items)? = reply["outputs"] else {
            throw .notOutputs(String(decoding: bytes.prefix(200), as: UTF8.self))
        }
        var outputs: [PageHost.Output] = []
        for (index, item) in items.enumerated() { outputs.append(try decode(item, number: index + 1)) }
        return outputs
    }

    /// Reads output `number` of a frame (the first is 1); anything but the form `pages.mjs`
    /// writes for its `type` (a member missing, of another kind, or not among that type's) is an
    /// error that names the output and what is wrong with it.
    static func decode(_ json: JSONValue, number: Int) throws(PageHost.Failure) -> PageHost.Output {
        guard case .object(let members) = json else { throw .malformedOutput(number: number, type: nil, problem: "not an object") }
        guard case .string(let type)? = members["type"] else { throw .malformedOutput(number: number, type: nil, problem: "no string 'type'") }
        guard let kind = Kind(rawValue: type) else { throw .malformedOutput(number: number, type: nil, problem: "unknown type '\(type.prefix(64))'") }
        let output = Members(members: members, number: number, type: type)
        switch kind {
        case .sendMessage:
            try output.allow(["id", "message", "tab", "popup", "userGesture"])
            return .sendMessage(id: try output.integer("id"), from: try output.page(), message: try output.value("message"), userGesture: try output.flag("userGesture"))
        case .answer:
            try output.allow(["id", "answer", "unreachable"])
            return .answer(id: try output.integer("id"), answer: members["answer"], unreachable: try output.flag("unreachable"))
        case .page:
            try output.allow(["tab", "state"])
            guard let state = PageState(json: try output.value("state")) else { throw output.problem("no object 'state'") }
            return .state(PageKey(name: try output.string("tab")), state)
        case .log:
            try output.allow(["page", "level", "text", "at"])
            let page = try output.string("page")
            return .log(page: page == "pages" ? nil : try output.page(named: page), level: try output.string("level"), text: try output.string("text"),
                        at: members["at"] == nil ? nil : try output.string("at"))
        case .setTimer:
            try output.allow(["page", "timer", "at"])
            guard case .integer(let at)? = members["at"] else { throw output.problem("no integer 'at'") }
            return .setTimer(load: try output.load(), number: try output.integer("timer"), at: at)
        case .cancelTimer:
            try output.allow(["page", "timer"])
            return .cancelTimer(load: try output.load(), number: try output.integer("timer"))
        case .connect:
            try output.allow(["port", "name", "tab", "popup"])
            return .connect(port: try output.integer("port"), name: try output.string("name"), from: try output.page())
        case .portPost:
            try output.allow(["port", "message"])
            return .postOnPort(port: try output.integer("port"), message: try output.value("message"))
        case .portDisconnect:
            try output.allow(["port", "unheard"])
            return .disconnectPort(port: try output.integer("port"), unheard: try output.flag("unheard"))
        case .queried:
            try output.allow(["found"])
            let found = try output.value("found")
            if found == .null { return .queried(nil) }
            guard let query = PageQuery(json: found) else { throw output.problem("'found' is not a query's answer") }
            return .queried(query)
        case .storageChanged:
            try output.allow(["tab", "popup", "area", "changes"])
            let area = try output.string("area")
            guard ["local", "session", "sync"].contains(area) else { throw output.problem("'area' is not local, session or sync") }
            guard case .object = try output.value("changes") else { throw output.problem("'changes' is not an object") }
            return .storageChanged(from: try output.page(), area: area, changes: try output.value("changes"))
        case .injected:
            try output.allow(["request", "results", "error"])
            switch (members["results"], members["error"]) {
            case (.array?, nil): return .injected(request: try output.integer("request"), results: members["results"], error: nil)
            case (nil, .string(let error)?): return .injected(request: try output.integer("request"), results: nil, error: error)
            default: throw output.problem("neither an array 'results' nor a string 'error'")
            }
        case .openOptionsPage:
            try output.allow(["tab", "popup"])
            return .openOptionsPage(from: try output.page())
        case .tabsCall:
            // Read as the background's call is (`ExtensionWire.directive`), on the page's tabs only.
            try output.allow(["id", "tab", "popup", "call"])
            let id = try output.integer("id")
            guard case .object(var given) = try output.value("call") else { throw output.problem("no object 'call'") }
            given["type"] = .string("tabsCall")
            given["request"] = .integer(Int64(id))
            let call: ExtensionWire.TabsCall
            do {
                guard case .tabsCall(_, let read) = try ExtensionWire.directive(.object(given)) else { throw output.problem("not a tabs call") }
                call = read
            } catch let failure as PageHost.Failure { throw failure } catch { throw output.problem("call: \(error)") }
            switch call {
            case .create, .update, .reload, .remove, .inject: return .tabsCall(id: id, from: try output.page(), call: call)
            case .requestPermissions: throw output.problem("a page's tabs call is create, update, reload, remove or an injection (a permission request is its own output)")
            }
        case .messageTab:
            try output.allow(["id", "tab", "popup", "to", "message"])
            return .messageTab(id: try output.integer("id"), from: try output.page(), to: TabID(try output.string("to")), message: try output.value("message"))
        case .requestPermissions:
            try output.allow(["id", "tab", "popup", "permissions", "origins"])
            return .requestPermissions(id: try output.integer("id"), from: try output.page(), permissions: try output.strings("permissions"),
                                       origins: try output.strings("origins"))
        case .actionSet:
            // The tab the property is for is `for` (`tab` names the page).
            try output.allow(["tab", "popup", "for", "property", "value"])
            guard let property = ExtensionAction.Property(rawValue: try output.string("property")) else { throw output.problem("'property': \(ExtensionAction.expectedProperty)") }
            return .actionSet(from: try output.page(), tab: members["for"] == nil ? nil : TabID(try output.string("for")), property: property, value: try output.value("value"))
        case .setAlarm:
            try output.allow(["tab", "popup", "at", "name", "period"])
            guard case .integer(let at)? = members["at"] else { throw output.problem("no integer 'at'") }
            var period: EpochMillis?
            switch members["period"] {
            case nil: period = nil
            case .integer(let value)? where value > 0: period = value
            case _?: throw output.problem("'period' is not an integer above 0")
            }
            return .setAlarm(from: try output.page(), at: at, name: try output.string("name"), period: period)
        case .clearAlarm:
            try output.allow(["tab", "popup", "name"])
            return .clearAlarm(from: try output.page(), name: try output.string("name"))
        case .menuChanged:
            try output.allow(["tab", "popup", "op", "item", "id"])
            func item() throws(PageHost.Failure) -> ExtensionMenuItem {
                do { return try ExtensionMenuItem.decode(members["item"] ?? .null, at: JSONPath.root.key("item")) } catch { throw output.problem(error.description) }
            }
            let change: MenuChange
            switch try output.string("op") {
            case "create": change = .create(try item())
            case "update": change = .update(try item())
            case "remove":
                switch members["id"] {
                case .string(let text)?: change = .remove(.string(text))
                case .integer(let number)?: change = .remove(.integer(number))
                default: throw output.problem("'id' is not a string or a whole number")
                }
            case "removeAll": change = .removeAll
            default: throw output.problem("'op' is not create, update, remove or removeAll")
            }
            return .menuChanged(from: try output.page(), change)
        case .permissionsRemoved:
            try output.allow(["tab", "popup", "permissions", "origins"])
            return .permissionsRemoved(from: try output.page(), permissions: try output.strings("permissions"), origins: try output.strings("origins"))
        }
    }

    /// An output's members, read for `decode`: each reader throws the failure that names the
    /// output and the member.
    private struct Members {
        let members: [String: JSONValue]
        let number: Int
        let type: String

        func problem(_ text: String) -> PageHost.Failure { .malformedOutput(number: number, type: type, problem: text) }

        /// Refuses a member other than `type` and `names`.
        func allow(_ names: Set<String>) throws(PageHost.Failure) {
            if let other = members.keys.filter({ $0 != "type" && !names.contains($0) }).min() { throw problem("unexpected member '\(other.prefix(64))'") }
        }

        func value(_ name: String) throws(PageHost.Failure) -> JSONValue {
            guard let value = members[name] else { throw problem("no '\(name)'") }
            return value
        }

        func integer(_ name: String) throws(PageHost.Failure) -> Int {
            guard case .integer(let value)? = members[name] else { throw problem("no integer '\(name)'") }
            return Int(clamping: value)
        }

        func string(_ name: String) throws(PageHost.Failure) -> String {
            guard case .string(let value)? = members[name] else { throw problem("no string '\(name)'") }
            return value
        }

        func strings(_ name: String) throws(PageHost.Failure) -> [String] {
            guard case .array(let items)? = members[name] else { throw problem("no array '\(name)'") }
            var texts: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw problem("'\(name)' holds what is not a string") }
                texts.append(text)
            }
            return texts
        }

        /// A member that is `true` or left out (false).
        func flag(_ name: String) throws(PageHost.Failure) -> Bool {
            switch members[name] {
            case nil: return false
            case .bool(true)?: return true
            case _?: throw problem("'\(name)' is neither true nor left out")
            }
        }

        /// A page as the page host names it (`tab KEY`, `popup`).
        func page(named name: String) throws(PageHost.Failure) -> PageHost.Page {
            guard let page = PageHost.Page(hostName: name) else { throw problem("'page' names no page: '\(name.prefix(64))'") }
            return page
        }

        /// The load of a page that `page` names (`tab t1#2`, `popup#1`).
        func load() throws(PageHost.Failure) -> PageLoad {
            let name = try string("page")
            guard let load = PageLoad(name: name) else { throw problem("'page' names no page's load: '\(name.prefix(64))'") }
            return load
        }

        /// The page that wrote it: `tab` (a string), or `popup`: true.
        func page() throws(PageHost.Failure) -> PageHost.Page {
            switch (members["tab"], try flag("popup")) {
            case (.string(let tab)?, false): return .tab(PageKey(name: tab))
            case (nil, true): return .popup
            case (_?, true): throw problem("both 'tab' and 'popup'")
            case (_, false): throw problem("no string 'tab' and no 'popup': true")
            }
        }
    }
}
