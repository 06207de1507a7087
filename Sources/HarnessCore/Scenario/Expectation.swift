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
    /// The front profile's background: its state, and which incarnation it is (or was last).
    case background(BackgroundState?, incarnation: Int?)
    /// The front profile's alarm, as Safari holds it.
    case alarm(AlarmCheck)
    /// Every visible tab, the popup, the app in front and the cache agree with the shared document.
    case converged
    /// What the first version's last message was answered.
    case legacy(enabled: Bool)

    /// The tab it is about, if it is about one.
    package var tab: TabID? {
        switch self {
        case .tab(let id, _), .tabUndecided(let id), .firstDecision(let id, _), .firstDecisionBeforeNativeReply(let id): id
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
