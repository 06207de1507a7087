import SiteSettings

/// The extension background's logic (an MV3 service worker Safari starts for an event and
/// unloads without notice). Cache first: it answers from the cache it loads from extension
/// storage, never waiting for native, then asks the handler for the snapshot and corrects what
/// differs. Popup changes apply at once, wait in a durable outbox, and leave it only when the
/// handler acknowledges them. No clock, file or random source: time and results are inputs.
///
/// Known bugs (`flaws`) branch off the path below at calls named `flawed…`, kept in
/// `BackgroundMachine+Flaws.swift`; with no flaw switched on they change nothing.
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

    // Its types are in BackgroundState.swift. It is internal rather than private so that the
    // flaw hooks in BackgroundMachine+Flaws.swift can reach it.

    var storage = Storage.loading(waiting: [])
    /// The last valid snapshot from the handler (kept in `storage.local` with the outbox).
    var cache: SettingsDocument?
    /// The `(documentId, revision)` of the snapshot the cache was built from.
    var snapshotVersion: DocumentVersion?
    /// The popup changes the handler has not acknowledged, and where each is with its save.
    var outbox = Outbox()
    var session = SessionStorage()
    /// What tabs and the popup see: the cache with the confirmed outbox on top (see
    /// `visibleDocument`), rebuilt when a change should become visible; nil while there is
    /// neither cache nor outbox.
    var resolver: Resolver?
    var tabs: [TabID: Tab] = [:]
    var popup: OpenPopup?
    var appearance = Appearance.light
    var utcOffsetMinutes = 0
    var now: EpochMillis = 0
    var nextToken = 1
    /// The requests to the native handler: the snapshot request's phase, the patches out, and
    /// whether a recovery is due.
    var native = NativeExchange()
    /// Whether tabs may be answered before the handler's first snapshot.
    var firstSnapshot = FirstSnapshot.awaited
    /// The last save of `storage.local` failed: storage may hold an older cache and outbox
    /// than memory, so the next reconciliation point saves again.
    var saveOwed = false

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
            if !flawedListensLate { directives.append(.listen(BackgroundListener.allCases)) }
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
        if flawedListensLate { directives.append(.listen(BackgroundListener.allCases)) }
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
            // durable), it is shown and sent, and the answer says "unknown".
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
            if case .requested(let out, let snapshotOwed, let fullResyncAfterAnswer) = native.snapshot, out == request {
                directives += snapshotAnswered(request, reply, fullResyncAfterAnswer: fullResyncAfterAnswer,
                                               firstNewRequest: firstNewRequest)
                directives += snapshotIfOwed(snapshotOwed)
            } else if let patch = native.patches.removeValue(forKey: request) {
                directives += patchAnswered(request, edit: patch.edit, reply, firstNewRequest: firstNewRequest)
                directives += resendIfOwed(patch)
            }
        case .timerFired(.nativeTimeout(let request), _):
            if case .requested(let out, let snapshotOwed, let fullResyncAfterAnswer) = native.snapshot, out == request {
                // A full resync owed after this answer follows the next request's instead.
                native.snapshot = .idle(fullResyncAfterNextSnapshot: fullResyncAfterAnswer)
                directives += nativeWentUnanswered()
                directives += snapshotIfOwed(snapshotOwed)
            } else if let patch = native.patches.removeValue(forKey: request) {
                directives += nativeWentUnanswered()
                directives += resendIfOwed(patch)
            }
        case .alarmFired:
            directives += pushChangedDecisions()
        }
        return directives
    }

    /// Takes what `storage.local` held at a load.
    private mutating func adopt(_ stored: LocalStorage) {
        cache = stored.cache
        snapshotVersion = stored.snapshotVersion
        outbox = Outbox(stored: stored)
    }

    /// Takes the session storage read at a load. Tabs Safari named at the start are natively dark
    /// as their content scripts last said; those no longer open are forgotten at the next change.
    private mutating func adopt(_ stored: SessionStorage?) {
        session = stored ?? SessionStorage()
        for id in session.nativelyDarkTabs where tabs[id] != nil { tabs[id]?.nativeDark = true }
    }

    /// Keeps whether a tab's page is natively dark in session storage, saved when it changed.
    private mutating func rememberNativeDark(_ id: TabID, _ nativeDark: Bool) -> [Directive] {
        var directives: [Directive] = []
        let known = session.nativelyDarkTabs.filter { tabs[$0] != nil }
        var next = known
        if nativeDark { next.insert(id) } else { next.remove(id) }
        if next != session.nativelyDarkTabs {
            session.nativelyDarkTabs = next
            var saved = session
            // Under pause-in-memory no pause ever reaches storage.
            if flawedKeepsPauseInMemory { saved.pausedUntil = nil }
            directives.append(.saveSessionStorage(saved))
        }
        return directives
    }

    // MARK: - Decisions

    /// Whether tabs can be answered: from the cache, or from the built-in defaults once the
    /// first snapshot was given up on.
    private var canAnswer: Bool {
        switch firstSnapshot {
        case .givenUp: true
        case .awaited, .heard: cache != nil && !flawedWaitsForNative
        }
    }

    /// Answers a tab that asked, or marks it waiting when there is nothing to answer from yet.
    private mutating func answer(_ id: TabID) -> [Directive] {
        var directives: [Directive] = []
        if let tab = tabs[id] {
            if canAnswer {
                let decision = decide(tab)
                tabs[id]?.answer = .answered(decision)
                directives.append(.sendDecision(id, decision))
                directives += alarm()
            } else {
                tabs[id]?.answer = .waiting(lastSent: tab.lastSent)
            }
        }
        return directives
    }

    /// Answers every waiting tab, in the order of their ids.
    private mutating func answerWaitingTabs() -> [Directive] {
        var directives: [Directive] = []
        for id in tabs.keys.sorted() {
            if case .waiting = tabs[id]?.answer { directives += answer(id) }
        }
        return directives
    }

    /// The tab's decision now, from what tabs see (the built-in defaults with nothing cached).
    func decide(_ tab: Tab) -> Decision {
        let context = DecisionContext(appearance: appearance, now: now, utcOffsetMinutes: utcOffsetMinutes,
                                      pausedUntil: session.pausedUntil, pageIsNativelyDark: tab.nativeDark)
        if let flawed = flawedDecision(tab, context) { return flawed }
        return (resolver ?? Resolver(document: SettingsDocument())).decide(url: tab.url, context: context)
    }

    /// Sends a new decision to every tab whose decision changed (tabs waiting for a first answer
    /// get one when there is something to answer from), updates the popup, and sets the alarm
    /// for the next time-driven change.
    mutating func pushChangedDecisions() -> [Directive] {
        var directives: [Directive] = []
        if canAnswer {
            for (id, tab) in tabs.sorted(by: { $0.key < $1.key }) {
                let decision = decide(tab)
                // A tab that asked gets an answer even when it is the one it last had.
                guard tab.isWaiting || decision != tab.lastSent else { continue }
                tabs[id]?.answer = .answered(decision)
                directives.append(.sendDecision(id, decision))
            }
            directives += popupDirective()
            directives += alarm()
        }
        return directives
    }

    /// The alarm for the earliest time an answered tab's decision could change without an
    /// event: the end of the pause, or a schedule boundary for a tab in scheduled mode.
    private func alarm() -> [Directive] {
        if flaws.contains(.noAlarmForTimeChanges) { return [] }
        var next: EpochMillis?
        func consider(_ time: EpochMillis) { if time > now, next.map({ time < $0 }) ?? true { next = time } }
        if let until = session.pausedUntil, until > now { consider(until) }
        for tab in tabs.values {
            guard let settings = tab.lastSent?.settings, settings.mode == .scheduled else { continue }
            for boundary in [settings.schedule.start, settings.schedule.end] { consider(nextOccurrence(of: boundary)) }
        }
        return next.map { [.setAlarm(at: $0)] } ?? []
    }

    private func nextOccurrence(of time: TimeOfDay) -> EpochMillis {
        let offset = Int64(utcOffsetMinutes) * 60_000
        let localNow = now + offset
        let dayStart = localNow - ((localNow % 86_400_000) + 86_400_000) % 86_400_000
        var candidate = dayStart + Int64(time.minutes) * 60_000
        if candidate <= localNow { candidate += 86_400_000 }
        return candidate - offset
    }

    /// What the open popup shows, if one is open on a known tab.
    private func popupDirective() -> [Directive] {
        guard let id = popup?.tab, let tab = tabs[id] else { return [] }
        var view = PopupView(tab: id, url: tab.url, unsupported: true, scopes: [], selectedScope: nil,
                             settings: nil, pausedUntil: session.pausedUntil.flatMap { $0 > now ? $0 : nil })
        if case .success(let address) = PageAddress.parse(tab.url) {
            let resolver = self.resolver ?? Resolver(document: SettingsDocument())
            view.unsupported = false
            view.scopes = address.scopeKeys()
            view.selectedScope = selectedScope()
            view.settings = resolver.settings(for: address)
        }
        return [.showPopup(view)]
    }

    /// Where a popup change goes: the chosen scope, else the most specific existing record, else
    /// the host; nil with no popup open on a tab with a supported URL.
    private func selectedScope() -> ScopeKey? {
        guard let popup, let tab = tabs[popup.tab], case .success(let address) = PageAddress.parse(tab.url) else { return nil }
        if let chosen = popup.chosenScope, address.scopeKeys().contains(chosen) { return chosen }
        return resolver?.record(for: address)?.key ?? .host(address.host)
    }

    // MARK: - Edits and the outbox

    /// A popup change's stamp: when the user acted (never later than now), from the extension,
    /// numbered as the next outbox edit.
    private func popupStamp(_ at: EpochMillis?) -> Stamp {
        Stamp(at: min(at ?? now, now), origin: .extension, edit: outbox.nextEdit)
    }

    /// Puts a popup change in the outbox and saves it with the cache in one write. It is
    /// acknowledged (shown on top of the cache, and sent) when that write is confirmed.
    private mutating func recordEdit(_ request: NativeRequest, message: Int) -> [Directive] {
        var directives: [Directive] = []
        let entry = OutboxEntry(edit: outbox.nextEdit, request: request, message: message)
        if canRecord(entry) {
            if let unsaved = flawedUnsavedEdit(entry) {
                directives += unsaved
            } else {
                let token = newToken()
                outbox.add(entry, save: .unconfirmed(token: token))
                directives.append(.saveLocalStorage(stored, token: token))
            }
        } else {
            directives.append(.popupAnswer(message: message, saved: false, scope: nil))
        }
        return directives
    }

    /// Whether a popup change can go into the outbox: storage may be written, and the change is
    /// one the cache (or an empty document) accepts.
    private func canRecord(_ entry: OutboxEntry) -> Bool {
        guard mayWriteStorage, let edit = entry.modelEdit else { return false }
        var check = cache ?? SettingsDocument()
        return (try? check.apply(edit)) != nil
    }

    /// The result of the save that carried a popup change: it is answered (saved, or unknown
    /// when the save failed), shown, and sent. Other saves need no answer.
    private mutating func saveFinished(token: Int, saved: Bool?) -> [Directive] {
        var directives: [Directive] = []
        if let entry = outbox.entry(savedWith: token) {
            // Shown either way: storage may hold it even when the save failed.
            outbox.setSave(.confirmed, of: entry.edit)
            rebuildResolver()
            directives.append(.popupAnswer(message: entry.message, saved: saved, scope: entry.request.scope))
            directives += pushChangedDecisions()
            if saved == nil {
                outbox.setSave(.saveFailed, of: entry.edit)
            } else {
                directives += sendPatch(entry)
            }
        }
        return directives
    }

    /// Sends an outbox entry as a patch, unless a request carrying it is already out.
    mutating func sendPatch(_ entry: OutboxEntry) -> [Directive] {
        var directives: [Directive] = []
        if !native.isSending(entry.edit) {
            let id = native.newRequest()
            native.patches[id] = PatchRequest(edit: entry.edit)
            directives.append(.sendNative(request: id, flawedRequest(entry.request)))
            directives.append(.setTimer(.nativeTimeout(id), at: now + Self.nativeTimeout))
        }
        return directives
    }

    // MARK: - Reconciliation

    /// A reconciliation point: ask for the snapshot (with the known version unless a full one
    /// is needed), and resend the outbox oldest first. A request already out is not sent again
    /// (its answer may still come within its timeout), but it is owed once: its answer may
    /// carry a document read before the change that made this point, or never come (its
    /// handler hung when it was sent), so when it ends the snapshot is asked for again and a
    /// patch that ended unapplied is sent again, each within a timeout of the point. A request
    /// sent while handling the same input (numbered from `firstNewRequest` on) owes nothing: a
    /// wake that replays what waited for storage reaches several points in one input.
    private mutating func reconcile(forceFull: Bool, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        if saveOwed { directives += save() }
        if case .idle = native.snapshot { directives += requestSnapshot(full: forceFull) }
        native.oweRequests(sentBefore: firstNewRequest)
        for entry in outbox.confirmed { directives += sendPatch(entry) }
        return directives
    }

    /// Sends a snapshot request; none may be out.
    private mutating func requestSnapshot(full: Bool) -> [Directive] {
        guard case .idle(let fullResyncAfterNextSnapshot) = native.snapshot else {
            preconditionFailure("Invalid state \(native.snapshot): a snapshot request is already out")
        }
        let id = native.newRequest()
        native.snapshot = .requested(request: id, snapshotOwed: false, fullResyncAfterAnswer: fullResyncAfterNextSnapshot)
        let known = full || cache == nil ? nil : snapshotVersion
        return [.sendNative(request: id, .getSnapshot(known: known)), .setTimer(.nativeTimeout(id), at: now + Self.nativeTimeout)]
    }

    /// The snapshot request ended: the one owed since a reconciliation point goes now, unless
    /// a request sent since then is already out.
    private mutating func snapshotIfOwed(_ snapshotOwed: Bool) -> [Directive] {
        var directives: [Directive] = []
        if snapshotOwed, case .idle = native.snapshot { directives += requestSnapshot(full: false) }
        return directives
    }

    /// A patch request ended: if it was out at a reconciliation point and its edit is still in
    /// the outbox (no answer, or not applied), the edit goes again now, once; a later failure
    /// waits for the next event.
    private mutating func resendIfOwed(_ patch: PatchRequest) -> [Directive] {
        var directives: [Directive] = []
        if patch.owed, let item = outbox.item(patch.edit), item.save == .confirmed {
            directives += sendPatch(item.entry)
        }
        return directives
    }

    /// What an answer to a snapshot request says.
    private enum SnapshotAnswer {
        /// The handler's document (a newer schema's is read-only, not invalid: it is used as is).
        case snapshot(SettingsDocument)
        /// The cache is the document as it is.
        case notModified
        /// The handler failed, Safari rejected the request, or the answer is nonsense.
        case unusable

        init(_ outcome: NativeOutcome) {
            switch outcome {
            case .replied(.snapshot(let document)): self = .snapshot(document)
            case .replied(.notModified): self = .notModified
            case .replied, .rejected, .unreadable: self = .unusable
            }
        }
    }

    /// The snapshot request was answered. A full resync owed by a refused patch follows.
    private mutating func snapshotAnswered(_ request: Int, _ reply: NativeOutcome, fullResyncAfterAnswer: Bool,
                                           firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = [.cancelTimer(.nativeTimeout(request))]
        native.snapshot = .idle(fullResyncAfterNextSnapshot: false)
        switch SnapshotAnswer(reply) {
        case .snapshot(let snapshot):
            heardFromNative()
            directives += adopt(snapshot)
        case .notModified:
            heardFromNative()
            directives += pushChangedDecisions()
        case .unusable:
            directives += nativeWentUnanswered()
        }
        if fullResyncAfterAnswer {
            directives += reconcile(forceFull: true, firstNewRequest: firstNewRequest)
        }
        return directives
    }

    /// A snapshot request had a usable answer. Once the first snapshot was given up on, tabs
    /// go on being answered whatever comes later.
    private mutating func heardFromNative() {
        if firstSnapshot == .awaited { firstSnapshot = .heard }
    }

    /// A request got no usable answer: the next event is a reconciliation point, and with
    /// nothing cached the tabs waiting for a first answer get the built-in defaults.
    private mutating func nativeWentUnanswered() -> [Directive] {
        var directives: [Directive] = []
        native.recoveryDue = true
        if cache == nil && firstSnapshot != .givenUp {
            firstSnapshot = .givenUp
            directives += answerWaitingTabs()
        }
        return directives
    }

    /// What an answer to a patch says.
    private enum PatchAnswer {
        /// Applied (or found already applied), at this version when the handler has one.
        case applied(DocumentVersion?, changed: Bool)
        /// Refused for good (invalid, too large, or a read-only document).
        case refused
        /// Not applied, for now: the handler died or failed to store it, Safari rejected the
        /// request, or the answer does not read.
        case notApplied

        init(_ outcome: NativeOutcome, countsEnabledAsApplied: Bool) {
            let refusals: Set<NativeErrorCode> = [.invalidMessage, .tooLarge, .readOnly]
            switch outcome {
            case .replied(.applied(let version, let changed)): self = .applied(version, changed: changed)
            case .replied(.enabled) where countsEnabledAsApplied: self = .applied(nil, changed: false)
            case .replied(.error(let code, _)) where refusals.contains(code): self = .refused
            case .replied, .rejected, .unreadable: self = .notApplied
            }
        }
    }

    /// A patch request was answered.
    private mutating func patchAnswered(_ request: Int, edit: UInt64, _ reply: NativeOutcome, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = [.cancelTimer(.nativeTimeout(request))]
        switch PatchAnswer(reply, countsEnabledAsApplied: flawedCountsEnabledAsApplied) {
        case .applied(let version, let changed):
            directives += acknowledged(edit, at: version, changed: changed, firstNewRequest: firstNewRequest)
        case .refused:
            // It leaves the outbox and a full resync shows the document again (after the
            // snapshot already on its way, if one is).
            if let entry = outbox.item(edit)?.entry, entry.message != 0 {
                directives.append(.popupAnswer(message: entry.message, saved: false, scope: entry.request.scope))
            }
            outbox.remove(edit)
            directives += save()
            switch native.snapshot {
            case .idle:
                directives += reconcile(forceFull: true, firstNewRequest: firstNewRequest)
            case .requested(let request, let snapshotOwed, _):
                native.snapshot = .requested(request: request, snapshotOwed: snapshotOwed, fullResyncAfterAnswer: true)
            }
            // Tabs and the popup stop showing the refused change at once: what they see is the
            // cache with the changes still waiting, and the resync corrects the cache.
            rebuildResolver()
            directives += pushChangedDecisions()
        case .notApplied:
            // The patch stays in the outbox and the next event resends it, as after a timeout.
            native.recoveryDue = true
        }
        return directives
    }

    /// The handler applied a patch: it leaves the outbox and is folded into the cache, so tabs
    /// keep showing it. When the patch changed the cache exactly as it changed the document (both
    /// or neither) and both end at the same revision, the cache now is that revision (the same
    /// merge of the same edit); otherwise another write came between, the cache keeps its old
    /// version, and a snapshot is asked for.
    private mutating func acknowledged(_ edit: UInt64, at version: DocumentVersion?, changed: Bool, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        var converged = false
        if let change = outbox.item(edit)?.entry.modelEdit, var updated = cache {
            let changedHere = (try? updated.apply(change)) ?? false
            cache = updated
            // The cache is the document only if it was the handler's version just before this
            // patch and the patch changed both: a count of local changes that happens to reach
            // the document's revision proves nothing.
            if let version, snapshotVersion == DocumentVersion(documentId: version.documentId, revision: version.revision - 1),
               updated.documentId == version.documentId, changedHere, changed {
                snapshotVersion = version
                converged = true
            }
        }
        outbox.remove(edit)
        rebuildResolver()
        directives += save()
        if !converged, case .idle = native.snapshot { directives += reconcile(forceFull: false, firstNewRequest: firstNewRequest) }
        directives += pushChangedDecisions()
        return directives
    }

    /// A valid snapshot always wins over the cache; patches still waiting go back on top (the
    /// stored cache is the snapshot; what tabs see is the snapshot with the acknowledged patches).
    private mutating func adopt(_ snapshot: SettingsDocument) -> [Directive] {
        var directives: [Directive] = []
        let differs = snapshot != cache || snapshot.version != snapshotVersion
        if differs && !flawedKeepsCache {
            flawedDropWaitingPatches()
            cache = snapshot
            snapshotVersion = snapshot.version
            rebuildResolver()
            directives += save()
        }
        directives += pushChangedDecisions()
        return directives
    }

    // MARK: - Storage

    /// Saves `storage.local`, unless it could not be read.
    private mutating func save() -> [Directive] {
        var directives: [Directive] = []
        if mayWriteStorage { directives.append(.saveLocalStorage(stored, token: newToken())) }
        return directives
    }

    /// Storage may be written unless it could not be read.
    private var mayWriteStorage: Bool {
        switch storage {
        case .loading, .loaded: true
        case .unreadable: false
        }
    }

    /// What `storage.local` keeps: the cache, its version and the outbox.
    var local: LocalStorage {
        LocalStorage(cache: cache, snapshotVersion: snapshotVersion, outbox: outbox.entries, nextEdit: outbox.nextEdit)
    }

    /// What goes to `storage.local`.
    private var stored: LocalStorage { flawedStored(local) }

    /// Rebuilds what tabs and the popup see from the cache and the confirmed outbox.
    mutating func rebuildResolver() {
        if cache == nil && outbox.items.isEmpty {
            resolver = nil
        } else {
            resolver = Resolver(document: visibleDocument)
        }
    }

    /// The cached snapshot with every confirmed outbox entry applied.
    var visibleDocument: SettingsDocument {
        var visible = cache ?? SettingsDocument()
        for entry in outbox.confirmed {
            if let edit = entry.modelEdit { _ = try? visible.apply(edit) }
        }
        return visible
    }

    private mutating func newToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }
}
