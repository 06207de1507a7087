import ProcessKit

extension Step {
    /// What of this project's design the step needs (its shared document, its app, its
    /// decisions, its popup's edits, its first version), in words; nil for a step any
    /// extension can take. A probe (`probe`) refuses such steps.
    var designPart: String? {
        switch self {
        case .shared, .cache, .sharedLegacy, .sharedDamaged: "the design's shared document and cache"
        case .extensionFolder: "an extension of its own (a probe runs the one the command names)"
        case .expectFailure(let number) where !Self.anyDesignInvariants.contains(number):
            "invariant \(number), one of the design's (a probe checks invariants 15 to 18)"
        case .app(.setGroup), .app(.resetGroup), .app(.dispatch): nil
        case .app: "the design's app (the team's app is 'app set group', 'app reset group' and 'app dispatch')"
        case .popup(.scope), .popup(.set), .popup(.reset), .popup(.forget), .popup(.pause): "the design's popup edits (a probe's popup takes 'popup click' and 'popup choose')"
        case .legacy: "the design's first version"
        case .expect(let expectation, _, _): expectation.designPart
        case .platform, .epoch, .seed, .profile, .alarmMinimum, .backgroundLoadTime, .handlerReuse, .handlerFresh, .freshInstall, .fetchStub, .expectFailure, .watchdog,
             .heapLimit, .handlerSource, .groupDefaults, .probe, .safari, .tab, .popup, .appearance, .background, .handler, .hold,
             .release, .crash, .fail, .menuClick, .command, .actionClick, .optionsOpen, .permission, .permissionRevoke, .advance, .deviceSleep, .settle:
            nil
        }
    }

    /// The invariants every extension keeps, whatever its design: its scripts throw nothing
    /// uncaught (15), a page loaded afresh shows what it showed (16), every page's message is
    /// answered (17), and no process dies without a cause (18).
    static let anyDesignInvariants: ClosedRange<Int> = 15...18
}

extension Expectation {
    /// What of the design an expectation reads, in words; nil for one any extension can use.
    var designPart: String? {
        switch self {
        case .tab, .tabUndecided, .firstDecision, .firstDecisionBeforeNativeReply: "the design's decisions"
        case .sharedDefaults, .sharedSite, .sharedSiteAbsent, .sharedTombstone, .sharedDamaged: "the design's shared document"
        case .appSites, .appSite, .appDefaults, .appAnswer: "the design's app"
        case .popup: "the design's popup view"
        case .converged: "the design's convergence"
        case .legacy: "the design's first version"
        case .page, .popupOver, .background, .alarm, .element, .groupDefault, .storage, .console, .action: nil
        }
    }
}
