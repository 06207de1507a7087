import ProcessKit

/// Which named scenarios catch each flaw (paths under `Scenarios/`), and by which failure. A
/// test runs every pair with the flaw switched on and requires that failure among those the
/// run reports: a run that fails for some other reason has not caught the flaw. Another test
/// requires every flaw to have at least one.
package enum FlawCatalogue {
    /// A failure that shows a flaw, as `ScenarioRunner` reports it.
    package enum Failure: Hashable, Sendable, CustomStringConvertible {
        /// The expectation on this line of the scenario fails.
        case expectation(line: Int)
        /// This invariant of the design breaks, after whichever step.
        case invariant(Int)

        package var description: String {
            switch self {
            case .expectation(let line): "the expectation on line \(line)"
            case .invariant(let number): "invariant \(number)"
            }
        }

        /// Whether a failure of a run (`ScenarioRunner.Outcome.marks`) is this one: the
        /// expectation of that line, or a break of that invariant, wherever it happened.
        func matches(_ failure: RunMarks.Failure) -> Bool {
            switch self {
            case .expectation(let line): failure.property == .expectation && failure.line == line
            case .invariant(let number): failure.property == .invariant(number)
            }
        }
    }

    /// A named scenario that catches a flaw, and the failure by which it does.
    package struct Catch: Hashable, Sendable {
        package var scenario: String
        package var failure: Failure

        init(_ scenario: String, _ failure: Failure) {
            self.scenario = scenario
            self.failure = failure
        }
    }

    package static func catches(of flaw: Flaw) -> [Catch] {
        switch flaw {
        case .popupFullSnapshot:
            // The popup's stale cache carries the old default over the app's newer one.
            [Catch("lifecycle/a-popup-change-never-carries-a-stale-cache-to-the-document.scenario", .expectation(line: 14))]
        case .siteRecordsCopyDefaults:
            // A site gets fields no edit of it gave.
            [Catch("transitions/02-popup-change-reaches-the-app.scenario", .invariant(3)),
             Catch("transitions/07-rapid-changes-in-both-interfaces.scenario", .invariant(3))]
        case .resetStoresDefault:
            // The reset field stays in the document, holding the default.
            [Catch("transitions/03-reset-then-change-the-default.scenario", .expectation(line: 14)),
             Catch("transitions/04-removing-the-last-override-removes-the-site.scenario", .expectation(line: 14))]
        case .deletionByOmission:
            // The older delayed patch brings the deleted site back.
            [Catch("lifecycle/a-deletion-is-not-undone-by-an-older-delayed-patch.scenario", .expectation(line: 17))]
        case .nativeFirstStartup:
            // A background with a cache waits for native before answering (for ever, if it hangs).
            [Catch("transitions/06-cold-start-answers-from-the-cache.scenario", .invariant(5)),
             Catch("lifecycle/a-hung-handler-leaves-tabs-on-the-cache.scenario", .expectation(line: 10)),
             // And, while it lasts, no tab gets a decision within the native timeout.
             Catch("lifecycle/a-hung-handler-leaves-tabs-on-the-cache.scenario", .invariant(6))]
        case .cacheInMemoryOnly:
            // After the unload there is no cache to answer from before native, though the
            // first background saved one.
            [Catch("transitions/06-cold-start-answers-from-the-cache.scenario", .expectation(line: 19)),
             Catch("transitions/06-cold-start-answers-from-the-cache.scenario", .invariant(5))]
        case .appSavesStaleSnapshot:
            // The app's save erases the popup's change made meanwhile.
            [Catch("transitions/07-rapid-changes-in-both-interfaces.scenario", .expectation(line: 16)),
             Catch("lifecycle/the-handler-holds-the-lock-from-its-read-to-its-rename.scenario", .expectation(line: 16))]
        case .inPlaceWrites:
            // A process dies mid-write and leaves the document torn.
            [Catch("lifecycle/a-crash-before-the-rename-keeps-the-old-document.scenario", .invariant(1)),
             Catch("transitions/07-rapid-changes-in-both-interfaces.scenario", .invariant(1))]
        case .noOutbox:
            // The popup's change is lost with the handler that crashed and the unload.
            [Catch("lifecycle/a-crashing-handler-loses-nothing-the-outbox-keeps.scenario", .expectation(line: 19))]
        case .pauseInMemory:
            // The unload ends the pause.
            [Catch("lifecycle/a-pause-survives-an-unload-but-not-a-safari-restart.scenario", .expectation(line: 15)),
             // Lost only at the 2-minute check the open popup's port postpones the unload to.
             Catch("safari/an-open-popup-keeps-the-background-loaded-two-minutes-after-its-last-update.scenario", .expectation(line: 20))]
        case .noReconcileOnForeground:
            // Safari comes to the front and the tab keeps the old decision.
            [Catch("transitions/01-an-app-default-change-reaches-an-open-tab.scenario", .expectation(line: 16)),
             Catch("seed-000/an-app-change-is-seen-when-the-page-becomes-visible-again.scenario", .expectation(line: 14))]
        case .mergingAcrossScopes:
            // The page's and the host's records take fields from less specific records.
            [Catch("transitions/05-the-most-specific-scope-wins.scenario", .expectation(line: 13))]
        case .cacheAsAuthority:
            // A different snapshot arrives and the tab keeps the cache's decision.
            [Catch("transitions/06-cold-start-answers-from-the-cache.scenario", .expectation(line: 13)),
             Catch("transitions/01-an-app-default-change-reaches-an-open-tab.scenario", .expectation(line: 16))]
        case .toggleProtocol:
            // A site's switch flips the default instead.
            [Catch("transitions/07-rapid-changes-in-both-interfaces.scenario", .invariant(3)),
             Catch("lifecycle/a-patch-survives-an-unload-before-its-answer.scenario", .invariant(3))]
        case .snapshotDropsWaitingPatches:
            // The tab goes back to the snapshot's decision while the patch still waits.
            [Catch("lifecycle/a-snapshot-arriving-while-a-patch-waits-keeps-the-patch.scenario", .expectation(line: 14))]
        case .readModifyWriteWithoutLock:
            // The handler's write, from its earlier read, loses the app's change.
            [Catch("lifecycle/the-handler-holds-the-lock-from-its-read-to-its-rename.scenario", .expectation(line: 17))]
        case .oneTimestampForDocument:
            // The popup's change to a site, no newer than the app's change to the defaults, is dropped.
            [Catch("lifecycle/a-popup-change-never-carries-a-stale-cache-to-the-document.scenario", .expectation(line: 15))]
        case .answerBeforeCacheLoaded:
            // A tab's first answer comes from the built-in defaults: before the cache is read,
            // or, with no cache, before the snapshot (and the tab, answered, never asks again).
            [Catch("transitions/06-cold-start-answers-from-the-cache.scenario", .expectation(line: 11)),
             Catch("lifecycle/a-tab-whose-answer-was-lost-gets-one-after-the-wake.scenario", .expectation(line: 8))]
        case .lockKeptAfterAFailure:
            // The app's save fails on a full disk and it keeps the lock when its input is done.
            [Catch("lifecycle/a-full-disk-refuses-a-save-and-keeps-the-document.scenario", .invariant(9))]
        case .handlerKeepsDocumentInStatic:
            // The kept handler answers the second snapshot from its static: not modified. The
            // system keeps it by default, so the design's own scenarios show it too.
            [Catch("safari/a-reused-handler-process-reads-the-document-afresh.scenario", .expectation(line: 15)),
             Catch("transitions/01-an-app-default-change-reaches-an-open-tab.scenario", .expectation(line: 16))]
        case .timeoutFromTheLastInput:
            // The recovery request is given up at once: the tab stays on the stale cache, and
            // invariant 7 sees it one timeout and the handler's delay after the activation.
            [Catch("lifecycle/a-request-after-a-native-timeout-gets-the-full-timeout.scenario", .invariant(7)),
             Catch("lifecycle/a-request-after-a-native-timeout-gets-the-full-timeout.scenario", .expectation(line: 19)),
             // The explorer's own find: the recovery a popup change set off loses its answer.
             Catch("lifecycle/a-popup-change-after-a-native-timeout-gets-its-answer.scenario", .invariant(7))]
        case .listenersAfterCacheRead:
            // The popup change that woke the background is dropped: the page never shows it.
            [Catch("safari/the-event-that-wakes-the-background-finds-its-listener.scenario", .expectation(line: 16))]
        case .appIgnoresChangeNotifications:
            // The app in front keeps showing the mode the first version's toggle changed.
            [Catch("seed-000/the-old-toggle-reaches-the-app-in-front.scenario", .invariant(10)),
             Catch("seed-000/the-old-toggle-reaches-the-app-in-front.scenario", .expectation(line: 12))]
        case .noAlarmForTimeChanges:
            // The page keeps the old look past the boundary and the pause's end (invariant 11).
            [Catch("lifecycle/schedule-boundaries-and-pause-expiry-change-open-tabs.scenario", .invariant(11)),
             Catch("lifecycle/a-pause-from-the-popup-ends-on-time-after-an-unload.scenario", .invariant(11)),
             Catch("lifecycle/a-pause-from-the-popup-ends-on-time-after-an-unload.scenario", .expectation(line: 18))]
        case .contentScriptAsksOnce:
            // The page whose question the unload or the kill emptied never asks again.
            [Catch("lifecycle/a-tab-whose-answer-was-lost-gets-one-after-the-wake.scenario", .expectation(line: 8)),
             Catch("lifecycle/a-page-in-a-hidden-tab-asks-again-when-its-background-dies.scenario", .expectation(line: 12)),
             Catch("lifecycle/a-page-whose-background-is-unloaded-waits-one-timeout-for-the-next.scenario", .invariant(6))]
        }
    }

    static func scenarios(catching flaw: Flaw) -> [String] {
        catches(of: flaw).map(\.scenario)
    }
}
