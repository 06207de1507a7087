/// Known lifecycle bugs that a run can switch on, to show that the named scenarios catch them.
/// Each is one mistake seen in real extensions or named in the articles this project follows;
/// `explanation` says which bug it reproduces and which rule of the design it breaks. A flaw travels in every input frame; the machines
/// and the storage consult the set they are given, so with no flaw all flawed code is dead.
public enum Flaw: String, CaseIterable, Sendable, Hashable {
    case popupFullSnapshot = "popup-full-snapshot"
    case siteRecordsCopyDefaults = "site-records-copy-defaults"
    case resetStoresDefault = "reset-stores-default"
    case deletionByOmission = "deletion-by-omission"
    case nativeFirstStartup = "native-first-startup"
    case cacheInMemoryOnly = "cache-in-memory-only"
    case appSavesStaleSnapshot = "app-saves-stale-snapshot"
    case inPlaceWrites = "in-place-writes"
    case noOutbox = "no-outbox"
    case pauseInMemory = "pause-in-memory"
    case noReconcileOnForeground = "no-reconcile-on-foreground"
    case mergingAcrossScopes = "merging-across-scopes"
    case cacheAsAuthority = "cache-as-authority"
    case toggleProtocol = "toggle-protocol"
    case snapshotDropsWaitingPatches = "snapshot-drops-waiting-patches"
    case readModifyWriteWithoutLock = "read-modify-write-without-lock"
    case oneTimestampForDocument = "one-timestamp-for-document"
    case answerBeforeCacheLoaded = "answer-before-cache-loaded"
    case listenersAfterCacheRead = "listeners-after-cache-read"
    case lockKeptAfterAFailure = "lock-kept-after-a-failure"
    case timeoutFromTheLastInput = "timeout-from-the-last-input"
    case handlerKeepsDocumentInStatic = "handler-keeps-document-in-static"
    case contentScriptAsksOnce = "content-script-asks-once"
    case appIgnoresChangeNotifications = "app-ignores-change-notifications"
    case noAlarmForTimeChanges = "no-alarm-for-time-changes"

    /// The bug, and the rule it breaks.
    public var explanation: String {
        switch self {
        case .popupFullSnapshot:
            """
            The popup sends its whole cached document instead of a patch, and the handler stores it: \
            a stale cache overwrites the app's newer changes. Breaks the rule that edits travel as \
            operations, never as documents.
            """
        case .siteRecordsCopyDefaults:
            """
            A new site record starts as a copy of every default, so later default changes never \
            reach the site. Breaks the rule that a site record holds only the fields the user \
            changed.
            """
        case .resetStoresDefault:
            """
            Resetting a field stores today's default in the site instead of removing the field. \
            Breaks the rule that a reset removes the field, so the site follows the default again.
            """
        case .deletionByOmission:
            """
            Deleting a site drops its record and leaves no tombstone, so an older delayed patch \
            brings the site back. Breaks the rule that a deletion is explicit and leaves a \
            tombstone.
            """
        case .nativeFirstStartup:
            """
            The background waits for the native snapshot before answering, even with a cache: pages \
            show the wrong look on every cold start. Breaks cache-first startup: never wait on \
            native.
            """
        case .cacheInMemoryOnly:
            """
            The background keeps its cache only in memory: after every unload it starts with nothing \
            and must wait for native. Breaks the rule that the cache lives in extension storage.
            """
        case .appSavesStaleSnapshot:
            """
            The app saves the whole document it read earlier, with its change, over the file: a \
            popup change made meanwhile is erased. Breaks the rule that the app applies its \
            operation to the document as it is on disk, under the lock.
            """
        case .inPlaceWrites:
            """
            The document is rewritten in place instead of through a temporary file and a rename: a \
            crash mid-write leaves it torn. Breaks the rule that every write is a flushed temporary \
            file renamed over the document.
            """
        case .noOutbox:
            """
            A popup change is shown and sent at once but kept only in memory: if its answer is lost \
            and the background unloads, the change is gone. Breaks the rule that a popup change \
            waits in a durable outbox until the handler acknowledges it.
            """
        case .pauseInMemory:
            """
            The pause lives in the background's memory, so an unload ends it. Breaks the rule that \
            the pause lives in session storage and survives an unload.
            """
        case .noReconcileOnForeground:
            """
            Safari coming to the foreground is not a reconciliation point: on iOS an app change \
            waits for some other event. Breaks the rule that the background asks for the snapshot at \
            every reconciliation point.
            """
        case .mergingAcrossScopes:
            """
            A field missing from the most specific record is taken from a less specific one instead \
            of the defaults. Breaks the rule that resolution never merges fields across scopes.
            """
        case .cacheAsAuthority:
            """
            The background keeps its cache when a different snapshot arrives. Breaks the rule that a \
            valid snapshot from the handler always wins over the cache.
            """
        case .toggleProtocol:
            """
            The popup's on/off switch sends the first version's toggle instead of the value: a \
            retried message flips twice, a stale view flips the wrong way, and the default changes \
            instead of the site. Breaks the rule that edits set values.
            """
        case .snapshotDropsWaitingPatches:
            """
            A snapshot that arrives while patches wait replaces everything and drops them: the tab \
            flashes back and the change may be lost. Breaks the rule that waiting patches stay on \
            top of a new snapshot.
            """
        case .readModifyWriteWithoutLock:
            """
            Writers read, change and write the document without the lock: two interleaved writers \
            lose one's change. Breaks the rule that every read-merge-write runs under the lock.
            """
        case .oneTimestampForDocument:
            """
            The document keeps one timestamp: an edit older than its latest change is dropped even \
            when it touches another site or field. Breaks the rule that merging compares each field \
            on its own.
            """
        case .answerBeforeCacheLoaded:
            """
            The background answers a request that arrives before its cache is loaded from the built- \
            in defaults, then corrects it: a flash of the wrong look. Breaks the rule that the first \
            answer comes from the cache.
            """
        case .listenersAfterCacheRead:
            """
            The background registers its listeners only after it has read its storage, a classic \
            MV3 mistake: Safari delivers the event that woke it before that, finds no listener, \
            and drops it: the tab's request or the popup's change that woke it is lost. Breaks the \
            rule that no event is lost in a wake.
            """
        case .lockKeptAfterAFailure:
            """
            A writer whose storage step fails returns without releasing the container's lock (an \
            early return that skips the unlock): every other writer then waits for it. Breaks the \
            rule that no process keeps the lock while it waits for input.
            """
        case .timeoutFromTheLastInput:
            """
            After a native timeout, the recovery request at the next event is timed from the \
            previous input's moment, often already past: it is given up at once, its answer is \
            dropped, and the tab stays on a stale cache however often it retries. Breaks the rule \
            that every native request gets the whole timeout from the moment it is sent.
            """
        case .handlerKeepsDocumentInStatic:
            """
            The native handler keeps the document it read in a static and answers later reads \
            from it: harmless while each request has a process of its own, stale as soon as the \
            system reuses the process, which keeps its statics (as it does by default here). \
            Breaks the rule that the handler has no memory across requests.
            """
        case .contentScriptAsksOnce:
            """
            The content script asks for the page's decision once, when the page loads or shows: \
            when the background dies before answering, Safari resolves the question with nothing, \
            and the page keeps what it showed (nothing, after a load) until it is shown again or \
            reloads. Breaks the rule that a page whose question is lost asks again.
            """
        case .appIgnoresChangeNotifications:
            """
            The app reads the shared document when it launches and when it comes to the front, \
            but ignores the Darwin notification that a handler changed it: a change made in \
            Safari while the app is open shows there only after the user leaves and comes back. \
            Breaks the rule that a running app shows the document as it is.
            """
        case .noAlarmForTimeChanges:
            """
            The background works out each decision when asked, but sets no alarm for the next \
            change that time brings (a schedule boundary, a pause's end): an open page keeps the \
            old look until some event wakes the background. Breaks the rule that a time-driven \
            change reaches open tabs through an alarm.
            """
        }
    }

    /// The flaws named in a frame; names this version does not know are ignored.
    public static func set(_ names: [String]) -> Set<Flaw> { Set(names.compactMap(Flaw.init(rawValue:))) }
}
