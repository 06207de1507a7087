import SiteSettings

/// Tabs and the popup: what they see (the cache with the confirmed outbox on top), the decision
/// each tab is sent and when, the alarm for the next time-driven change, and what the popup shows.
extension BackgroundMachine {
    // MARK: - Session storage

    /// Takes the session storage read at a load. Tabs Safari named at the start are natively dark
    /// as their content scripts last said; those no longer open are forgotten at the next change.
    mutating func adopt(_ stored: SessionStorage?) {
        session = stored ?? SessionStorage()
        for id in session.nativelyDarkTabs where tabs[id] != nil { tabs[id]?.nativeDark = true }
    }

    /// Keeps whether a tab's page is natively dark in session storage, saved when it changed.
    mutating func rememberNativeDark(_ id: TabID, _ nativeDark: Bool) -> [Directive] {
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
    mutating func answer(_ id: TabID) -> [Directive] {
        var directives: [Directive] = []
        if let tab = tabs[id] {
            if canAnswer {
                let decision = decide(tab)
                tabs[id]?.answer = .answered(decision)
                directives.append(.sendDecision(id, decision))
                // The alarm set now replaces the one set before: a change that came with time
                // since (a pause's end, a schedule boundary the old alarm was to bring) must
                // reach the other tabs now, or nothing would bring it.
                let changedWithTime = tabs.contains { other, tab in
                    other != id && !tab.isWaiting && tab.lastSent.map { decide(tab) != $0 } ?? false
                }
                directives += changedWithTime ? pushChangedDecisions() : alarm()
            } else {
                tabs[id]?.answer = .waiting(lastSent: tab.lastSent)
            }
        }
        return directives
    }

    /// Answers every waiting tab, in the order of their ids.
    mutating func answerWaitingTabs() -> [Directive] {
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
    func popupDirective() -> [Directive] {
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
    func selectedScope() -> ScopeKey? {
        guard let popup, let tab = tabs[popup.tab], case .success(let address) = PageAddress.parse(tab.url) else { return nil }
        if let chosen = popup.chosenScope, address.scopeKeys().contains(chosen) { return chosen }
        return resolver?.record(for: address)?.key ?? .host(address.host)
    }

    // MARK: - What tabs see

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
}
