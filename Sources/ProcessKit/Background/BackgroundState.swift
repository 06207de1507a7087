import SiteSettings

/// Shapes of the background machine's state for loading storage, tabs and the popup (the native
/// exchange, the first snapshot and the outbox have files of their own): enums whose cases carry
/// their data, so that a combination that cannot happen cannot be written either.
extension BackgroundMachine {
    /// Where this incarnation is with loading extension storage.
    enum Storage {
        /// Not loaded yet. Other inputs wait here, oldest first, and are handled once it is
        /// (`started` and the load's own result are handled at once).
        case loading(waiting: [Input])
        /// Loaded, or found empty (a first run): what the background saves goes to it.
        case loaded
        /// It could not be read: saving would overwrite what it holds, so nothing is saved in
        /// this incarnation and popup changes, which could not be made durable, are refused.
        case unreadable
    }

    /// An open tab as the background knows it.
    struct Tab {
        var url: String
        var nativeDark = false
        var answer: Answer

        /// Whether the tab asked and has no answer yet.
        var isWaiting: Bool {
            if case .waiting = answer { return true }
            return false
        }

        /// The decision last sent to the tab, if any.
        var lastSent: Decision? {
            switch answer {
            case .waiting(let lastSent): lastSent
            case .answered(let decision): decision
            }
        }
    }

    /// Where a tab is with its decision.
    enum Answer {
        /// Due an answer that could not be given yet (nothing cached, or a wake: the background
        /// cannot know what the tab shows); the first push with something to answer from sends
        /// one. `lastSent` is the decision it had before, if any.
        case waiting(lastSent: Decision?)
        /// Sent this decision; later pushes send only a change.
        case answered(Decision)
    }

    /// The popup while it is open, on the tab it was opened for.
    struct OpenPopup {
        var tab: TabID
        /// The scope the user picked, if any; otherwise edits go to the most specific existing
        /// record, else the host.
        var chosenScope: ScopeKey?
    }
}

/// What the background machine reads from any input.
extension BackgroundMachine.Input {
    /// When the input happened.
    var now: EpochMillis {
        switch self {
        case .started(let now, _, _, _, _), .storageLoaded(_, _, let now), .localStorageSaved(_, let now),
             .localStorageSaveFailed(_, let now), .storageLoadFailed(_, let now), .tabRequestedDecision(_, _, _, let now),
             .tabNativeDarkChanged(_, _, let now), .tabActivated(_, let now), .tabClosed(_, let now),
             .safariCameToForeground(let now), .appMessageArrived(let now), .appearanceChanged(_, let now),
             .popupOpened(_, let now), .popupClosed(let now), .popupChoseScope(_, let now),
             .popupEdited(_, _, _, _, let now), .popupForgotSite(_, _, let now), .popupPaused(_, let now),
             .nativeReplyArrived(_, _, let now), .timerFired(_, let now), .alarmFired(let now):
            now
        }
    }

    /// A native reply or a native timeout: part of an exchange with the handler, not an event
    /// that makes a reconciliation point.
    var isNativeExchange: Bool {
        switch self {
        case .nativeReplyArrived, .timerFired:
            true
        case .started, .storageLoaded, .localStorageSaved, .localStorageSaveFailed, .storageLoadFailed, .tabRequestedDecision,
             .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariCameToForeground, .appMessageArrived, .appearanceChanged,
             .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused, .alarmFired:
            false
        }
    }

    /// The reconciliation points that try an unreadable storage again: Safari to the front,
    /// a tab activated, the alarm.
    var retriesAnUnreadableStorage: Bool {
        switch self {
        case .safariCameToForeground, .tabActivated, .alarmFired:
            true
        case .started, .storageLoaded, .localStorageSaved, .localStorageSaveFailed, .storageLoadFailed, .tabRequestedDecision,
             .tabNativeDarkChanged, .tabClosed, .appMessageArrived, .appearanceChanged, .popupOpened, .popupClosed,
             .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused, .nativeReplyArrived, .timerFired:
            false
        }
    }
}
