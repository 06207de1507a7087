import SiteSettings

/// Where the background leaves its correct path when a known bug (`Flaw`) is switched on. Each
/// hook is named `flawed…` and, with its flaw off, gives back what the correct path does: nil,
/// false, or the value it was given.
extension BackgroundMachine {
    /// answer-before-cache-loaded: a tab that asks before storage is loaded is answered at once
    /// from the built-in defaults (the cache corrects it once loaded) instead of waiting.
    mutating func flawedAnswerBeforeLoading(_ input: Input) -> [Directive]? {
        guard flaws.contains(.answerBeforeCacheLoaded),
              case .tabRequestedDecision(let id, let url, let nativeDark, let now) = input else { return nil }
        self.now = now
        let decision = decide(Tab(url: url, nativeDark: nativeDark, answer: .waiting(lastSent: nil)))
        tabs[id] = Tab(url: url, nativeDark: nativeDark, answer: .answered(decision))
        return [.sendDecision(id, decision)]
    }

    /// listeners-after-cache-read: listeners are registered only once storage has been read,
    /// so an event that arrives before (the one that woke the background) finds none.
    var flawedListensLate: Bool {
        flaws.contains(.listenersAfterCacheRead)
    }

    /// native-first-startup: the cache may not answer until a snapshot request has been answered.
    var flawedWaitsForNative: Bool {
        flaws.contains(.nativeFirstStartup) && firstSnapshot != .heard
    }

    /// no-reconcile-on-foreground: Safari coming to the foreground is not a reconciliation point.
    var flawedIgnoresForeground: Bool {
        flaws.contains(.noReconcileOnForeground)
    }

    /// timeout-from-the-last-input: the recovery after a timeout still runs at the previous
    /// input's time, so its request's timeout may already have passed.
    var flawedRecoversAtTheLastInput: Bool {
        flaws.contains(.timeoutFromTheLastInput)
    }

    /// pause-in-memory: the pause is not saved to session storage.
    var flawedKeepsPauseInMemory: Bool {
        flaws.contains(.pauseInMemory)
    }

    /// merging-across-scopes: the most specific record's missing fields are filled from the less
    /// specific ones. Nil when the flaw is off, nothing is cached or pending, or the URL is not
    /// a page's.
    func flawedDecision(_ tab: Tab, _ context: DecisionContext) -> Decision? {
        guard flaws.contains(.mergingAcrossScopes), resolver != nil,
              case .success(let address) = PageAddress.parse(tab.url) else { return nil }
        var document = visibleDocument
        let keys = address.scopeKeys().filter { document.sites[$0] != nil }
        if let first = keys.first {
            var merged = document.sites[first]!
            for key in keys.dropFirst() {
                let values = document.sites[key]!.values
                if merged.values.mode == nil { merged.values.mode = values.mode }
                if merged.values.theme == nil { merged.values.theme = values.theme }
                if merged.values.nativeDarkPolicy == nil { merged.values.nativeDarkPolicy = values.nativeDarkPolicy }
            }
            document.sites[first] = merged
        }
        return Resolver(document: document).decide(url: tab.url, context: context)
    }

    /// no-outbox: a popup change is answered saved, shown and sent at once, and kept only in
    /// memory (see `flawedStored`), instead of waiting for its save.
    mutating func flawedUnsavedEdit(_ entry: OutboxEntry) -> [Directive]? {
        guard flaws.contains(.noOutbox) else { return nil }
        var directives: [Directive] = []
        outbox.add(entry, save: .confirmed)
        rebuildResolver()
        directives.append(.popupAnswer(message: entry.message, saved: true, scope: entry.request.scope))
        directives += pushChangedDecisions()
        directives += sendPatch(entry)
        return directives
    }

    /// toggle-protocol: a patch that sets the mode is sent as the first version's toggle ("flip
    /// it", whatever it is now, and for everyone). popup-full-snapshot: a patch is sent as the
    /// whole document the background sees.
    func flawedRequest(_ request: NativeRequest) -> NativeRequest {
        if flaws.contains(.toggleProtocol), case .patch(_, let set, _, _) = request, set.mode != nil { return .toggleEnabled }
        if flaws.contains(.popupFullSnapshot) { return .putDocument(visibleDocument) }
        return request
    }

    /// toggle-protocol: the first version's answer to a toggle counts as the patch applied.
    var flawedCountsEnabledAsApplied: Bool {
        flaws.contains(.toggleProtocol)
    }

    /// cache-as-authority: a different snapshot does not replace a cache the background has.
    var flawedKeepsCache: Bool {
        flaws.contains(.cacheAsAuthority) && cache != nil
    }

    /// snapshot-drops-waiting-patches: a snapshot that replaces the cache drops the outbox, and
    /// forgets the saves and requests that carry it.
    mutating func flawedDropWaitingPatches() {
        if flaws.contains(.snapshotDropsWaitingPatches) {
            outbox.items.removeAll()
            native.patches.removeAll()
        }
    }

    /// cache-in-memory-only: the cache is never saved. no-outbox: the outbox is never saved.
    func flawedStored(_ local: LocalStorage) -> LocalStorage {
        var stored = local
        if flaws.contains(.cacheInMemoryOnly) {
            stored.cache = nil
            stored.snapshotVersion = nil
        }
        if flaws.contains(.noOutbox) { stored.outbox = [] }
        return stored
    }
}
