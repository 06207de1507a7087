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

    /// The tab it is about, if it is about one.
    package var tab: TabID? {
        switch self {
        case .tab(let id, _), .tabUndecided(let id), .firstDecision(let id, _), .firstDecisionBeforeNativeReply(let id), .page(let id, _): id
        case .popupOver(let id): id
        case .sharedDefaults, .sharedSite, .sharedSiteAbsent, .sharedTombstone, .sharedDamaged, .appSites, .appSite, .appDefaults, .appAnswer,
             .popup, .background, .alarm, .converged, .legacy: nil
        }
    }
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
    package var key: String {
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
    package var field: SiteField
    /// The value as stored (`sepia`), or nil for absent.
    package var value: String?

    package init(_ field: SiteField, _ value: String?) {
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
    package var text: String {
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
    package func problem(_ state: PageState) -> String? {
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
