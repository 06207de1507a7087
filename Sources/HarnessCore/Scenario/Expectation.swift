import ProcessKit
import SiteSettings

/// What a scenario expects at one moment of its run, parsed and checked before anything runs.
/// `ExpectationChecker` compares one with the simulation.
package enum Expectation: Equatable, Sendable {
    /// The decision a tab applied last.
    case tab(TabID, [DecisionCheck])
    /// The tab has applied no decision since it (re)loaded.
    case tabUndecided(TabID)
    /// The first decision the tab applied since it (re)loaded.
    case firstDecision(TabID, [DecisionCheck])
    /// The tab's first decision came before any native reply reached the background.
    case firstDecisionBeforeNativeReply(TabID)
    case sharedDefaults(FieldValues)
    case sharedSite(WrittenScope, [SiteFieldCheck])
    case sharedSiteAbsent(WrittenScope)
    case sharedTombstone(WrittenScope)
    /// How many damaged documents were set aside (`settings.damaged-N.json`); when the scenario
    /// planted one (`shared damaged`), one of them must hold its bytes.
    case sharedDamaged(count: Int)
    /// The sites the app lists, in its order.
    case appSites([WrittenScope])
    /// The fields the app shows a site overriding.
    case appSite(WrittenScope, [SiteFieldCheck])
    /// The defaults the app shows.
    case appDefaults(FieldValues)
    /// The answer the app gave the scenario's last app edit.
    case appAnswer(AppAnswer)
    case popup([DecisionCheck])
    /// Whether the popup is open, and over which tab: `popup open t1`, `popup closed` (nil).
    case popupOver(TabID?)
    /// The front profile's background: its state, and which incarnation it is (or was last).
    case background(BackgroundState?, incarnation: Int?)
    /// The front profile's alarm, as Safari holds it.
    case alarm(AlarmCheck)
    /// Every visible tab, the popup, the app in front and the cache agree with the shared document.
    case converged
    /// What the first version's last message was answered.
    case legacy(enabled: Bool)
    /// What the extension's own content scripts left on the tab's page (`extension DIR pages`).
    case page(TabID, PageCheck)
    /// The first element a selector matches on a tab's page or the popup (or how many match).
    case element(PageName, selector: String, ElementCheck)
    /// A key of the App Group's defaults, as the handler's `UserDefaults(suiteName:)` reads it.
    case groupDefault(suite: String, key: String, ValueCheck)
    /// A key of the front profile's `storage.local` or `storage.session`.
    case storage(StorageArea, key: String, ValueCheck)
    /// A line the front profile's background logged since the run began (any incarnation), or
    /// the tab's page since it last loaded, contains this text.
    case console(ConsoleSource, contains: String)
    /// The front profile's toolbar item as a tab shows it (nil: as every tab does, unless one has
    /// its own values): each property's value.
    case action(TabID?, [ActionCheck])

    /// The tab it is about, if it is about one.
    var tab: TabID? {
        switch self {
        case .tab(let id, _), .tabUndecided(let id), .firstDecision(let id, _), .firstDecisionBeforeNativeReply(let id), .page(let id, _),
             .console(.tab(let id), _), .element(.tab(let id), _, _), .action(let id?, _): id
        case .popupOver(let id): id
        case .groupDefault, .storage, .console(.background, _), .console(.popup, _), .element(.popup, _, _), .action(nil, _): nil
        case .sharedDefaults, .sharedSite, .sharedSiteAbsent, .sharedTombstone, .sharedDamaged, .appSites, .appSite, .appDefaults, .appAnswer,
             .popup, .background, .alarm, .converged, .legacy: nil
        }
    }
}

/// One value of the toolbar item an `expect action` line checks (`badge="3"`, `enabled=false`).
package struct ActionCheck: Equatable, Sendable {
    /// The words a line names each property by.
    static let keys: [(word: String, property: ExtensionAction.Property)] = [("badge", .badgeText), ("title", .title), ("popup", .popup), ("enabled", .enabled)]

    var property: ExtensionAction.Property
    var value: JSONValue

    var word: String { Self.keys.first { $0.property == property }!.word }
}

/// How a stored JSON value is checked: equal to a value (numbers by value, objects whatever
/// their keys' order), absent, or including a value's members (recursively: an object's keys
/// with values that include the expected ones, an array or a scalar equal).
package enum ValueCheck: Equatable, Sendable {
    case equals(JSONValue)
    case absent
    case includes(JSONValue)

    /// Why `found` (nil: absent) does not pass, or nil.
    func problem(_ found: JSONValue?) -> String? {
        switch (self, found) {
        case (.absent, nil): return nil
        case (.absent, let value?): return "expected it absent, found \(Self.shown(value))"
        case (.equals(let wanted), nil): return "expected \(Self.shown(wanted)), found it absent"
        case (.includes(let wanted), nil): return "expected a value that includes \(Self.shown(wanted)), found it absent"
        case (.equals(let wanted), let value?): return Self.same(wanted, value) ? nil : "expected \(Self.shown(wanted)), found \(Self.shown(value))"
        case (.includes(let wanted), let value?): return Self.includes(value, wanted) ? nil : "expected it to include \(Self.shown(wanted)), found \(Self.shown(value))"
        }
    }

    /// A value as a failure shows it: its JSON, cut at 600 bytes.
    static func shown(_ value: JSONValue) -> String {
        let bytes = JSONWriter.compact(value)
        guard bytes.count > 600 else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.prefix(600), as: UTF8.self) + "… (\(bytes.count) bytes)"
    }

    /// JSON values as values: an integer and a double of the same number are equal.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): Double(x) == y
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)): x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default: a == b
        }
    }

    static func includes(_ value: JSONValue, _ wanted: JSONValue) -> Bool {
        guard case .object(let members) = wanted else { return same(wanted, value) }
        guard case .object(let found) = value else { return false }
        return members.allSatisfy { key, member in found[key].map { includes($0, member) } ?? false }
    }
}

/// The storage areas an expectation reads.
package enum StorageArea: String, CaseIterable, Equatable, Sendable {
    case local, session, sync

    /// Its file in the profile's extension storage.
    var fileName: String { rawValue + ".json" }
}

/// A page of the extension's own that an expectation reads: the front profile's tab's, or the
/// popup.
package enum PageName: Equatable, Sendable {
    case tab(TabID)
    case popup
}

/// Whose console an expectation reads.
package enum ConsoleSource: Equatable, Sendable {
    case background
    case tab(TabID)
    /// The extension's own popup, since it last opened.
    case popup
}

/// One value of a decision or of the popup's view: `enabled`, `disabled`, `theme=sepia`,
/// `reason=modeOn`, `scope=docs.example.com` (or `scope=none`), `mode=on`,
/// `nativeDarkPolicy=respect`, `source.theme=default`.
package enum DecisionCheck: Equatable, Sendable {
    case enabled(Bool)
    case theme(Theme)
    case reason(DecisionReason)
    case scope(WrittenScope?)
    case mode(Mode)
    case nativeDarkPolicy(NativeDarkPolicy)
    case source(SiteField, ValueSource)

    /// The key it is written with.
    var key: String {
        switch self {
        case .enabled: "enabled"
        case .theme: "theme"
        case .reason: "reason"
        case .scope: "scope"
        case .mode: "mode"
        case .nativeDarkPolicy: "nativeDarkPolicy"
        case .source(let field, _): "source.\(field.rawValue)"
        }
    }
}

/// One field of a site record: its value, or `absent` (nil).
package struct SiteFieldCheck: Equatable, Sendable {
    var field: SiteField
    /// The value as stored (`sepia`), or nil for absent.
    var value: String?

    init(_ field: SiteField, _ value: String?) {
        self.field = field
        self.value = value
    }
}

/// What `expect alarm` checks: no alarm pending, one due now or overdue (not fired yet), or one
/// due after this long.
package enum AlarmCheck: Equatable, Sendable {
    case none
    case due
    case inTime(EpochMillis)
}

/// The answer an app edit got.
package enum AppAnswer: String, CaseIterable, Equatable, Sendable {
    /// The app wrote it and answered the new revision.
    case saved
    /// The app answered that it could not save it (refused, or a storage failure).
    case refused
    /// No answer (the app was killed, or the edit is still waiting).
    case none
}

/// Where the front profile's background is, as Safari sees it.
package enum BackgroundState: String, CaseIterable, Equatable, Sendable {
    /// Loaded and taking events.
    case running
    /// Loaded and stopped (SIGSTOP, or iOS with Safari in the background).
    case frozen
    /// Not loaded: never started yet, unloaded when idle, or gone with a Safari restart.
    case unloaded
    /// Killed by a step (or died at a planned crash) and not started again.
    case killed
}

/// One thing on a page's root element: `style.filter contains invert`, `style.filter empty`,
/// `style.color=red`, `class dark-theme`, `no-class dark-theme`, `data.theme=sepia`.
package enum PageCheck: Equatable, Sendable {
    case styleContains(String, String)
    case styleEmpty(String)
    case styleEquals(String, String)
    case hasClass(String)
    case lacksClass(String)
    case data(String, String)

    /// As a scenario writes it.
    var text: String {
        switch self {
        case .styleContains(let name, let part): "style.\(name) contains \(part)"
        case .styleEmpty(let name): "style.\(name) empty"
        case .styleEquals(let name, let value): "style.\(name)=\(value)"
        case .hasClass(let name): "class \(name)"
        case .lacksClass(let name): "no-class \(name)"
        case .data(let name, let value): "data.\(name)=\(value)"
        }
    }

    /// Why `state` does not hold, or nil.
    func problem(_ state: PageState) -> String? {
        switch self {
        case .styleContains(let name, let part):
            let value = state.style[name] ?? ""
            return value.contains(part) ? nil : "style.\(name): expected it to contain '\(part)', got \(value.isEmpty ? "nothing" : "'\(value)'")"
        case .styleEmpty(let name):
            let value = state.style[name] ?? ""
            return value.isEmpty ? nil : "style.\(name): expected nothing, got '\(value)'"
        case .styleEquals(let name, let wanted):
            let value = state.style[name] ?? ""
            return value == wanted ? nil : "style.\(name): expected '\(wanted)', got \(value.isEmpty ? "nothing" : "'\(value)'")"
        case .hasClass(let name):
            return state.classes.contains(name) ? nil : "class \(name): expected it, got \(state.classes.isEmpty ? "no class" : state.classes.joined(separator: " "))"
        case .lacksClass(let name):
            return state.classes.contains(name) ? "class \(name): expected it absent, it is there" : nil
        case .data(let name, let wanted):
            let value = state.data[name]
            return value == wanted ? nil : "data.\(name): expected '\(wanted)', got \(value.map { "'\($0)'" } ?? "nothing")"
        }
    }
}
