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
        case started(now: EpochMillis, appearance: Appearance, utcOffsetMinutes: Int, tabs: [TabID: String])
        /// Extension storage finished loading (nil: nothing stored or unreadable).
        case storageLoaded(local: LocalStorage?, session: SessionStorage?, now: EpochMillis)
        case localStorageSaved(token: Int, now: EpochMillis)
        /// A save of `storage.local` failed: a popup change it carried was never acknowledged.
        case localStorageSaveFailed(token: Int, now: EpochMillis)
        /// Extension storage could not be read: nothing may be saved over it in this incarnation.
        case storageLoadFailed(now: EpochMillis)
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
        case nativeReplyArrived(request: Int, JSONValue, now: EpochMillis)
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
        case sendDecision(TabID, Decision)
        case showPopup(PopupView)
        /// The answer to a popup change: saved (durable in the outbox, and shown), not saved, or
        /// nil when its save failed and may or may not have reached the disk; and the record it
        /// changes. A saved change the handler later refuses for good is answered again, not saved.
        case popupAnswer(message: Int, saved: Bool?, scope: ScopeKey?)
    }

    /// How long the background waits for a native reply: Safari sets no limit of its own.
    public static let nativeTimeout: EpochMillis = 5_000

    struct Tab: Equatable {
        var url: String
        var nativeDark = false
        /// The decision last sent, to push only changes.
        var sent: Decision?
        /// Asked before there was anything to answer from (first run without a cache).
        var waiting = false
    }

    // Internal rather than private where the flaw hooks in BackgroundMachine+Flaws.swift reach it.

    private var loaded = false
    private var queued: [Input] = []
    var local = LocalStorage()
    private var session = SessionStorage()
    var resolver: Resolver?
    var tabs: [TabID: Tab] = [:]
    private var popupTab: TabID?
    private var chosenScope: ScopeKey?
    private var appearance = Appearance.light
    private var utcOffsetMinutes = 0
    var now: EpochMillis = 0
    private var nextRequest = 1
    private var nextToken = 1
    private var snapshotRequest: Int?
    /// Outbox edit numbers by the native request carrying them.
    var patchRequests: [Int: UInt64] = [:]
    /// Set by a native timeout: the next event is a reconciliation point ("recovery after idle").
    private var recovering = false
    /// With no cache and no snapshot yet, tabs wait until the first native answer or timeout.
    private var gaveUpOnFirstSnapshot = false
    /// A refused patch arrived while a snapshot request was out: ask again in full after it.
    private var resyncAfterSnapshot = false
    /// Popup changes saved to the outbox but not yet confirmed saved, by save token. They are
    /// in the outbox (so every later save carries them) but not shown until confirmed.
    var unacknowledged: [Int: (edit: UInt64, message: Int)] = [:]
    /// Storage could not be read: saving would overwrite what it holds, so nothing is saved and
    /// popup changes, which could not be made durable, are refused.
    private var storageUnreadable = false
    /// Known bugs switched on for this run (none in normal use).
    public var flaws: Set<Flaw> = []

    public init() {}

    public mutating func handle(_ input: Input) -> [Directive] {
        var directives: [Directive] = []
        switch input {
        case .started(let now, let appearance, let offset, let openTabs):
            self.now = now
            self.appearance = appearance
            utcOffsetMinutes = offset
            // The background cannot know what tabs show after a wake: each gets a fresh decision.
            for (id, url) in openTabs { tabs[id] = Tab(url: url, waiting: true) }
            directives.append(.loadStorage)
        case .storageLoaded(let stored, let storedSession, let now):
            self.now = now
            guard !loaded else { break }
            loaded = true
            local = stored ?? LocalStorage()
            session = storedSession ?? SessionStorage()
            directives += finishLoading()
        case .storageLoadFailed(let now):
            self.now = now
            guard !loaded else { break }
            loaded = true
            storageUnreadable = true
            directives += finishLoading()
        default:
            if !loaded, let early = flawedAnswerBeforeLoading(input) {
                directives += early
                break
            }
            guard loaded else {
                queued.append(input)
                break
            }
            directives += handleLoaded(input)
        }
        return directives
    }

    private mutating func finishLoading() -> [Directive] {
        var directives: [Directive] = []
            rebuildResolver()
            let waiting = queued
            queued = []
            for input in waiting { directives += handle(input) }
            directives += reconcile(forceFull: false)
            directives += pushChangedDecisions()
        return directives
    }

    private mutating func handleLoaded(_ input: Input) -> [Directive] {
        var directives: [Directive] = []
        if recovering, case .nativeReplyArrived = input {} else if recovering, case .timerFired = input {} else if recovering {
            recovering = false
            directives += reconcile(forceFull: false)
        }
        switch input {
        case .started, .storageLoaded, .storageLoadFailed:
            break
        case .localStorageSaved(let token, let now):
            self.now = now
            if let waiting = unacknowledged.removeValue(forKey: token),
               let entry = local.outbox.first(where: { $0.edit == waiting.edit }) {
                // Acknowledged: now the tabs and the popup show it, and the patch goes out.
                rebuildResolver()
                directives.append(.popupAnswer(message: waiting.message, saved: true, scope: entry.request.scope))
                directives += pushChangedDecisions()
                directives += sendPatch(entry)
            }
        case .localStorageSaveFailed(let token, let now):
            self.now = now
            if let waiting = unacknowledged.removeValue(forKey: token),
               let entry = local.outbox.first(where: { $0.edit == waiting.edit }) {
                // The save failed, perhaps after it took effect: the change may or may not
                // survive a restart. Memory keeps it as storage may have (the next save that
                // works makes it durable), it is shown and sent, and the answer says "unknown".
                rebuildResolver()
                directives.append(.popupAnswer(message: waiting.message, saved: nil, scope: entry.request.scope))
                directives += pushChangedDecisions()
                directives += sendPatch(entry)
            }
        case .tabRequestedDecision(let id, let url, let nativeDark, let now):
            self.now = now
            var tab = tabs[id] ?? Tab(url: url)
            tab.url = url
            tab.nativeDark = nativeDark
            tabs[id] = tab
            directives += answer(id)
        case .tabNativeDarkChanged(let id, let nativeDark, let now):
            self.now = now
            tabs[id]?.nativeDark = nativeDark
            directives += pushChangedDecisions()
        case .safariCameToForeground(let now) where flawedIgnoresForeground:
            self.now = now
        case .tabActivated(_, let now), .safariCameToForeground(let now), .appMessageArrived(let now):
            self.now = now
            directives += reconcile(forceFull: false)
        case .tabClosed(let id, let now):
            self.now = now
            tabs[id] = nil
            if popupTab == id { popupTab = nil }
        case .appearanceChanged(let appearance, let now):
            self.now = now
            self.appearance = appearance
            directives += pushChangedDecisions()
        case .popupOpened(let id, let now):
            self.now = now
            popupTab = id
            chosenScope = nil
            directives += popupDirective()
        case .popupClosed(let now):
            self.now = now
            popupTab = nil
        case .popupChoseScope(let scope, let now):
            self.now = now
            chosenScope = scope
            directives += popupDirective()
        case .popupEdited(let set, let reset, let message, let at, let now):
            self.now = now
            guard !set.isEmpty || !reset.isEmpty, let scope = selectedScope() else {
                directives.append(.popupAnswer(message: message, saved: false, scope: nil))
                break
            }
            let stamp = Stamp(at: min(at ?? now, now), origin: .extension, edit: local.nextEdit)
            directives += recordEdit(.patch(scope: scope, set: set, reset: reset, stamp: stamp), message: message)
        case .popupForgotSite(let message, let at, let now):
            self.now = now
            guard let scope = selectedScope() else {
                directives.append(.popupAnswer(message: message, saved: false, scope: nil))
                break
            }
            let stamp = Stamp(at: min(at ?? now, now), origin: .extension, edit: local.nextEdit)
            directives += recordEdit(.deleteSite(scope: scope, stamp: stamp), message: message)
        case .popupPaused(let until, let now):
            self.now = now
            session.pausedUntil = until
            if !flawedKeepsPauseInMemory { directives.append(.saveSessionStorage(session)) }
            directives += pushChangedDecisions()
        case .nativeReplyArrived(let request, let reply, let now):
            self.now = now
            directives += nativeReply(request, reply)
        case .timerFired(.nativeTimeout(let request), let now):
            self.now = now
            if snapshotRequest == request || patchRequests[request] != nil {
                if snapshotRequest == request { snapshotRequest = nil }
                patchRequests[request] = nil
                recovering = true
                if local.cache == nil && !gaveUpOnFirstSnapshot {
                    gaveUpOnFirstSnapshot = true
                    directives += answerWaitingTabs()
                }
            }
        case .alarmFired(let now):
            self.now = now
            directives += pushChangedDecisions()
        }
        return directives
    }

    // MARK: - Decisions

    private var canAnswer: Bool {
        gaveUpOnFirstSnapshot || (local.cache != nil && !flawedWaitsForNative)
    }
    /// Whether this incarnation has had an answer to a snapshot request (for the
    /// native-first-startup flaw, which waits for one).
    var heardFromNative = false

    private mutating func answer(_ id: TabID) -> [Directive] {
        guard canAnswer, let tab = tabs[id] else {
            tabs[id]?.waiting = true
            return []
        }
        let decision = decide(tab)
        tabs[id]?.sent = decision
        tabs[id]?.waiting = false
        return [.sendDecision(id, decision)] + alarm()
    }

    private mutating func answerWaitingTabs() -> [Directive] {
        var directives: [Directive] = []
        for id in tabs.keys.sorted() where tabs[id]!.waiting { directives += answer(id) }
        return directives
    }

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
        guard canAnswer else { return [] }
        for id in tabs.keys.sorted() {
            let tab = tabs[id]!
            guard tab.sent != nil || tab.waiting else { continue }
            let decision = decide(tab)
            if decision != tab.sent {
                tabs[id]?.sent = decision
                tabs[id]?.waiting = false
                directives.append(.sendDecision(id, decision))
            }
        }
        directives += popupDirective()
        directives += alarm()
        return directives
    }

    /// The alarm for the earliest time an answered tab's decision could change without an
    /// event: the end of the pause, or a schedule boundary for a tab in scheduled mode.
    private func alarm() -> [Directive] {
        var next: EpochMillis?
        func consider(_ time: EpochMillis) { if time > now, next.map({ time < $0 }) ?? true { next = time } }
        if let until = session.pausedUntil, until > now { consider(until) }
        for tab in tabs.values where tab.sent?.settings.mode == .scheduled {
            let schedule = tab.sent!.settings.schedule
            for boundary in [schedule.start, schedule.end] { consider(nextOccurrence(of: boundary)) }
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

    private mutating func popupDirective() -> [Directive] {
        guard let id = popupTab, let tab = tabs[id] else { return [] }
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

    /// The chosen scope, else the most specific existing record, else the host.
    private func selectedScope() -> ScopeKey? {
        guard let id = popupTab, let tab = tabs[id], case .success(let address) = PageAddress.parse(tab.url) else { return nil }
        if let chosen = chosenScope, address.scopeKeys().contains(chosen) { return chosen }
        return resolver?.record(for: address)?.key ?? .host(address.host)
    }

    // MARK: - Edits and the outbox

    /// Puts a popup change in the outbox and saves it with the cache in one write. It is
    /// acknowledged (shown on top of the cache, and sent) when that write is confirmed.
    private mutating func recordEdit(_ request: NativeRequest, message: Int) -> [Directive] {
        let entry = OutboxEntry(edit: local.nextEdit, request: request, message: message)
        var check = local.cache ?? SettingsDocument()
        guard !storageUnreadable, let edit = entry.modelEdit, (try? check.apply(edit)) != nil else {
            return [.popupAnswer(message: message, saved: false, scope: nil)]
        }
        local.outbox.append(entry)
        local.nextEdit += 1
        if let unsaved = flawedUnsavedEdit(entry) { return unsaved }
        let token = nextToken
        nextToken += 1
        unacknowledged[token] = (entry.edit, message)
        return [.saveLocalStorage(stored, token: token)]
    }

    mutating func sendPatch(_ entry: OutboxEntry) -> [Directive] {
        guard !patchRequests.values.contains(entry.edit) else { return [] }
        let id = nextRequest
        nextRequest += 1
        patchRequests[id] = entry.edit
        return [.sendNative(request: id, flawedRequest(entry.request)), .setTimer(.nativeTimeout(id), at: now + Self.nativeTimeout)]
    }

    // MARK: - Reconciliation

    /// A reconciliation point: ask for the snapshot (with the known version unless a full one
    /// is needed) unless a request is already in flight, and resend the outbox oldest first.
    private mutating func reconcile(forceFull: Bool) -> [Directive] {
        var directives: [Directive] = []
        if snapshotRequest == nil {
            let id = nextRequest
            nextRequest += 1
            snapshotRequest = id
            let known = forceFull || local.cache == nil ? nil : local.snapshotVersion
            directives.append(.sendNative(request: id, .getSnapshot(known: known)))
            directives.append(.setTimer(.nativeTimeout(id), at: now + Self.nativeTimeout))
        }
        for entry in local.outbox where !unacknowledged.values.contains(where: { $0.edit == entry.edit }) { directives += sendPatch(entry) }
        return directives
    }

    private mutating func nativeReply(_ request: Int, _ json: JSONValue) -> [Directive] {
        var directives: [Directive] = []
        if request == snapshotRequest {
            snapshotRequest = nil
            directives.append(.cancelTimer(.nativeTimeout(request)))
            defer {
                if resyncAfterSnapshot {
                    resyncAfterSnapshot = false
                    directives += reconcile(forceFull: true)
                }
            }
            if case .object(let reply) = json, reply["type"] == .string("snapshot"), let documentJSON = reply["document"],
               let snapshot = try? DocumentCodec.decode(documentJSON).document {
                // A newer schema's document is read-only, not invalid: it is used as it is.
                heardFromNative = true
                directives += adopt(snapshot)
            } else if case .object(let reply) = json, reply["type"] == .string("notModified") {
                // The cache is the document as it is: nothing to correct.
                heardFromNative = true
                directives += pushChangedDecisions()
            } else {
                // No usable snapshot (the handler failed or answered nonsense): the next event
                // is a reconciliation point, as after a timeout.
                recovering = true
                if local.cache == nil && !gaveUpOnFirstSnapshot {
                    // Nothing cached either: answer waiting tabs from the defaults.
                    gaveUpOnFirstSnapshot = true
                    directives += answerWaitingTabs()
                }
            }
        } else if let edit = patchRequests.removeValue(forKey: request) {
            directives.append(.cancelTimer(.nativeTimeout(request)))
            guard case .object(let reply) = json, case .string(let type)? = reply["type"] else { return directives }
            let refusals: Set<String> = [NativeErrorCode.invalidMessage.rawValue, NativeErrorCode.tooLarge.rawValue,
                                         NativeErrorCode.readOnly.rawValue]
            if type == "applied" || flawedCountsAsApplied(type) {
                directives += acknowledged(edit, reply)
            } else if type == "error", case .string(let code)? = reply["code"], refusals.contains(code) {
                // Refused for good: it leaves the outbox and a full resync shows the document
                // again (after the snapshot already on its way, if one is).
                if let entry = local.outbox.first(where: { $0.edit == edit }), entry.message != 0 {
                    directives.append(.popupAnswer(message: entry.message, saved: false, scope: entry.request.scope))
                }
                local.outbox.removeAll { $0.edit == edit }
                directives += save()
                if snapshotRequest == nil { directives += reconcile(forceFull: true) } else { resyncAfterSnapshot = true }
            } else {
                // Not applied, for now (the handler died, or failed to store it): the patch stays
                // in the outbox and the next event resends it, as after a timeout.
                recovering = true
            }
        }
        return directives
    }

    /// The handler applied a patch: it leaves the outbox and is folded into the cache, so tabs
    /// keep showing it. When the patch changed the cache exactly as it changed the document (both
    /// or neither) and both end at the same revision, the cache now is that revision (the same
    /// merge of the same edit); otherwise another write came between, the cache keeps its old
    /// version, and a snapshot is asked for.
    private mutating func acknowledged(_ edit: UInt64, _ reply: [String: JSONValue]) -> [Directive] {
        var directives: [Directive] = []
        var converged = false
        if let entry = local.outbox.first(where: { $0.edit == edit }), let change = entry.modelEdit, var cache = local.cache {
            let changedHere = (try? cache.apply(change)) ?? false
            local.cache = cache
            // The same edit changed (or left) both alike, ending at the same revision: the cache
            // is that revision. Anything else means another write came between.
            if case .string(let id)? = reply["documentId"], case .integer(let revision)? = reply["revision"],
               cache.documentId == id, cache.revision == revision, reply["changed"] == .bool(changedHere) {
                local.snapshotVersion = DocumentVersion(documentId: id, revision: revision)
                converged = true
            }
        }
        local.outbox.removeAll { $0.edit == edit }
        rebuildResolver()
        directives += save()
        if !converged && snapshotRequest == nil { directives += reconcile(forceFull: false) }
        directives += pushChangedDecisions()
        return directives
    }

    /// A valid snapshot always wins over the cache; patches still waiting go back on top (the
    /// stored cache is the snapshot; what tabs see is the snapshot with the acknowledged patches).
    private mutating func adopt(_ snapshot: SettingsDocument) -> [Directive] {
        let version = snapshot.version
        guard snapshot != local.cache || version != local.snapshotVersion else { return pushChangedDecisions() }
        if flawedKeepsCache { return pushChangedDecisions() }
        flawedDropWaitingPatches()
        local.cache = snapshot
        local.snapshotVersion = version
        rebuildResolver()
        return save() + pushChangedDecisions()
    }

    private mutating func save() -> [Directive] {
        guard !storageUnreadable else { return [] }
        let token = nextToken
        nextToken += 1
        return [.saveLocalStorage(stored, token: token)]
    }

    /// What goes to `storage.local`: the cache and the outbox.
    private var stored: LocalStorage { flawedStored(local) }

    /// What tabs and the popup see: the cached snapshot with every acknowledged patch applied.
    mutating func rebuildResolver() {
        guard local.cache != nil || !local.outbox.isEmpty else {
            resolver = nil
            return
        }
        resolver = Resolver(document: visibleDocument)
    }

    var visibleDocument: SettingsDocument {
        var visible = local.cache ?? SettingsDocument()
        let waiting = Set(unacknowledged.values.map(\.edit))
        for entry in local.outbox where !waiting.contains(entry.edit) {
            if let edit = entry.modelEdit { _ = try? visible.apply(edit) }
        }
        return visible
    }
}

/// The background's timers. They die with it, as JavaScript timers do when Safari unloads it.
public enum BackgroundTimer: Hashable, Sendable {
    case nativeTimeout(Int)
}
