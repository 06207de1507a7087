import ProcessKit

/// Which named scenarios catch each flaw (paths under `Scenarios/`). A test runs every pair
/// with the flaw switched on and requires an expectation or an invariant to fail; another
/// requires every flaw to have at least one.
public enum FlawCatalogue {
    public static func scenarios(catching flaw: Flaw) -> [String] {
        switch flaw {
        case .popupFullSnapshot: ["lifecycle/a-popup-change-never-carries-a-stale-cache-to-the-document.scenario"]
        case .siteRecordsCopyDefaults: ["transitions/02-popup-change-reaches-the-app.scenario", "transitions/07-rapid-changes-in-both-interfaces.scenario"]
        case .resetStoresDefault: ["transitions/03-reset-then-change-the-default.scenario", "transitions/04-removing-the-last-override-removes-the-site.scenario"]
        case .deletionByOmission: ["lifecycle/a-deletion-is-not-undone-by-an-older-delayed-patch.scenario"]
        case .nativeFirstStartup: ["transitions/06-cold-start-answers-from-the-cache.scenario", "lifecycle/a-hung-handler-leaves-tabs-on-the-cache.scenario"]
        case .cacheInMemoryOnly: ["transitions/06-cold-start-answers-from-the-cache.scenario"]
        case .appSavesStaleSnapshot: ["transitions/07-rapid-changes-in-both-interfaces.scenario", "lifecycle/the-handler-holds-the-lock-from-its-read-to-its-rename.scenario"]
        case .inPlaceWrites: ["lifecycle/a-crash-before-the-rename-keeps-the-old-document.scenario", "transitions/07-rapid-changes-in-both-interfaces.scenario"]
        case .noOutbox: ["lifecycle/a-crashing-handler-loses-nothing-the-outbox-keeps.scenario"]
        case .pauseInMemory: ["lifecycle/a-pause-survives-an-unload-but-not-a-safari-restart.scenario"]
        case .noReconcileOnForeground: ["transitions/01-an-app-default-change-reaches-an-open-tab.scenario", "seed-000/an-app-change-is-seen-when-the-page-becomes-visible-again.scenario"]
        case .mergingAcrossScopes: ["transitions/05-the-most-specific-scope-wins.scenario"]
        case .cacheAsAuthority: ["transitions/06-cold-start-answers-from-the-cache.scenario", "transitions/01-an-app-default-change-reaches-an-open-tab.scenario"]
        case .toggleProtocol: ["transitions/07-rapid-changes-in-both-interfaces.scenario", "lifecycle/a-patch-survives-an-unload-before-its-answer.scenario"]
        case .snapshotDropsWaitingPatches: ["lifecycle/a-snapshot-arriving-while-a-patch-waits-keeps-the-patch.scenario"]
        case .readModifyWriteWithoutLock: ["lifecycle/the-handler-holds-the-lock-from-its-read-to-its-rename.scenario"]
        case .oneTimestampForDocument: ["lifecycle/a-popup-change-never-carries-a-stale-cache-to-the-document.scenario"]
        case .answerBeforeCacheLoaded: ["transitions/06-cold-start-answers-from-the-cache.scenario", "lifecycle/a-tab-whose-answer-was-lost-gets-one-after-the-wake.scenario"]
        }
    }
}
