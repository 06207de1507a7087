import SiteSettings

/// How the background's inputs and directives travel in `input` and `done` frames, both ways:
/// the harness encodes events and decodes outputs, the background's shell decodes events and
/// encodes outputs, with the same code.
///
/// Inputs (`type`): `started` (`appearance`, `utcOffsetMinutes` (left out when 0), `tabs`: {id:
/// url}, `appMessages`: true where the app can message the extension, `alarms`: {name: {`at`,
/// `period`}} of the alarms Safari holds for it (left out when none), `reason`: `startup`,
/// `install` or `update` when the load fires `runtime.onStartup` or `onInstalled`, `version`
/// when Safari installed the files as another version than their manifest's, `previousVersion`
/// with `update`, `action`: what the extension set on its toolbar item, as `ExtensionAction`
/// gives it, left out when nothing), `storageCompleted` (`token`), `tabRequestedDecision` (`tab`, `url`, `nativeDark`),
/// `tabNativeDarkChanged` (`tab`, `nativeDark`), `tabActivated` / `tabClosed` (`tab`),
/// `safariCameToForeground`, `safariWentToBackground`, `appMessageArrived`, `appearanceChanged` (`appearance`), `popupOpened` (`tab`),
/// `popupClosed`, `popupChoseScope` (`scope`), `popupEdited` (`set`, `reset`, `message`, `at`),
/// `popupForgotSite` (`message`, `at`), `popupPaused` (`until`), `nativeReplyArrived` (`request`, and
/// `reply` as the handler sent it or `rejected`: `handlerEnded` or `tooManyRequests`),
/// `timerFired` (`timer`: `{"nativeTimeout": N}`), `alarmFired`, `alarmsChanged` (`alarms`, as in
/// `started`, when Safari changed them on its own: it raised one to its minimum, moved a
/// periodic alarm no listener heard to its next time, or moved them all later by the device's sleep; a
/// background may ignore it); for an extension whose own pages
/// run (section 15): `pageMessage` (`id`, `tab` and `url`, or `popup`: true; `message`, any JSON;
/// `active`, the front window's active tab, if there is one)
/// and `pageAnswered` (`id`, and `answer` unless the page answered nothing; `unreachable`: true when
/// no page heard it); `portOpened` (`port`, `name`, and `tab` and `url`, or `popup`: true),
/// `portMessage` (`port`, `message`) and `portClosed` (`port`) for a port a page opened;
/// `storageChanged` (`area`: `local`, `session` or `sync`; `changes`, as `storage.onChanged`
/// gives them) when one of its pages changed extension storage; `tabCreated` (`tab`, `url`) and
/// `tabUpdated` (`tab`, `url`, `status`: `loading` or `complete`, `urlChanged`: true when the load
/// went to a new address) for a background that listens for them; `tabsAnswered` (`request`, and
/// the tab's `tab` and `url`, or `error`) when Safari did what its `tabsCall` asked; `menuClicked`
/// (`id`, `parentId`?, `tab`, `url`, and `checked` and `wasChecked` for a checkbox or radio item)
/// when the user chose one of its menu items on a page (`started` carries the items Safari holds
/// as `menus`, left out when none); `commandPressed` (`name`, and the front window's active
/// `tab` and its `url` when it has one) when the user pressed the keys of one of its commands;
/// `webNavigation` (`tab`, `url`, `stage`: `beforeNavigate`, `committed`, `domContentLoaded` or
/// `completed`) for each stage of a tab's load a background listens for.
///
/// Directives (`type`): `storagePending` (`token`: send `storageCompleted` with it when the
/// storage operation should finish), `sendNative` (`request`, `message`), `setTimer` /
/// `cancelTimer` (`timer`: `{"nativeTimeout": N}`, `at`), `setAlarm` (`at`), `connectNative`, `listen` (`events`),
/// `sendDecision` (`tab`, `decision`), `showPopup` (`view`), `popupAnswer` (`message`, `saved`, `scope`);
/// `answerPage` (`id`, and `answer` unless it is none), `messageTab` (`tab`, `id`, `message`),
/// `messagePopup` (`id`, `message`); `portPost` (`port`, `message`) and `portClose` (`port`);
/// `storageChanged` (`area`, `changes`: what a storage operation changed, for its own pages);
/// `tabsCall` (`request`, `method`: `create` (`url`, `active`), `update` (`tab`, `url`?,
/// `active`?), `reload` (`tab`) or `remove` (`tabs`)), which Safari answers with `tabsAnswered`;
/// `actionSet` (`property`, `value`, and `tab` when for one tab alone); `menusChanged` (`items`:
/// every menu item it has now, as `ExtensionMenuItem` gives each).
public enum ExtensionWire {
    /// Why Safari loads the background, when the load fires a `runtime` event: Safari launched
    /// (`onStartup`), the extension was just installed (`onInstalled` with reason `install`), or
    /// a new version was (`onInstalled` with reason `update`).
    public enum StartReason: String, Equatable, Sendable {
        case startup, install, update
    }

    /// An alarm Safari holds for the extension, as `started` tells a new incarnation: when it
    /// falls due next (Unix milliseconds), and its period, if it repeats.
    public struct Alarm: Equatable, Sendable {
        public var at: EpochMillis
        public var period: EpochMillis?

        public init(at: EpochMillis, period: EpochMillis? = nil) {
            self.at = at
            self.period = period
        }
    }

    /// Who sent a page's message: a tab's content script, on the page at `url`, or the popup.
    public enum PageSender: Hashable, Sendable {
        case tab(TabID, url: String)
        case popup
    }

    /// An input as the harness sends it; the frame carries the time. Named as on the wire.
    public enum Event: Equatable, Sendable {
        /// `tabs`: the open tabs as `tabs.query` reports them, by id.
        /// `version`: the version Safari installed, when an update gave the same files another
        /// one; `previousVersion`: the version an update replaced, with reason `update`.
        case started(appearance: Appearance, utcOffsetMinutes: Int = 0, tabs: [TabID: String], appMessages: Bool = false, alarms: [String: Alarm] = [:],
                     reason: StartReason? = nil, version: String? = nil, previousVersion: String? = nil, action: ExtensionAction = ExtensionAction(),
                     menus: [ExtensionMenuItem] = [])
        case storageCompleted(token: Int)
        case tabRequestedDecision(TabID, url: String, nativeDark: Bool)
        case tabNativeDarkChanged(TabID, nativeDark: Bool)
        case tabActivated(TabID)
        case tabClosed(TabID)
        case safariCameToForeground
        /// macOS only: no Safari window has focus any more (another app is in front):
        /// `windows.onFocusChanged` with `windows.WINDOW_ID_NONE`.
        case safariWentToBackground
        /// macOS only: the app sent the extension a message (`SFSafariApplication.dispatchMessage`),
        /// which arrives on the native port the background holds: the design's app sends none,
        /// meaning the settings changed; a team's app `{"name": NAME, "userInfo": …}`.
        case appMessageArrived(message: JSONValue? = nil)
        case appearanceChanged(Appearance)
        case popupOpened(TabID)
        case popupClosed
        /// The scope key as the user picked it; the background reads it into its canonical form.
        case popupChoseScope(scope: String)
        /// `reset` in the order the popup names the fields; `message` numbers the popup's
        /// message (0: none); `at` is when the user acted.
        case popupEdited(set: SiteValues, reset: [SiteField], message: Int, at: EpochMillis?)
        case popupForgotSite(message: Int, at: EpochMillis?)
        case popupPaused(until: EpochMillis)
        /// How a native request ended. A reply is read once, where it enters the background's
        /// process: whatever a handler sent, valid or not, travels as it came.
        case nativeReplyArrived(request: Int, NativeOutcome)
        case timerFired(BackgroundTimer)
        /// An alarm fell due: the one the built-in background sets has no name ("").
        case alarmFired(name: String)
        /// Safari changed the alarms it holds on its own (raised one to its minimum, moved a
        /// periodic alarm no listener heard to its next time, moved them later by a sleep): all of them now.
        case alarmsChanged(alarms: [String: Alarm])
        /// An extension's own page sent the background a message (`runtime.sendMessage`), the
        /// `id`th Safari carried; the background answers it with `answerPage`. `active` is the
        /// active tab of the window in front as the page sent it (`tabs.query` reads it).
        case pageMessage(id: Int, from: PageSender, message: JSONValue, active: TabID? = nil)
        /// A page answered the background's `messageTab` or `messagePopup` numbered `id` (nil:
        /// with nothing); `unreachable`: no page of the extension's heard it.
        case pageAnswered(id: Int, answer: JSONValue?, unreachable: Bool = false)
        /// A page opened a port to the background (`runtime.connect`), numbered `port` by the
        /// page host, with the name it gave it (`""` for none).
        case portOpened(port: Int, name: String, from: PageSender)
        /// A page posted `message` on its port.
        case portMessage(port: Int, message: JSONValue)
        /// The page's end of the port is gone: it disconnected it, or the page went away.
        case portClosed(port: Int)
        /// One of its pages changed extension storage: the area (`local`, `session`, `sync`) and
        /// what changed, `{key: {oldValue?, newValue?}}` as `storage.onChanged` gives it.
        case storageChanged(area: String, changes: JSONValue)
        /// A tab opened (`tabs.onCreated`).
        case tabCreated(TabID, url: String)
        /// A tab's page began to load (`loading`; `urlChanged` when it goes to a new address) or
        /// finished (`complete`) (`tabs.onUpdated`).
        case tabUpdated(TabID, url: String, status: TabStatus, urlChanged: Bool = false)
        /// Safari did what the background's `tabsCall` numbered `request` asked: the tab it
        /// opened or changed, with its address, or nil with why it could not.
        case tabsAnswered(request: Int, tab: TabID?, url: String?, error: String?)
        /// The user chose the extension's menu item `id` on the page of `tab` (`menus.onClicked`):
        /// `checked` and `wasChecked` for a checkbox or a radio item.
        case menuClicked(id: JSONValue, parentId: JSONValue?, tab: TabID, url: String, checked: Bool?, wasChecked: Bool?)
        /// The user pressed the keys of the extension's command `name` (`commands.onCommand`),
        /// with the front window's active tab, if it has one.
        case commandPressed(name: String, tab: TabID?, url: String?)
        /// A stage of a tab's page load (`webNavigation`), for a background that listens for it.
        case navigated(TabID, url: String, stage: NavigationStage)
    }

    /// What the background asks Safari to do to its tabs (`tabs.create`, `update`, `reload`,
    /// `remove`).
    public enum TabsCall: Equatable, Sendable {
        case create(url: String, active: Bool)
        case update(TabID, url: String?, active: Bool?)
        case reload(TabID)
        case remove([TabID])
    }

    /// A tab's load, as `tabs.onUpdated` says it.
    public enum TabStatus: String, Equatable, Sendable { case loading, complete }

    /// A stage of a tab's page load, as `webNavigation` names its events (`onBeforeNavigate`,
    /// `onCommitted`, `onDOMContentLoaded`, `onCompleted`), each the listener type it wakes.
    public enum NavigationStage: String, CaseIterable, Equatable, Sendable {
        case beforeNavigate, committed, domContentLoaded, completed

        public var listener: BackgroundListener {
            switch self {
            case .beforeNavigate: .navigationBefore
            case .committed: .navigationCommitted
            case .domContentLoaded: .navigationDOMContentLoaded
            case .completed: .navigationCompleted
            }
        }
    }

    /// What the background's process sends in a `done` frame: its machine's directives but
    /// extension storage, which the process carries out itself, and the shell's own news that a
    /// storage operation finished and waits for `storageCompleted`.
    public enum Output: Equatable, Sendable {
        case storagePending(token: Int)
        case sendNative(request: Int, NativeRequest)
        case setTimer(BackgroundTimer, at: EpochMillis)
        case cancelTimer(BackgroundTimer)
        /// `alarms.create`: the alarm `name` ("" for the unnamed one), due at `at`, then every
        /// `period` if it has one; it replaces an alarm of the same name.
        case setAlarm(at: EpochMillis, name: String = "", period: EpochMillis? = nil)
        /// `alarms.clear`: drop the alarm of that name.
        case clearAlarm(name: String)
        case connectNative
        case listen([BackgroundListener])
        case sendDecision(TabID, Decision)
        case showPopup(PopupView)
        case popupAnswer(message: Int, saved: Bool?, scope: ScopeKey?)
        /// The answer to page message `id` (nil: nothing, `undefined` to the page).
        case answerPage(id: Int, answer: JSONValue?)
        /// `tabs.sendMessage`: a message for the tab's content script, numbered by the
        /// background; the tab's answer comes back as `pageAnswered` with that number.
        case messageTab(TabID, id: Int, message: JSONValue)
        /// `runtime.sendMessage`: a message for the extension's open popup, numbered and
        /// answered the same way.
        case messagePopup(id: Int, message: JSONValue)
        /// `port.postMessage` on a port a page opened.
        case postOnPort(port: Int, message: JSONValue)
        /// `port.disconnect()` on a port a page opened.
        case closePort(port: Int)
        /// What one of its storage operations changed, for its own pages: the area and the
        /// changes as `storage.onChanged` gives them.
        case storageChanged(area: String, changes: JSONValue)
        /// `tabs.create`, `update`, `reload` or `remove`, numbered by the background; Safari
        /// answers with `tabsAnswered` of that number.
        case tabsCall(request: Int, TabsCall)
        /// `action.setBadgeText` and its kin: one property of the toolbar item, for `tab` alone
        /// or for every tab (nil); `null` takes the extension's value back.
        case actionSet(tab: TabID?, property: ExtensionAction.Property, value: JSONValue)
        /// `menus.create`, `update`, `remove` or `removeAll`: every menu item it has now.
        case menusChanged([ExtensionMenuItem])
    }

    // MARK: - Names

    /// An event's name: its `type` on the wire and its word in the trace.
    public static func name(_ event: Event) -> String {
        switch event {
        case .started: "started"
        case .storageCompleted: "storageCompleted"
        case .tabRequestedDecision: "tabRequestedDecision"
        case .tabNativeDarkChanged: "tabNativeDarkChanged"
        case .tabActivated: "tabActivated"
        case .tabClosed: "tabClosed"
        case .safariCameToForeground: "safariCameToForeground"
        case .safariWentToBackground: "safariWentToBackground"
        case .appMessageArrived: "appMessageArrived"
        case .appearanceChanged: "appearanceChanged"
        case .popupOpened: "popupOpened"
        case .popupClosed: "popupClosed"
        case .popupChoseScope: "popupChoseScope"
        case .popupEdited: "popupEdited"
        case .popupForgotSite: "popupForgotSite"
        case .popupPaused: "popupPaused"
        case .nativeReplyArrived: "nativeReplyArrived"
        case .timerFired: "timerFired"
        case .alarmFired: "alarmFired"
        case .alarmsChanged: "alarmsChanged"
        case .pageMessage: "pageMessage"
        case .pageAnswered: "pageAnswered"
        case .portOpened: "portOpened"
        case .portMessage: "portMessage"
        case .portClosed: "portClosed"
        case .storageChanged: "storageChanged"
        case .tabCreated: "tabCreated"
        case .tabUpdated: "tabUpdated"
        case .tabsAnswered: "tabsAnswered"
        case .menuClicked: "menuClicked"
        case .commandPressed: "commandPressed"
        case .navigated: "webNavigation"
        }
    }

    /// An output's name: its `type` on the wire.
    public static func name(_ output: Output) -> String {
        switch output {
        case .storagePending: "storagePending"
        case .sendNative: "sendNative"
        case .setTimer: "setTimer"
        case .cancelTimer: "cancelTimer"
        case .setAlarm: "setAlarm"
        case .clearAlarm: "clearAlarm"
        case .connectNative: "connectNative"
        case .listen: "listen"
        case .sendDecision: "sendDecision"
        case .showPopup: "showPopup"
        case .popupAnswer: "popupAnswer"
        case .answerPage: "answerPage"
        case .messageTab: "messageTab"
        case .messagePopup: "messagePopup"
        case .postOnPort: "portPost"
        case .closePort: "portClose"
        case .storageChanged: "storageChanged"
        case .tabsCall: "tabsCall"
        case .actionSet: "actionSet"
        case .menusChanged: "menusChanged"
        }
    }

    // MARK: - Inputs

    /// The alarms Safari holds, by name: {name: {`at`, `period`}}.
    private static func encode(_ alarms: [String: Alarm]) -> JSONValue {
        .object(alarms.mapValues { alarm in
            .object(["at": .integer(alarm.at)].merging(alarm.period.map { ["period": .integer($0)] } ?? [:]) { a, _ in a })
        })
    }

    private static func alarms(_ value: JSONValue, at path: JSONPath) throws(NativeMessageError) -> [String: Alarm] {
        guard case .object(let held) = value else { throw NativeMessageError(path, "expected an object of alarms by name") }
        var alarms: [String: Alarm] = [:]
        for (name, alarm) in held {
            let path = path.key(name)
            guard case .object(let fields) = alarm, case .integer(let at)? = fields["at"] else {
                throw NativeMessageError(path, "expected {\"at\": milliseconds, \"period\": milliseconds}")
            }
            var period: EpochMillis?
            if let value = fields["period"] {
                guard case .integer(let every) = value, every > 0 else { throw NativeMessageError(path.key("period"), "expected milliseconds above zero") }
                period = every
            }
            alarms[name] = Alarm(at: at, period: period)
        }
        return alarms
    }

    /// The JSON the harness sends for an event.
    public static func encode(_ event: Event) -> JSONValue {
        func input(_ type: String, _ members: [String: JSONValue] = [:]) -> JSONValue {
            .object(members.merging(["type": .string(type)]) { _, type in type })
        }
        switch event {
        case .started(let appearance, let offset, let tabs, let appMessages, let alarms, let reason, let version, let previousVersion, let action, let menus):
            var members: [String: JSONValue] = ["appearance": .string(appearance.rawValue),
                                                "tabs": .object(Dictionary(uniqueKeysWithValues: tabs.map { ($0.key.rawValue, .string($0.value)) }))]
            if offset != 0 { members["utcOffsetMinutes"] = .integer(Int64(offset)) }
            if appMessages { members["appMessages"] = .bool(true) }
            if let reason { members["reason"] = .string(reason.rawValue) }
            if !alarms.isEmpty { members["alarms"] = encode(alarms) }
            if let version { members["version"] = .string(version) }
            if let previousVersion { members["previousVersion"] = .string(previousVersion) }
            if !action.isEmpty { members["action"] = action.json }
            if !menus.isEmpty { members["menus"] = .array(menus.map(\.json)) }
            return input("started", members)
        case .storageCompleted(let token): return input("storageCompleted", ["token": .integer(Int64(token))])
        case .tabRequestedDecision(let tab, let url, let nativeDark):
            return input("tabRequestedDecision", ["tab": .string(tab.rawValue), "url": .string(url), "nativeDark": .bool(nativeDark)])
        case .tabNativeDarkChanged(let tab, let nativeDark):
            return input("tabNativeDarkChanged", ["tab": .string(tab.rawValue), "nativeDark": .bool(nativeDark)])
        case .tabActivated(let tab): return input("tabActivated", ["tab": .string(tab.rawValue)])
        case .tabClosed(let tab): return input("tabClosed", ["tab": .string(tab.rawValue)])
        case .safariCameToForeground: return input("safariCameToForeground")
        case .safariWentToBackground: return input("safariWentToBackground")
        case .appMessageArrived(let message): return input("appMessageArrived", message.map { ["message": $0] } ?? [:])
        case .appearanceChanged(let appearance): return input("appearanceChanged", ["appearance": .string(appearance.rawValue)])
        case .popupOpened(let tab): return input("popupOpened", ["tab": .string(tab.rawValue)])
        case .popupClosed: return input("popupClosed")
        case .popupChoseScope(let scope): return input("popupChoseScope", ["scope": .string(scope)])
        case .popupEdited(let set, let reset, let message, let at):
            var members: [String: JSONValue] = ["set": set.json, "reset": .fields(reset), "message": .integer(Int64(message))]
            if let at { members["at"] = .integer(at) }
            return input("popupEdited", members)
        case .popupForgotSite(let message, let at):
            var members: [String: JSONValue] = ["message": .integer(Int64(message))]
            if let at { members["at"] = .integer(at) }
            return input("popupForgotSite", members)
        case .popupPaused(let until): return input("popupPaused", ["until": .integer(until)])
        case .nativeReplyArrived(let request, let outcome):
            let reply: [String: JSONValue] = switch outcome {
            case .replied(let reply): ["reply": reply.json]
            case .unreadable(let json): ["reply": json]
            case .empty: [:]
            case .rejected(let reason): ["rejected": .string(reason.rawValue)]
            }
            return input("nativeReplyArrived", reply.merging(["request": .integer(Int64(request))]) { a, _ in a })
        case .timerFired(let timer): return input("timerFired", ["timer": json(timer)])
        case .alarmFired(let name): return name.isEmpty ? input("alarmFired") : input("alarmFired", ["name": .string(name)])
        case .alarmsChanged(let alarms): return input("alarmsChanged", ["alarms": encode(alarms)])
        case .pageMessage(let id, let from, let message, let active):
            var members: [String: JSONValue] = ["id": .integer(Int64(id)), "message": message]
            if let active { members["active"] = .string(active.rawValue) }
            switch from {
            case .tab(let tab, let url): members["tab"] = .string(tab.rawValue); members["url"] = .string(url)
            case .popup: members["popup"] = .bool(true)
            }
            return input("pageMessage", members)
        case .pageAnswered(let id, let answer, let unreachable):
            var members: [String: JSONValue] = ["id": .integer(Int64(id))]
            if let answer { members["answer"] = answer }
            if unreachable { members["unreachable"] = .bool(true) }
            return input("pageAnswered", members)
        case .portOpened(let port, let name, let from):
            var members: [String: JSONValue] = ["port": .integer(Int64(port)), "name": .string(name)]
            switch from {
            case .tab(let tab, let url): members["tab"] = .string(tab.rawValue); members["url"] = .string(url)
            case .popup: members["popup"] = .bool(true)
            }
            return input("portOpened", members)
        case .portMessage(let port, let message): return input("portMessage", ["port": .integer(Int64(port)), "message": message])
        case .portClosed(let port): return input("portClosed", ["port": .integer(Int64(port))])
        case .storageChanged(let area, let changes): return input("storageChanged", ["area": .string(area), "changes": changes])
        case .tabCreated(let tab, let url): return input("tabCreated", ["tab": .string(tab.rawValue), "url": .string(url)])
        case .tabUpdated(let tab, let url, let status, let urlChanged):
            var members: [String: JSONValue] = ["tab": .string(tab.rawValue), "url": .string(url), "status": .string(status.rawValue)]
            if urlChanged { members["urlChanged"] = .bool(true) }
            return input("tabUpdated", members)
        case .tabsAnswered(let request, let tab, let url, let error):
            var members: [String: JSONValue] = ["request": .integer(Int64(request))]
            if let tab { members["tab"] = .string(tab.rawValue) }
            if let url { members["url"] = .string(url) }
            if let error { members["error"] = .string(error) }
            return input("tabsAnswered", members)
        case .menuClicked(let id, let parentId, let tab, let url, let checked, let wasChecked):
            var members: [String: JSONValue] = ["id": id, "tab": .string(tab.rawValue), "url": .string(url)]
            if let parentId { members["parentId"] = parentId }
            if let checked { members["checked"] = .bool(checked) }
            if let wasChecked { members["wasChecked"] = .bool(wasChecked) }
            return input("menuClicked", members)
        case .commandPressed(let name, let tab, let url):
            var members: [String: JSONValue] = ["name": .string(name)]
            if let tab { members["tab"] = .string(tab.rawValue) }
            if let url { members["url"] = .string(url) }
            return input("commandPressed", members)
        case .navigated(let tab, let url, let stage):
            return input("webNavigation", ["tab": .string(tab.rawValue), "url": .string(url), "stage": .string(stage.rawValue)])
        }
    }

    /// Reads an input's JSON; anything that is not one of the forms above is an error naming
    /// the member at fault. A chosen scope is read later, by `input(for:now:)`.
    public static func decode(_ json: JSONValue) throws(NativeMessageError) -> Event {
        let root = JSONPath.root
        let members = try NativeRequest.object(json, root)
        func string(_ name: String) throws(NativeMessageError) -> String {
            guard case .string(let value)? = members[name] else { throw NativeMessageError(root.key(name), "expected a string") }
            return value
        }
        func integer(_ name: String) throws(NativeMessageError) -> Int64 {
            guard case .integer(let value)? = members[name] else { throw NativeMessageError(root.key(name), "expected an integer") }
            return value
        }
        func bool(_ name: String) -> Bool { members[name] == .bool(true) }
        /// The popup's message number: optional, 0 when absent.
        func message() throws(NativeMessageError) -> Int { members["message"] == nil ? 0 : Int(clamping: try integer("message")) }
        /// When the user acted, if the popup says (optional).
        func actionTime() throws(NativeMessageError) -> EpochMillis? {
            guard members["at"] != nil else { return nil }
            let at = try integer("at")
            guard (0...DocumentCodec.latestTime).contains(at) else { throw NativeMessageError(root.key("at"), "time \(at) is out of range") }
            return at
        }
        func appearance() throws(NativeMessageError) -> Appearance {
            guard let value = Appearance(rawValue: try string("appearance")) else {
                throw NativeMessageError(root.key("appearance"), "expected light or dark")
            }
            return value
        }
        func tab() throws(NativeMessageError) -> TabID { TabID(try string("tab")) }

        guard case .string(let type)? = members["type"] else { throw NativeMessageError(root.key("type"), "expected a string") }
        switch type {
        case "started":
            var tabs: [TabID: String] = [:]
            if case .object(let open)? = members["tabs"] {
                for (id, url) in open { if case .string(let text) = url { tabs[TabID(id)] = text } }
            }
            let offset = members["utcOffsetMinutes"].flatMap { if case .integer(let n) = $0 { Int(n) } else { nil } } ?? 0
            guard (-18 * 60...18 * 60).contains(offset) else { throw NativeMessageError(root.key("utcOffsetMinutes"), "expected minutes within ±18 hours") }
            let alarms = try members["alarms"].map { value throws(NativeMessageError) in try Self.alarms(value, at: root.key("alarms")) } ?? [:]
            var reason: StartReason?
            if let value = members["reason"] {
                guard case .string(let text) = value, let known = StartReason(rawValue: text) else { throw NativeMessageError(root.key("reason"), "expected startup, install or update") }
                reason = known
            }
            func optionalString(_ key: String) throws(NativeMessageError) -> String? {
                guard let value = members[key] else { return nil }
                guard case .string(let text) = value else { throw NativeMessageError(root.key(key), "expected a string") }
                return text
            }
            let action = try members["action"].map { value throws(NativeMessageError) in try ExtensionAction.decode(value, at: root.key("action")) } ?? ExtensionAction()
            var menus: [ExtensionMenuItem] = []
            if let value = members["menus"] {
                guard case .array(let items) = value else { throw NativeMessageError(root.key("menus"), "expected an array of menu items") }
                for (index, item) in items.enumerated() { menus.append(try ExtensionMenuItem.decode(item, at: root.key("menus").index(index))) }
            }
            return .started(appearance: try appearance(), utcOffsetMinutes: offset, tabs: tabs, appMessages: bool("appMessages"), alarms: alarms, reason: reason,
                            version: try optionalString("version"), previousVersion: try optionalString("previousVersion"), action: action, menus: menus)
        case "storageCompleted": return .storageCompleted(token: Int(try integer("token")))
        case "tabRequestedDecision": return .tabRequestedDecision(try tab(), url: try string("url"), nativeDark: bool("nativeDark"))
        case "tabNativeDarkChanged": return .tabNativeDarkChanged(try tab(), nativeDark: bool("nativeDark"))
        case "tabActivated": return .tabActivated(try tab())
        case "tabClosed": return .tabClosed(try tab())
        case "safariCameToForeground": return .safariCameToForeground
        case "safariWentToBackground": return .safariWentToBackground
        case "appMessageArrived": return .appMessageArrived(message: members["message"])
        case "appearanceChanged": return .appearanceChanged(try appearance())
        case "popupOpened": return .popupOpened(try tab())
        case "popupClosed": return .popupClosed
        case "popupChoseScope": return .popupChoseScope(scope: try string("scope"))
        case "popupEdited":
            let set = try NativeRequest.values(members["set"], root.key("set"))
            var reset: [SiteField] = []
            if let list = members["reset"] { reset = try NativeRequest.fieldList(list, root.key("reset")) }
            return .popupEdited(set: set, reset: reset, message: try message(), at: try actionTime())
        case "popupForgotSite": return .popupForgotSite(message: try message(), at: try actionTime())
        case "popupPaused":
            let until = try integer("until")
            guard (0...DocumentCodec.latestTime).contains(until) else { throw NativeMessageError(root.key("until"), "time \(until) is out of range") }
            return .popupPaused(until: until)
        case "nativeReplyArrived":
            let request = Int(try integer("request"))
            switch (members["reply"], members["rejected"]) {
            case (let reply?, nil): return .nativeReplyArrived(request: request, NativeOutcome(reading: reply))
            case (nil, nil): return .nativeReplyArrived(request: request, .empty)
            case (nil, .string(let reason)?):
                guard let rejection = NativeRejection(rawValue: reason) else {
                    throw NativeMessageError(root.key("rejected"), "expected \(NativeRejection.allCases.map(\.rawValue).joined(separator: " or "))")
                }
                return .nativeReplyArrived(request: request, .rejected(rejection))
            default: throw NativeMessageError(root, "expected either 'reply' or 'rejected' (a string), or neither")
            }
        case "timerFired":
            let timer = try WireObject(members["timer"] ?? .null, at: root.key("timer"))
            return .timerFired(try Self.timer(timer))
        case "alarmsChanged": return .alarmsChanged(alarms: try Self.alarms(members["alarms"] ?? .null, at: root.key("alarms")))
        case "alarmFired":
            guard let name = members["name"] else { return .alarmFired(name: "") }
            guard case .string(let text) = name else { throw NativeMessageError(root.key("name"), "expected a string") }
            return .alarmFired(name: text)
        case "pageMessage":
            guard let message = members["message"] else { throw NativeMessageError(root.key("message"), "expected a value") }
            let from: PageSender = members["popup"] == .bool(true) ? .popup : .tab(try tab(), url: try string("url"))
            let active = members["active"] == nil ? nil : TabID(try string("active"))
            return .pageMessage(id: Int(clamping: try integer("id")), from: from, message: message, active: active)
        case "pageAnswered": return .pageAnswered(id: Int(clamping: try integer("id")), answer: members["answer"], unreachable: bool("unreachable"))
        case "portOpened":
            let from: PageSender = members["popup"] == .bool(true) ? .popup : .tab(try tab(), url: try string("url"))
            return .portOpened(port: Int(clamping: try integer("port")), name: try string("name"), from: from)
        case "portMessage":
            guard let message = members["message"] else { throw NativeMessageError(root.key("message"), "expected a value") }
            return .portMessage(port: Int(clamping: try integer("port")), message: message)
        case "portClosed": return .portClosed(port: Int(clamping: try integer("port")))
        case "tabCreated": return .tabCreated(TabID(try string("tab")), url: try string("url"))
        case "webNavigation":
            guard let stage = NavigationStage(rawValue: try string("stage")) else {
                throw NativeMessageError(root.key("stage"), "expected \(NavigationStage.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .navigated(try tab(), url: try string("url"), stage: stage)
        case "commandPressed":
            func optional(_ name: String) throws(NativeMessageError) -> String? { members[name] == nil ? nil : try string(name) }
            return .commandPressed(name: try string("name"), tab: try optional("tab").map { TabID($0) }, url: try optional("url"))
        case "menuClicked":
            func identifier(_ name: String) throws(NativeMessageError) -> JSONValue? {
                switch members[name] {
                case nil: return nil
                case .string(let text)?: return .string(text)
                case .integer(let number)?: return .integer(number)
                case _?: throw NativeMessageError(root.key(name), "expected a string or an integer")
                }
            }
            func flag(_ name: String) throws(NativeMessageError) -> Bool? {
                switch members[name] {
                case nil: return nil
                case .bool(let value)?: return value
                case _?: throw NativeMessageError(root.key(name), "expected a boolean")
                }
            }
            guard let id = try identifier("id") else { throw NativeMessageError(root.key("id"), "expected a string or an integer") }
            return .menuClicked(id: id, parentId: try identifier("parentId"), tab: try tab(), url: try string("url"), checked: try flag("checked"),
                                wasChecked: try flag("wasChecked"))
        case "tabsAnswered":
            func optional(_ name: String) throws(NativeMessageError) -> String? { members[name] == nil ? nil : try string(name) }
            return .tabsAnswered(request: Int(clamping: try integer("request")), tab: try optional("tab").map { TabID($0) }, url: try optional("url"),
                                 error: try optional("error"))
        case "tabUpdated":
            guard let status = TabStatus(rawValue: try string("status")) else { throw NativeMessageError(root.key("status"), "expected loading or complete") }
            let urlChanged: Bool
            switch members["urlChanged"] {
            case nil: urlChanged = false
            case .bool(let value)?: urlChanged = value
            case _?: throw NativeMessageError(root.key("urlChanged"), "expected a boolean")
            }
            return .tabUpdated(TabID(try string("tab")), url: try string("url"), status: status, urlChanged: urlChanged)
        case "storageChanged":
            return .storageChanged(area: try storageArea(string("area"), at: root.key("area")), changes: try changes(members["changes"] ?? .null, at: root.key("changes")))
        default: throw NativeMessageError(root.key("type"), "unknown input '\(type.prefix(64))'")
        }
    }

    /// What the process does with an event that arrived at `now`: hand it to the machine, or
    /// complete a storage operation. A chosen scope is read into its canonical form (an invalid
    /// one is an error at `scope`), reset fields sorted.
    public static func input(for event: Event, now: EpochMillis) throws(NativeMessageError) -> ExtensionInput {
        switch event {
        case .started(let appearance, let offset, let tabs, let appMessages, _, _, _, _, _, _):
            return .machine(.started(now: now, appearance: appearance, utcOffsetMinutes: offset, tabs: tabs, appMessages: appMessages))
        case .storageCompleted(let token): return .storageCompleted(token: token)
        case .tabRequestedDecision(let tab, let url, let nativeDark): return .machine(.tabRequestedDecision(tab, url: url, nativeDark: nativeDark, now: now))
        case .tabNativeDarkChanged(let tab, let nativeDark): return .machine(.tabNativeDarkChanged(tab, nativeDark: nativeDark, now: now))
        case .tabActivated(let tab): return .machine(.tabActivated(tab, now: now))
        case .tabClosed(let tab): return .machine(.tabClosed(tab, now: now))
        case .safariCameToForeground: return .machine(.safariCameToForeground(now: now))
        case .appMessageArrived: return .machine(.appMessageArrived(now: now))
        case .appearanceChanged(let appearance): return .machine(.appearanceChanged(appearance, now: now))
        case .popupOpened(let tab): return .machine(.popupOpened(tab, now: now))
        case .popupClosed: return .machine(.popupClosed(now: now))
        case .popupChoseScope(let text):
            let scope: ScopeKey
            do { scope = try ScopeKey.parse(text) } catch { throw NativeMessageError(JSONPath.root.key("scope"), error.description) }
            return .machine(.popupChoseScope(scope, now: now))
        case .popupEdited(let set, let reset, let message, let at):
            return .machine(.popupEdited(set: set, reset: reset.sorted(), message: message, at: at, now: now))
        case .popupForgotSite(let message, let at): return .machine(.popupForgotSite(message: message, at: at, now: now))
        case .popupPaused(let until): return .machine(.popupPaused(until: until, now: now))
        case .nativeReplyArrived(let request, let outcome): return .machine(.nativeReplyArrived(request: request, outcome, now: now))
        case .timerFired(let timer): return .machine(.timerFired(timer, now: now))
        case .alarmFired: return .machine(.alarmFired(now: now))
        // The built-in background sets its one alarm afresh each time: Safari's list is not its.
        case .alarmsChanged: return .ignored
        // It listens for neither: Safari never sends them to it.
        case .tabCreated, .tabUpdated, .tabsAnswered, .safariWentToBackground, .menuClicked, .commandPressed, .navigated: return .ignored
        case .pageMessage, .pageAnswered, .portOpened, .portMessage, .portClosed, .storageChanged:
            // Safari sends these only to an extension whose own pages run: never to this background.
            throw NativeMessageError(JSONPath.root.key("type"), "the built-in background has no pages of its own: it takes no '\(name(event))'")
        }
    }
}
