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
/// `active`, the front window's active tab, if there is one; `userGesture`: true when an
/// extension page sent it in the user's click)
/// and `pageAnswered` (`id`, and `answer` unless the page answered nothing; `unreachable`: true when
/// no page heard it); `portOpened` (`port`, `name`, and `tab` and `url`, or `popup`: true),
/// `portMessage` (`port`, `message`) and `portClosed` (`port`; `error` when a port the background
/// opened never connected) for a port a page opened, or one the background opened to a tab;
/// `storageChanged` (`area`: `local`, `session` or `sync`; `changes`, as `storage.onChanged`
/// gives them) when one of its pages changed extension storage; `tabCreated` (`tab`, `url`) and
/// `tabUpdated` (`tab`, `url`, `status`: `loading` or `complete`, `urlChanged`: true when the load
/// went to a new address) for a background that listens for them; `tabsAnswered` (`request`, and
/// the tab's `tab` and `url`, or `error`; `results` for a script it ran; `granted` for a
/// permission request) when Safari did what its
/// `tabsCall` asked; `menuClicked`
/// (`id`, `parentId`?, `tab`, `url`, and `checked` and `wasChecked` for a checkbox or radio item)
/// when the user chose one of its menu items on a page (`started` carries the items Safari holds
/// as `menus`, left out when none); `commandPressed` (`name`, and the front window's active
/// `tab` and its `url` when it has one) when the user pressed the keys of one of its commands;
/// `actionClicked` (`tab`, `url`) when the user clicked its toolbar item where it has no popup;
/// `webNavigation` (`tab`, `url`, `stage`: `beforeNavigate`, `committed`, `domContentLoaded` or
/// `completed`) for each stage of a tab's load a background listens for;
/// `permissionsChanged` (`change`: `added` or `removed`, `permissions`, `origins`) when the
/// extension's optional permissions or host patterns were granted or taken back.
///
/// Directives (`type`): `storagePending` (`token`: send `storageCompleted` with it when the
/// storage operation should finish), `sendNative` (`request`, `message`), `setTimer` /
/// `cancelTimer` (`timer`: `{"nativeTimeout": N}`, `at`), `setAlarm` (`at`), `connectNative`, `listen` (`events`),
/// `sendDecision` (`tab`, `decision`), `showPopup` (`view`), `popupAnswer` (`message`, `saved`, `scope`);
/// `answerPage` (`id`, and `answer` unless it is none), `messageTab` (`tab`, `id`, `message`),
/// `messagePopup` (`id`, `message`); `portPost` (`port`, `message`) and `portClose` (`port`);
/// `connectTab` (`port`, below 0, `tab`, `name`);
/// `storageChanged` (`area`, `changes`: what a storage operation changed, for its own pages);
/// `tabsCall` (`request`, `method`: `create` (`url`, `active`), `update` (`tab`, `url`?,
/// `active`?), `reload` (`tab`), `remove` (`tabs`), or `executeScript`, `insertCSS` or
/// `removeCSS` (`tab`, and `func` and `args`, `files`, or `code`), or `requestPermissions`
/// (`permissions`, `origins`)), which Safari answers with
/// `tabsAnswered`;
/// `actionSet` (`property`, `value`, and `tab` when for one tab alone); `menusChanged` (`items`:
/// every menu item it has now, as `ExtensionMenuItem` gives each); `permissionsRemoved`
/// (`permissions`, `origins`: what `permissions.remove` took back of the user's grants).
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
        /// One of the extension's own pages changed the menu items Safari holds for it: all of
        /// them now, for a loaded background's copy (`menus.create` answers from it at once).
        case menusChanged(items: [ExtensionMenuItem])
        /// An extension's own page sent the background a message (`runtime.sendMessage`), the
        /// `id`th Safari carried; the background answers it with `answerPage`. `active` is the
        /// active tab of the window in front as the page sent it (`tabs.query` reads it).
        case pageMessage(id: Int, from: PageSender, message: JSONValue, active: TabID? = nil, userGesture: Bool = false)
        /// A page answered the background's `messageTab` or `messagePopup` numbered `id` (nil:
        /// with nothing); `unreachable`: no page of the extension's heard it.
        case pageAnswered(id: Int, answer: JSONValue?, unreachable: Bool = false)
        /// A page opened a port to the background (`runtime.connect`), numbered `port` by the
        /// page host, with the name it gave it (`""` for none).
        case portOpened(port: Int, name: String, from: PageSender)
        /// A page posted `message` on its port.
        case portMessage(port: Int, message: JSONValue)
        /// The other end of a port is gone: the page disconnected it, or the page went away.
        /// `error`: why a port the background opened never connected (`tabs.connect` to a tab
        /// that is not open, or whose page has no `runtime.onConnect` listener), as
        /// `runtime.lastError` says it to its `onDisconnect`.
        case portClosed(port: Int, error: String? = nil)
        /// One of its pages changed extension storage: the area (`local`, `session`, `sync`) and
        /// what changed, `{key: {oldValue?, newValue?}}` as `storage.onChanged` gives it.
        case storageChanged(area: String, changes: JSONValue)
        /// A tab opened (`tabs.onCreated`).
        case tabCreated(TabID, url: String)
        /// A tab's page began to load (`loading`; `urlChanged` when it goes to a new address) or
        /// finished (`complete`) (`tabs.onUpdated`).
        case tabUpdated(TabID, url: String, status: TabStatus, urlChanged: Bool = false)
        /// Safari did what the background's `tabsCall` numbered `request` asked: the tab it
        /// opened or changed, with its address, or nil with why it could not; for a script it
        /// ran in a page, what each run gave (`[{frameId, result?, error?}]`).
        case tabsAnswered(request: Int, tab: TabID?, url: String?, error: String?, results: JSONValue? = nil, granted: Bool? = nil)
        /// The user chose the extension's menu item `id` on the page of `tab` (`menus.onClicked`):
        /// `checked` and `wasChecked` for a checkbox or a radio item.
        case menuClicked(id: JSONValue, parentId: JSONValue?, tab: TabID, url: String, checked: Bool?, wasChecked: Bool?)
        /// The user pressed the keys of the extension's command `name` (`commands.onCommand`),
        /// with the front window's active tab, if it has one.
        case commandPressed(name: String, tab: TabID?, url: String?)
        /// The user clicked the extension's toolbar item over `tab`, which has no popup there
        /// (`action.onClicked`, or V2's `browserAction` and `pageAction`).
        case actionClicked(TabID, url: String)
        /// A stage of a tab's page load (`webNavigation`), for a background that listens for it.
        case navigated(TabID, url: String, stage: NavigationStage)
        /// The extension was granted optional permissions or host patterns (`added`), or they
        /// were taken back (`permissions.onAdded`, `onRemoved`): the permissions by name, the
        /// hosts as match patterns. Safari says permissions and patterns in separate events.
        case permissionsChanged(added: Bool, permissions: [String], origins: [String])
    }

    /// What the background asks Safari to do to its tabs (`tabs.create`, `update`, `reload`,
    /// `remove`), or to their pages (`scripting.executeScript`, `insertCSS`, `removeCSS`, and
    /// Manifest V2's `tabs.executeScript` and kin), or to ask its user (`permissions.request`:
    /// the optional permissions and host patterns not granted yet).
    public enum TabsCall: Equatable, Sendable {
        case create(url: String, active: Bool)
        case update(TabID, url: String?, active: Bool?)
        case reload(TabID)
        case remove([TabID])
        case inject(InjectionKind, TabID, Injection)
        case requestPermissions(permissions: [String], origins: [String])
    }

    /// What an injection does with what it is given: runs it as a script in the page's content
    /// script world, or adds or removes it as a style sheet.
    public enum InjectionKind: String, CaseIterable, Equatable, Sendable {
        case executeScript, insertCSS, removeCSS
    }

    /// What the background injects: a function's source (`Function.prototype.toString`) with
    /// its arguments, the extension's files, or a text (a script's or a style sheet's).
    public enum Injection: Equatable, Sendable {
        case function(String, arguments: [JSONValue])
        case files([String])
        case code(String)

        /// Its members as a call carries them: `func` and `args`, `files`, or `code`.
        public var members: [String: JSONValue] {
            switch self {
            case .function(let source, let arguments): ["func": .string(source), "args": .array(arguments)]
            case .files(let files): ["files": .array(files.map { .string($0) })]
            case .code(let code): ["code": .string(code)]
            }
        }
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
        /// `runtime.sendMessage`: a message for the extension's own pages (the open popup, and
        /// each tab that shows one of its pages), numbered and answered the same way (the name
        /// is from when the popup was the only one).
        case messagePopup(id: Int, message: JSONValue)
        /// `port.postMessage` on a port a page opened.
        case postOnPort(port: Int, message: JSONValue)
        /// `port.disconnect()` on a port a page opened, or one the background opened.
        case closePort(port: Int)
        /// `tabs.connect`: a port to the page of `tab`, numbered by the background below 0 (a
        /// page's ports are numbered above it), with the name it gave it (`""` for none). Its
        /// messages and its close travel as a page's port's do (`portPost`, `portClose`,
        /// `portMessage`, `portClosed`).
        case connectTab(port: Int, tab: TabID, name: String)
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
        /// `permissions.remove` took back what the user had granted: the permissions by name,
        /// the hosts as the match patterns the grant kept (none empty together).
        case permissionsRemoved(permissions: [String], origins: [String])
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
        case .menusChanged: "menusChanged"
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
        case .actionClicked: "actionClicked"
        case .navigated: "webNavigation"
        case .permissionsChanged: "permissionsChanged"
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
        case .connectTab: "connectTab"
        case .storageChanged: "storageChanged"
        case .tabsCall: "tabsCall"
        case .actionSet: "actionSet"
        case .menusChanged: "menusChanged"
        case .permissionsRemoved: "permissionsRemoved"
        }
    }
}
