import ProcessKit
import SiteSettings

/// One step of a scenario, parsed and checked: what the user, Safari or the operating system
/// does, a fault, time passing, or an expectation. `ScenarioParser` makes steps from text and
/// `ScenarioPrinter` writes them back, so `parse(print(steps)) == steps`.
package enum Step: Equatable, Sendable {
    // MARK: Setup (before the first action)
    case platform(Simulation.Platform)
    case epoch(EpochMillis)
    case seed(UInt64)
    /// The starting shared document: a defaults or site line applied to it, or a file.
    case shared(StartingDocument)
    /// The background's starting cache: the shared document changed by these lines, or a file.
    case cache(StartingDocument)
    /// The first version's boolean in the group's preferences.
    case sharedLegacy(enabled: Bool)
    /// The document on disk is cut off halfway; the document described so far is its last good copy.
    case sharedDamaged
    /// Before the first action, the profile in front at the start; after it, a profile switch.
    case profile(String)
    /// The shortest delay Safari allows an alarm (30 s; 1 minute in older releases).
    case alarmMinimum(EpochMillis)
    /// `background-load-time DURATION`: how long a background's load takes before its scripts run.
    case backgroundLoadTime(EpochMillis)
    /// The system reuses the native handler's process: one serves requests in turn, keeping
    /// its statics, while another starts for a request that comes while it is busy.
    case handlerReuse
    /// `handler fresh`: the system starts a handler's process for each request.
    case handlerFresh
    /// `fresh-install`: the run starts as the extension is installed: nothing is cached, and
    /// the background loads at once, its load firing `runtime.onInstalled` with reason `install`.
    case freshInstall
    /// The background is this unpacked extension's JavaScript (its folder relative to the
    /// scenario's), run in the harness's runtime instead of the built-in background; with
    /// `pages`, its content scripts and popup run too, in place of the reference ones.
    case extensionFolder(String, pages: Bool = false)
    /// `fetch URL STATUS [BODY]`: what an extension's JavaScript gets when it fetches `url`, the
    /// only answer the network gives (the rest of the line is the body), or `fetch URL STATUS
    /// file PATH`: the body is that file's (relative to the scenario), as it is.
    case fetchStub(url: String, status: Int, body: FetchBody)
    /// `expect-failure invariant N`: the run breaks invariant N on purpose (a known bug).
    case expectFailure(invariant: Int)
    /// `watchdog DURATION`: how long, in wall time, a turn of the extension's JavaScript may run
    /// before its runtime ends it (`ExtensionRuntime.watchdogMilliseconds` unless given).
    case watchdog(milliseconds: Int)
    /// `heap-limit N MiB`: the most heap each `node` process of the extension's runtime may use
    /// (`ExtensionRuntime.heapLimitMiB` unless given).
    case heapLimit(mebibytes: Int)
    /// `handler source PATH`: the team's own native handler, a Swift file or a folder of them
    /// (relative to the scenario), built into the handler role (`TeamHandler`); it repeats.
    case handlerSource(String)
    /// `group defaults SUITE [KEY JSON]`: the App Group's defaults before the run, as the team's
    /// app left them (`UserDefaults(suiteName: SUITE)`): a key's value, or only the suite, empty.
    case groupDefaults(suite: String, key: String?, value: JSONValue?)
    /// `probe [DIR]`: a lifecycle probe any extension can run. It runs the extension the command
    /// names (`--extension`), else the one in DIR (relative to the scenario), with its own pages;
    /// its tabs open at an address the extension's content scripts match, and only the
    /// invariants every extension keeps are checked (`Step.anyDesignInvariants`).
    case probe(String?)

    // MARK: Actions
    case app(AppStep)
    case safari(SafariStep)
    case tab(TabStep)
    case popup(PopupStep)
    case appearance(Appearance)
    case background(BackgroundStep)
    case handler(Simulation.HandlerBehaviour)
    case hold(ProcessName, at: YieldPoint)
    case release(ProcessName)
    case crash(ProcessName, at: YieldPoint)
    case fail(ProcessName, at: YieldPoint, with: StorageErrno, after: Bool)
    case legacy(LegacyStep)
    /// `menu click ID TAB`: the user chooses the extension's menu item `ID` on the tab's page.
    case menuClick(String, TabID)
    /// `command NAME`: the user presses the keys of the extension's command `NAME`.
    case command(String)
    /// `action click TAB`: the user clicks the extension's toolbar item over the tab.
    case actionClick(TabID)
    /// `options open`: the user opens the extension's options page from Safari's settings, in
    /// a new tab named `options` (`TabID.options`), in front. (`options click ID`, `options
    /// choose ID VALUE`, `options close` and `expect options page ...` are the tab steps and
    /// check on that tab.)
    case optionsOpen
    /// `permission grant` or `permission refuse`: the user answers the oldest permission prompt
    /// (a `permissions.request` of the background's or of an extension page's).
    case permission(granted: Bool)
    /// `permission revoke ITEM`: the user takes back, in Safari's settings, a permission or a
    /// host pattern they granted the extension (as `permissions.getAll` names it).
    case permissionRevoke(String)
    case advance(EpochMillis)
    /// The device sleeps this long: the wall clock moves on, Safari's monotonic clock does not.
    case deviceSleep(EpochMillis)
    case settle
    /// An expectation checked now, or, `within` a time, as soon as it holds: time moves from one
    /// due moment to the next until it does, and stays where it first held. `fails`
    /// (`expect-failure ...`): it fails on purpose, a known bug the scenario pins down.
    case expect(Expectation, within: EpochMillis? = nil, fails: Bool = false)

    /// Setup steps must come before the first action (`profile` is both).
    var isSetup: Bool {
        switch self {
        case .platform, .epoch, .seed, .shared, .cache, .sharedLegacy, .sharedDamaged, .alarmMinimum, .backgroundLoadTime, .handlerReuse, .handlerFresh, .freshInstall, .extensionFolder, .fetchStub, .expectFailure, .watchdog, .heapLimit, .handlerSource, .groupDefaults, .probe: true
        case .profile, .app, .safari, .tab, .popup, .appearance, .background, .handler, .hold, .release, .crash, .fail, .legacy, .menuClick, .command,
             .actionClick, .optionsOpen, .permission, .permissionRevoke, .advance, .deviceSleep, .settle, .expect: false
        }
    }

    /// Whether the step leaves a pending reconciliation bound (invariants 7 and 8) in force: it
    /// changes neither the shared document nor the handler, and kills, freezes or hides no
    /// background. Tabs, the appearance and the popup's view and pause only ask for decisions
    /// the background must give from a cache it has brought up to date; anything else (an
    /// edit, a fault, a lifecycle event) starts a new story.
    var keepsReconciliationBound: Bool {
        switch self {
        case .tab(.click), .tab(.choose): false
        case .tab, .appearance, .popup(.open), .popup(.close), .popup(.scope), .popup(.pause), .actionClick, .optionsOpen, .permission, .permissionRevoke, .advance, .settle, .expect: true
        case .popup(.set), .popup(.reset), .popup(.forget), .popup(.click), .popup(.choose), .platform, .epoch, .seed, .shared, .cache, .sharedLegacy, .sharedDamaged,
             .alarmMinimum, .backgroundLoadTime, .handlerReuse, .handlerFresh, .freshInstall, .extensionFolder, .fetchStub, .expectFailure, .watchdog, .heapLimit, .handlerSource, .groupDefaults, .probe, .profile, .app, .safari, .background, .handler, .hold, .release, .crash, .fail, .legacy,
             .menuClick, .command, .deviceSleep: false
        }
    }
}

/// The storage errors a `fail` step can inject.
package enum StorageErrno: String, CaseIterable, Equatable, Sendable {
    case noSpace = "ENOSPC"
    case io = "EIO"

    var code: Int32 {
        switch self {
        case .noSpace: 28
        case .io: 5
        }
    }
}

/// A site key as the scenario wrote it (the app receives it so), checked to be a valid key.
/// Two keys are the same step only when written the same way.
package struct WrittenScope: Equatable, Sendable {
    let text: String
    let key: ScopeKey

    package init(_ text: String) throws(ScopeKeyError) {
        self.text = text
        key = try ScopeKey.parse(text)
    }

    package static func == (a: WrittenScope, b: WrittenScope) -> Bool { a.text == b.text }
}

/// Field values a step sets or expects: `mode=on theme=gray nativeDarkPolicy=respect
/// schedule=20:00-06:00` (a schedule only for the defaults).
package struct FieldValues: Equatable, Sendable {
    var mode: Mode?
    var theme: Theme?
    var nativeDarkPolicy: NativeDarkPolicy?
    var schedule: Schedule?

    package init(mode: Mode? = nil, theme: Theme? = nil, nativeDarkPolicy: NativeDarkPolicy? = nil, schedule: Schedule? = nil) {
        self.mode = mode
        self.theme = theme
        self.nativeDarkPolicy = nativeDarkPolicy
        self.schedule = schedule
    }

    /// A site's values (a site has no schedule).
    init(_ values: SiteValues) {
        self.init(mode: values.mode, theme: values.theme, nativeDarkPolicy: values.nativeDarkPolicy)
    }

    var isEmpty: Bool { self == FieldValues() }

    /// The values as an edit of the defaults.
    var defaults: DefaultsValues { DefaultsValues(mode: mode, theme: theme, nativeDarkPolicy: nativeDarkPolicy, schedule: schedule) }

    /// The values as an edit of a site (which has no schedule).
    var site: SiteValues { SiteValues(mode: mode, theme: theme, nativeDarkPolicy: nativeDarkPolicy) }

    /// Each value set, by field name, as text (`20:00-06:00` for a schedule).
    var texts: [(name: String, value: String)] {
        var pairs: [(String, String)] = []
        if let mode { pairs.append(("mode", mode.rawValue)) }
        if let theme { pairs.append(("theme", theme.rawValue)) }
        if let nativeDarkPolicy { pairs.append(("nativeDarkPolicy", nativeDarkPolicy.rawValue)) }
        if let schedule { pairs.append(("schedule", "\(schedule.start)-\(schedule.end)")) }
        return pairs
    }

    /// As a scenario writes them: `mode=off theme=sepia`.
    var words: String { texts.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }
}

/// How a setup line describes a starting document.
package enum StartingDocument: Equatable, Sendable {
    case defaults(FieldValues)
    case site(WrittenScope, FieldValues)
    /// A document file, its path relative to the scenario's folder.
    case file(String)
}

package enum AppStep: Equatable, Sendable {
    case launch, foreground, background, kill
    case setDefaults(FieldValues)
    case setSite(WrittenScope, FieldValues)
    case resetSite(WrittenScope, [SiteField])
    case deleteSite(WrittenScope)
    /// The team's app writes an App Group default (`app set group SUITE KEY JSON`) or removes it
    /// (`app reset group SUITE KEY`): the harness plays that app, brought to the front first.
    case setGroup(suite: String, key: String, value: JSONValue)
    case resetGroup(suite: String, key: String)
    /// The team's app sends the extension a message (`SFSafariApplication.dispatchMessage`,
    /// macOS only): `{"name": NAME, "userInfo": JSON}` on each native port the background holds.
    case dispatch(name: String, userInfo: JSONValue)
}

package enum SafariStep: Equatable, Sendable {
    case foreground, background, restart
    /// Web Inspector attached to the background (`on`) or closed (`off`).
    case inspect(Bool)
    /// A new version of the extension is installed: the files of `folder` (relative to the
    /// scenario) as the version their manifest gives, the same files as `version`, or (both
    /// nil) the same files as the installed version with its last number one higher.
    case updateExtension(version: String? = nil, folder: String? = nil)

    static let allCases: [SafariStep] = [.foreground, .background, .restart, .inspect(true), .inspect(false), .updateExtension()]

    /// The step's words after `safari`.
    var text: String {
        switch self {
        case .foreground: "foreground"
        case .background: "background"
        case .restart: "restart"
        case .inspect(let on): on ? "inspect on" : "inspect off"
        case .updateExtension(_, let folder?): "update-extension \(folder)"
        case .updateExtension(let version?, nil): "update-extension version=\(version)"
        case .updateExtension(nil, nil): "update-extension"
        }
    }
}

package enum TabStep: Equatable, Sendable {
    /// `html`: the file (relative to the scenario) whose document the page shows; nil, a plain page.
    case open(TabID, url: String, nativeDark: Bool, window: Int?, html: String? = nil)
    case activate(TabID)
    case reload(TabID)
    case navigate(TabID, url: String, html: String? = nil)
    case close(TabID)
    /// The content script detects (or stops detecting) a native dark theme.
    case nativeDark(TabID, Bool)
    /// `tab click TAB ID`: the user clicks the element with this id in the tab's page (its
    /// window's active tab).
    case click(TabID, String)
    /// `tab choose TAB ID VALUE`: the user picks the option of this value in the page's select
    /// with this id (`""`: the empty value).
    case choose(TabID, String, value: String)

    /// The document file (`html=FILE`) the step shows, if it names one.
    var document: String? {
        switch self {
        case .open(_, _, _, _, let html), .navigate(_, _, let html): html
        default: nil
        }
    }
}

package enum PopupStep: Equatable, Sendable {
    case open(TabID)
    case scope(WrittenScope)
    case set(FieldValues)
    case reset([SiteField])
    case forget
    case pause(EpochMillis)
    case close
    /// The user clicks the element with this id in the extension's own popup.
    case click(String)
    /// The user picks the option of this value in the select with this id (`""`: the empty value).
    case choose(String, value: String)
}

package enum BackgroundStep: String, CaseIterable, Equatable, Sendable {
    case unload, kill, freeze, thaw
}

/// The first version's messages, straight to a native handler.
package enum LegacyStep: String, CaseIterable, Equatable, Sendable {
    case getEnabled = "get-enabled"
    case toggle
}

/// The body of a `fetch` line's answer: the rest of the line, or a file's bytes as text.
package enum FetchBody: Equatable, Sendable {
    case text(String)
    case file(String)
}
