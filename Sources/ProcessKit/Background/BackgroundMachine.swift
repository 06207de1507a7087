import SiteSettings

/// The extension background's logic (an MV3 service worker Safari starts for an event and
/// unloads without notice). Cache first: it answers from the cache it loads from extension
/// storage, never waiting for native, then asks the handler for the snapshot and corrects what
/// differs. Popup changes apply at once, wait in a durable outbox, and leave it only when the
/// handler acknowledges them. No clock, file or random source: time and results are inputs.
///
/// This file holds its inputs, outputs, state and the handling of each input; the rest is in
/// extensions by concern: `+Tabs` (decisions and the popup), `+Outbox` (popup changes and
/// `storage.local`), `+Native` (reconciliation and the native exchange). Known bugs (`flaws`)
/// branch off the normal path at calls named `flawed…`, kept in `BackgroundMachine+Flaws.swift`;
/// with no flaw switched on they change nothing.
public struct BackgroundMachine {
    public enum Input: Equatable, Sendable {
        /// Safari started the background (for the event that follows). `tabs` are the open tabs
        /// as `tabs.query` reports them.
        /// `appMessages`: the containing app can message the extension on this platform (macOS),
        /// through a native port the background opens.
        case started(now: EpochMillis, appearance: Appearance, utcOffsetMinutes: Int, tabs: [TabID: String], appMessages: Bool = false)
        /// Extension storage finished loading (nil: nothing stored or unreadable).
        case storageLoaded(local: LocalStorage?, session: SessionStorage?, now: EpochMillis)
        case localStorageSaved(token: Int, now: EpochMillis)
        /// A save of `storage.local` failed: a popup change it carried was never acknowledged.
        case localStorageSaveFailed(token: Int, now: EpochMillis)
        /// `storage.local` could not be read, so nothing may be saved over it in this incarnation;
        /// `storage.session`, which Safari keeps in memory, was read.
        case storageLoadFailed(session: SessionStorage?, now: EpochMillis)
        case tabRequestedDecision(TabID, url: String, nativeDark: Bool, now: EpochMillis)
        case tabNativeDarkChanged(TabID, nativeDark: Bool, now: EpochMillis)
        case tabActivated(TabID, now: EpochMillis)
        case tabClosed(TabID, now: EpochMillis)
        case safariCameToForeground(now: EpochMillis)
        /// macOS only: the app dispatched a message saying the settings changed.
        case appMessageArrived(now: EpochMillis)
        case appearanceChanged(Appearance, now: EpochMillis)
        case popupOpened(TabID, now: EpochMillis)
        case popupClosed(now: EpochMillis)
        case popupChoseScope(ScopeKey, now: EpochMillis)
        /// The user changed fields for the selected scope. `message` numbers the popup's message;
        /// its answer (`popupAnswer`) says whether the change was saved. `at` is when the user
        /// acted (the popup's own clock); the edit is stamped with it, not with when the
        /// background got round to it.
        case popupEdited(set: SiteValues, reset: [SiteField], message: Int = 0, at: EpochMillis? = nil, now: EpochMillis)
        /// "Forget this site": delete the selected scope's record.
        case popupForgotSite(message: Int = 0, at: EpochMillis? = nil, now: EpochMillis)
        case popupPaused(until: EpochMillis, now: EpochMillis)
        /// A native request ended: answered, rejected by Safari, or answered with something unreadable.
        case nativeReplyArrived(request: Int, NativeOutcome, now: EpochMillis)
        case timerFired(BackgroundTimer, now: EpochMillis)
        case alarmFired(now: EpochMillis)
    }

    public enum Directive: Equatable, Sendable {
        /// Load `storage.local` and `storage.session`; the result arrives as `storageLoaded`.
        case loadStorage
        /// Save `storage.local` (cache and outbox in one write); `localStorageSaved(token)` follows.
        case saveLocalStorage(LocalStorage, token: Int)
        case saveSessionStorage(SessionStorage)
        case sendNative(request: Int, NativeRequest)
        case setTimer(BackgroundTimer, at: EpochMillis)
        case cancelTimer(BackgroundTimer)
        /// An alarm survives an unload and wakes the background (`alarmFired`).
        case setAlarm(at: EpochMillis)
        /// Open a port to the native app (`runtime.connectNative`): the app's messages arrive on
        /// it (`appMessageArrived`) while this background lives and holds it.
        case connectNative
        /// Register listeners for these events: Safari dispatches an event to the background,
        /// and wakes it for one, only while it listens for it.
        case listen([BackgroundListener])
        case sendDecision(TabID, Decision)
        case showPopup(PopupView)
        /// The answer to a popup change: saved (durable in the outbox, and shown), not saved, or
        /// nil when its save failed and may or may not have reached the disk; and the record it
        /// changes. A saved change the handler later refuses for good is answered again, not saved.
        case popupAnswer(message: Int, saved: Bool?, scope: ScopeKey?)
    }

    /// How long the background waits for a native reply: Safari sets no limit of its own.
    public static let nativeTimeout: EpochMillis = 5_000

    // MARK: - State

    // The state's types are in BackgroundState.swift and in files of their own (NativeExchange,
    // FirstSnapshot, Outbox). It is internal rather than private so that the extensions in
    // BackgroundMachine+….swift, the flaw hooks among them, can reach it.

    /// When the input being handled happened.
    var now: EpochMillis = 0
    var appearance = Appearance.light
    var utcOffsetMinutes = 0

    // Extension storage.

    var storage = Storage.loading(waiting: [])
    /// The last valid snapshot from the handler (kept in `storage.local` with the outbox).
    var cache: SettingsDocument?
    /// The `(documentId, revision)` of the snapshot the cache was built from.
    var snapshotVersion: DocumentVersion?
    /// The popup changes the handler has not acknowledged, and where each is with its save.
    var outbox = Outbox()
    /// The last save of `storage.local` failed: storage may hold an older cache and outbox
    /// than memory, so the next reconciliation point saves again.
    var saveOwed = false
    /// The token the next save of `storage.local` gets; its result names it.
    var nextToken = 1
    var session = SessionStorage()

    // The native handler.

    /// The requests to the handler: the snapshot request's phase, the patches out, and whether
    /// a recovery is due.
    var native = NativeExchange()
    /// Whether tabs may be answered before the handler's first snapshot.
    var firstSnapshot = FirstSnapshot.awaited

    // Tabs and the popup.

    /// What tabs and the popup see: the cache with the confirmed outbox on top (see
    /// `visibleDocument`), rebuilt when a change should become visible; nil while there is
    /// neither cache nor outbox.
    var resolver: Resolver?
    var tabs: [TabID: Tab] = [:]
    var popup: OpenPopup?

    /// Known bugs switched on for this run (none in normal use).
    public var flaws: Set<Flaw> = []

    public init() {}

    // MARK: - Inputs

    public mutating func handle(_ input: Input) -> [Directive] {
        var directives: [Directive] = []
        // Requests are numbered in the order they are sent, so those sent while handling this
        // input are the ones numbered from here on.
        let firstNewRequest = native.nextRequest
        switch input {
        case .started(let now, let appearance, let offset, let openTabs, let appMessages):
            self.now = now
            self.appearance = appearance
            utcOffsetMinutes = offset
            // The background cannot know what tabs show after a wake: each gets a fresh decision.
            for (id, url) in openTabs { tabs[id] = Tab(url: url, answer: .waiting(lastSent: nil)) }
            // Listeners are registered at once, before anything asynchronous, so the event that
            // woke the background finds them.
            if !flawedListensLate { directives.append(.listen(BackgroundListener.builtIn)) }
            directives.append(.loadStorage)
            // The app's changes arrive only on a port the background holds open.
            if appMessages { directives.append(.connectNative) }
        case .storageLoaded(let stored, let storedSession, let now):
            self.now = now
            if case .loading(let waiting) = storage {
                // A cache in memory before a load came from native after an earlier load
                // failed: it is newer than any stored one, which it replaces (and is saved).
                let fromNative = cache == nil ? nil : local
                adopt(stored ?? LocalStorage())
                adopt(storedSession)
                if let fromNative, fromNative.snapshotVersion != snapshotVersion {
                    cache = fromNative.cache
                    snapshotVersion = fromNative.snapshotVersion
                    directives += save()
                }
                directives += finishLoading(.loaded, waiting: waiting, firstNewRequest: firstNewRequest)
            }
        case .storageLoadFailed(let storedSession, let now):
            self.now = now
            if case .loading(let waiting) = storage {
                adopt(storedSession)
                directives += finishLoading(.unreadable, waiting: waiting, firstNewRequest: firstNewRequest)
            }
        case .localStorageSaved, .localStorageSaveFailed, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated,
             .tabClosed, .safariCameToForeground, .appMessageArrived, .appearanceChanged, .popupOpened, .popupClosed,
             .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused, .nativeReplyArrived, .timerFired, .alarmFired:
            switch storage {
            case .loading(let waiting):
                if let early = flawedAnswerBeforeLoading(input) {
                    directives += early
                } else {
                    storage = .loading(waiting: waiting + [input])
                }
            case .unreadable where input.retriesAnUnreadableStorage:
                // A reconciliation point tries storage again: a read that failed once may work
                // now, and until it does nothing can be saved. The input waits for the result.
                storage = .loading(waiting: [input])
                directives.append(.loadStorage)
            case .loaded, .unreadable:
                directives += handleLoaded(input, firstNewRequest: firstNewRequest)
            }
        }
        return directives
    }

    /// Storage is loaded (or unreadable): handles the inputs that waited for it in order, then
    /// reconciles and answers the tabs that can now be answered. `firstNewRequest`: the number of
    /// the first native request sent while handling the current input.
    private mutating func finishLoading(_ loaded: Storage, waiting: [Input], firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        storage = loaded
        if flawedListensLate { directives.append(.listen(BackgroundListener.builtIn)) }
        rebuildResolver()
        let loadedAt = now
        // Straight to the loaded handling: an input that waited is not a reason to load again.
        for input in waiting { directives += handleLoaded(input, firstNewRequest: firstNewRequest) }
        // The inputs that waited carry their own, earlier times; what follows happens now.
        now = loadedAt
        directives += reconcile(forceFull: false, firstNewRequest: firstNewRequest)
        directives += pushChangedDecisions()
        return directives
    }

    /// Handles any input but the start and the load's result, once storage is loaded.
    /// `firstNewRequest`: the number of the first native request sent while handling the current
    /// input (a wake replays what waited for storage within one input).
    private mutating func handleLoaded(_ input: Input, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        if !flawedRecoversAtTheLastInput { now = input.now }
        if native.recoveryDue && !input.isNativeExchange {
            // Recovery after a timeout comes first, at this input's time: every request gets the
            // whole timeout from the moment it is sent.
            native.recoveryDue = false
            directives += reconcile(forceFull: false, firstNewRequest: firstNewRequest)
        }
        now = input.now
        switch input {
        case .started, .storageLoaded, .storageLoadFailed:
            preconditionFailure("\(input) is handled before storage is consulted")
        case .localStorageSaved(let token, _):
            saveOwed = false
            directives += saveFinished(token: token, saved: true)
            for entry in outbox.confirmFailedSaves() { directives += sendPatch(entry) }
        case .localStorageSaveFailed(let token, _):
            // The save failed, perhaps after it took effect: the change may or may not survive a
            // restart. Memory keeps it as storage may have (the next save that works makes it
            // durable), it is shown, it goes out once a save works, and the answer says "unknown".
            saveOwed = true
            directives += saveFinished(token: token, saved: nil)
        case .tabRequestedDecision(let id, let url, let nativeDark, _):
            var tab = tabs[id] ?? Tab(url: url, answer: .waiting(lastSent: nil))
            let navigated = tab.url != url
            tab.url = url
            tab.nativeDark = nativeDark
            tabs[id] = tab
            directives += rememberNativeDark(id, nativeDark)
            directives += answer(id)
            if navigated, popup?.tab == id {
                // The popup is a live view of its tab: a new page has its own scopes.
                popup?.chosenScope = nil
                directives += popupDirective()
            }
        case .tabNativeDarkChanged(let id, let nativeDark, _):
            tabs[id]?.nativeDark = nativeDark
            directives += rememberNativeDark(id, nativeDark)
            directives += pushChangedDecisions()
        case .safariCameToForeground where flawedIgnoresForeground:
            break
        case .tabActivated, .safariCameToForeground, .appMessageArrived:
            directives += reconcile(forceFull: false, firstNewRequest: firstNewRequest)
        case .tabClosed(let id, _):
            tabs[id] = nil
            if popup?.tab == id { popup = nil }
            directives += rememberNativeDark(id, false)
        case .appearanceChanged(let appearance, _):
            self.appearance = appearance
            directives += pushChangedDecisions()
        case .popupOpened(let id, _):
            popup = OpenPopup(tab: id)
            directives += popupDirective()
        case .popupClosed:
            popup = nil
        case .popupChoseScope(let scope, _):
            popup?.chosenScope = scope
            directives += popupDirective()
        case .popupEdited(let set, let reset, let message, let at, _):
            if !set.isEmpty || !reset.isEmpty, let scope = selectedScope() {
                directives += recordEdit(.patch(scope: scope, set: set, reset: reset, stamp: popupStamp(at)), message: message)
            } else {
                directives.append(.popupAnswer(message: message, saved: false, scope: nil))
            }
        case .popupForgotSite(let message, let at, _):
            if let scope = selectedScope() {
                directives += recordEdit(.deleteSite(scope: scope, stamp: popupStamp(at)), message: message)
            } else {
                directives.append(.popupAnswer(message: message, saved: false, scope: nil))
            }
        case .popupPaused(let until, _):
            session.pausedUntil = until
            if !flawedKeepsPauseInMemory { directives.append(.saveSessionStorage(session)) }
            directives += pushChangedDecisions()
        case .nativeReplyArrived(let request, let reply, _):
            directives += nativeRequestAnswered(request, reply, firstNewRequest: firstNewRequest)
        case .timerFired(.nativeTimeout(let request), _):
            directives += nativeRequestTimedOut(request)
        case .timerFired(.script, _):
            // This background sets no script timer: one that fires is not its own.
            break
        case .alarmFired:
            directives += pushChangedDecisions()
        }
        return directives
    }
}
