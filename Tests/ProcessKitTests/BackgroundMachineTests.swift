import ProcessKit
import SiteSettings
import Testing

struct BackgroundMachineTests {
    static let now: EpochMillis = 1_783_940_000_000
    static let t1 = TabID("t1")
    static let url = "https://docs.example.com/guide"

    /// The shared document: default theme gray, mode on.
    static let shared: SettingsDocument = {
        var document = SettingsDocument(documentId: "DOC-1", revision: 7)
        document.defaults.mode = .on
        document.defaults.theme = .gray
        return document
    }()

    /// A stale cache: default theme sepia.
    static let cache: LocalStorage = {
        var document = shared
        document.defaults.theme = .sepia
        document.revision = 6
        return LocalStorage(cache: document, snapshotVersion: DocumentVersion(documentId: "DOC-1", revision: 6))
    }()

    private func decisions(_ directives: [BackgroundMachine.Directive]) -> [(TabID, Decision)] {
        directives.compactMap { if case .sendDecision(let tab, let decision) = $0 { (tab, decision) } else { nil } }
    }

    private func nativeRequests(_ directives: [BackgroundMachine.Directive]) -> [(Int, NativeRequest)] {
        directives.compactMap { if case .sendNative(let id, let request) = $0 { (id, request) } else { nil } }
    }

    private func snapshotReply(_ document: SettingsDocument) -> JSONValue { NativeReply.snapshot(document).json }

    private func started(_ local: LocalStorage?) -> (BackgroundMachine, [BackgroundMachine.Directive]) {
        var machine = BackgroundMachine()
        #expect(machine.handle(.started(now: Self.now, appearance: .light, utcOffsetMinutes: 0, tabs: [:])) == [.loadStorage])
        #expect(machine.handle(.tabRequestedDecision(Self.t1, url: Self.url, nativeDark: false, now: Self.now)) == [])
        let directives = machine.handle(.storageLoaded(local: local, session: nil, now: Self.now + 1))
        return (machine, directives)
    }

    /// A background that adopted the shared snapshot, with a popup change (mode off on t1's
    /// host) saved to the outbox and not yet confirmed; returns the save's token.
    private func popupEditAwaitingSave() throws -> (BackgroundMachine, Int) {
        var (machine, directives) = started(Self.cache)
        _ = machine.handle(.nativeReplyArrived(request: nativeRequests(directives)[0].0, snapshotReply(Self.shared), now: Self.now + 2))
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        guard case .saveLocalStorage(_, let token)? = machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], now: Self.now + 4)).first else {
            throw TestFailure("the popup change was not saved")
        }
        return (machine, token)
    }

    @Test func theFirstAnswerComesFromTheCacheBeforeAnyNativeRequestThenTheSnapshotCorrectsIt() throws {
        var (machine, directives) = started(Self.cache)
        guard case .sendDecision(Self.t1, let first)? = directives.first else {
            Issue.record("the first directive is not the tab's answer: \(directives)")
            return
        }
        #expect(first.theme == .sepia)
        let requests = nativeRequests(directives)
        #expect(requests.map(\.1) == [.getSnapshot(known: DocumentVersion(documentId: "DOC-1", revision: 6))])

        let corrected = machine.handle(.nativeReplyArrived(request: requests[0].0, snapshotReply(Self.shared), now: Self.now + 2))
        #expect(decisions(corrected).map(\.1.theme) == [.gray])
        #expect(corrected.contains(.cancelTimer(.nativeTimeout(requests[0].0))))
        #expect(corrected.contains { if case .saveLocalStorage(let stored, _) = $0 { stored.cache == Self.shared } else { false } })
    }

    @Test func withoutACacheTabsWaitForTheSnapshotOrTheTimeoutThenGetTheDefaults() {
        var (machine, directives) = started(nil)
        #expect(decisions(directives).isEmpty)
        let request = nativeRequests(directives)[0].0
        #expect(nativeRequests(directives)[0].1 == .getSnapshot(known: nil))
        let timedOut = machine.handle(.timerFired(.nativeTimeout(request), now: Self.now + BackgroundMachine.nativeTimeout))
        #expect(decisions(timedOut).map(\.1.theme) == [Defaults.builtIn.theme])
        // The next event after a timeout is a reconciliation point.
        let next = machine.handle(.tabActivated(Self.t1, now: Self.now + 6_000))
        #expect(nativeRequests(next).map(\.1) == [.getSnapshot(known: nil)])
    }

    @Test func aPopupChangeIsSavedWithItsOutboxEntryBeforeItIsShownOrSent() throws {
        var (machine, directives) = started(Self.cache)
        let snapshotRequest = nativeRequests(directives)[0].0
        _ = machine.handle(.nativeReplyArrived(request: snapshotRequest, snapshotReply(Self.shared), now: Self.now + 2))
        let popup = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        guard case .showPopup(let view)? = popup.first else {
            Issue.record("no popup view")
            return
        }
        #expect(view.selectedScope?.text == "docs.example.com")
        #expect(view.settings?.themeSource == .default)

        let edited = machine.handle(.popupEdited(set: SiteValues(theme: .invert), reset: [], now: Self.now + 4))
        guard edited.count == 1, case .saveLocalStorage(let stored, let token) = edited[0] else {
            Issue.record("expected only the save, got \(edited)")
            return
        }
        #expect(stored.outbox.map(\.request) == [.patch(scope: try ScopeKey.parse("docs.example.com"), set: SiteValues(theme: .invert), reset: [],
                                                          stamp: Stamp(at: Self.now + 4, origin: .extension, edit: 1))])
        #expect(stored.cache == Self.shared, "the stored cache is the snapshot; the outbox goes on top")

        let acknowledged = machine.handle(.localStorageSaved(token: token, now: Self.now + 5))
        #expect(decisions(acknowledged).map(\.1.theme) == [.invert])
        let patch = nativeRequests(acknowledged)
        #expect(patch.map(\.1) == [.patch(scope: try ScopeKey.parse("docs.example.com"), set: SiteValues(theme: .invert), reset: [],
                                          stamp: Stamp(at: Self.now + 4, origin: .extension, edit: 1))])

        let applied = machine.handle(.nativeReplyArrived(request: patch[0].0, NativeReply.applied(DocumentVersion(documentId: "DOC-1", revision: 8), changed: true).json, now: Self.now + 6))
        #expect(applied.contains { if case .saveLocalStorage(let stored, _) = $0 { stored.outbox.isEmpty } else { false } })
    }

    @Test func aSnapshotThatArrivesWhilePatchesWaitKeepsThemOnTop() throws {
        var (machine, directives) = started(Self.cache)
        let firstSnapshot = nativeRequests(directives)[0].0
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        let edited = machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], now: Self.now + 4))
        guard case .saveLocalStorage(_, let token)? = edited.first else { return }
        _ = machine.handle(.localStorageSaved(token: token, now: Self.now + 5))
        let adopted = machine.handle(.nativeReplyArrived(request: firstSnapshot, snapshotReply(Self.shared), now: Self.now + 6))
        let saved = adopted.compactMap { if case .saveLocalStorage(let stored, _) = $0 { stored } else { nil } }
        #expect(saved.last?.cache?.defaults.theme == .gray)
        #expect(saved.last?.outbox.count == 1, "the waiting patch is still in the outbox")
        // The waiting patch stays applied: the tab's new decision is still off, now with the snapshot's theme.
        #expect(decisions(adopted).map(\.1.reason) == [.modeOff])
        #expect(decisions(adopted).map(\.1.theme) == [.gray])
    }

    @Test func aRejectedPatchLeavesTheOutboxAndForcesAFullResync() throws {
        var (machine, directives) = started(Self.cache)
        let snapshot = nativeRequests(directives)[0].0
        _ = machine.handle(.nativeReplyArrived(request: snapshot, snapshotReply(Self.shared), now: Self.now + 2))
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        guard case .saveLocalStorage(_, let token)? = machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], now: Self.now + 4)).first else { return }
        let patch = nativeRequests(machine.handle(.localStorageSaved(token: token, now: Self.now + 5)))[0].0
        let rejected = machine.handle(.nativeReplyArrived(request: patch, NativeReply.error(.invalidMessage, "no").json, now: Self.now + 6))
        #expect(rejected.contains { if case .saveLocalStorage(let stored, _) = $0 { stored.outbox.isEmpty } else { false } })
        #expect(nativeRequests(rejected).map(\.1) == [.getSnapshot(known: nil)])
    }

    @Test func aPopupChangeIsAnsweredSavedOnlyOnceItsSaveIsConfirmed() throws {
        var (machine, _) = try popupEditAwaitingSave()
        let saved = machine.handle(.localStorageSaved(token: 1, now: Self.now + 5))
        #expect(!saved.contains(.popupAnswer(message: 0, saved: true, scope: try ScopeKey.parse("docs.example.com"))), "token 1 is the snapshot's save, not the change's")
        var (other, token) = try popupEditAwaitingSave()
        #expect(other.handle(.localStorageSaved(token: token, now: Self.now + 5)).contains(.popupAnswer(message: 0, saved: true, scope: try ScopeKey.parse("docs.example.com"))))
        (other, token) = try popupEditAwaitingSave()
        #expect(other.handle(.localStorageSaveFailed(token: token, now: Self.now + 5)).first == .popupAnswer(message: 0, saved: nil, scope: try ScopeKey.parse("docs.example.com")))
        // Nothing to change, and no popup open: refused at once, by the message's number.
        #expect(other.handle(.popupEdited(set: SiteValues(), reset: [], message: 7, now: Self.now + 6)) == [.popupAnswer(message: 7, saved: false, scope: nil)])
        _ = other.handle(.popupClosed(now: Self.now + 7))
        #expect(other.handle(.popupForgotSite(message: 8, now: Self.now + 8)) == [.popupAnswer(message: 8, saved: false, scope: nil)])
    }

    @Test func aPatchWhoseHandlerDiedIsResentAtTheNextEvent() throws {
        var (machine, token) = try popupEditAwaitingSave()
        let patch = nativeRequests(machine.handle(.localStorageSaved(token: token, now: Self.now + 5)))[0].0
        let failed = machine.handle(.nativeReplyArrived(request: patch, NativeReply.error(.storageFailure, "died").json, now: Self.now + 6))
        #expect(nativeRequests(failed).isEmpty)
        let next = machine.handle(.tabRequestedDecision(Self.t1, url: Self.url, nativeDark: false, now: Self.now + 7))
        #expect(nativeRequests(next).contains { if case .patch = $0.1 { true } else { false } }, "the patch was not resent: \(next)")
    }

    @Test func aPauseTurnsPagesOffUntilItsAlarmFires() {
        var (machine, _) = started(Self.cache)
        let until = Self.now + 60_000
        let paused = machine.handle(.popupPaused(until: until, now: Self.now + 2))
        #expect(paused.first == .saveSessionStorage(SessionStorage(pausedUntil: until)))
        #expect(decisions(paused).map(\.1.reason) == [.paused])
        #expect(paused.contains(.setAlarm(at: until)))
        let resumed = machine.handle(.alarmFired(now: until))
        #expect(decisions(resumed).map(\.1.reason) == [.modeOn])
    }

    @Test func aScheduledTabGetsAnAlarmAtTheNextBoundary() {
        var storage = Self.cache
        storage.cache?.defaults.mode = .scheduled
        var machine = BackgroundMachine()
        // 2026-07-13T10:00:00Z: the next boundary of 20:00-06:00 in UTC is 20:00 the same day.
        let morning: EpochMillis = 1_783_936_800_000
        _ = machine.handle(.started(now: morning, appearance: .light, utcOffsetMinutes: 0, tabs: [:]))
        _ = machine.handle(.storageLoaded(local: storage, session: nil, now: morning))
        let answered = machine.handle(.tabRequestedDecision(Self.t1, url: Self.url, nativeDark: false, now: morning))
        #expect(decisions(answered).map(\.1.reason) == [.scheduleInactive])
        let evening = morning - (morning % 86_400_000) + 20 * 3_600_000
        #expect(answered.contains(.setAlarm(at: evening)))
        #expect(decisions(machine.handle(.alarmFired(now: evening))).map(\.1.reason) == [.scheduleActive])
    }

    @Test func aNewerSchemaSnapshotIsUsedReadOnly() throws {
        var (machine, directives) = started(nil)
        var newer = Self.shared
        newer.schemaVersion = 2
        newer.defaults.theme = .invert
        let answered = machine.handle(.nativeReplyArrived(request: nativeRequests(directives)[0].0, snapshotReply(newer), now: Self.now + 2))
        #expect(decisions(answered).map(\.1.theme) == [.invert])
    }

    @Test(arguments: [NativeErrorCode.tooLarge, .readOnly, .invalidMessage])
    func aPatchRefusedForGoodLeavesTheOutbox(code: NativeErrorCode) throws {
        var (machine, token) = try popupEditAwaitingSave()
        let patch = nativeRequests(machine.handle(.localStorageSaved(token: token, now: Self.now + 5)))[0].0
        let refused = machine.handle(.nativeReplyArrived(request: patch, NativeReply.error(code, "no").json, now: Self.now + 6))
        #expect(refused.contains { if case .saveLocalStorage(let stored, _) = $0 { stored.outbox.isEmpty } else { false } })
        #expect(nativeRequests(refused).map(\.1) == [.getSnapshot(known: nil)])
    }

    @Test func aSavedPopupChangeTheHandlerRefusesIsAnsweredAgainAsRefused() throws {
        var machine = BackgroundMachine()
        _ = machine.handle(.started(now: Self.now, appearance: .light, utcOffsetMinutes: 0, tabs: [Self.t1: Self.url]))
        _ = machine.handle(.storageLoaded(local: Self.cache, session: nil, now: Self.now + 1))
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 2))
        guard case .saveLocalStorage(_, let token)? = machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], message: 9, now: Self.now + 3)).first else {
            throw TestFailure("the popup change was not saved")
        }
        let saved = machine.handle(.localStorageSaved(token: token, now: Self.now + 4))
        let scope = try ScopeKey.parse("docs.example.com")
        #expect(saved.contains(.popupAnswer(message: 9, saved: true, scope: scope)))
        let patch = try #require(nativeRequests(saved).first { if case .patch = $0.1 { true } else { false } })
        let refused = machine.handle(.nativeReplyArrived(request: patch.0, NativeReply.error(.readOnly, "newer").json, now: Self.now + 5))
        #expect(refused.contains(.popupAnswer(message: 9, saved: false, scope: scope)))
    }

    @Test func aPopupChangeIsStampedWithTheTimeTheUserMadeIt() throws {
        var machine = BackgroundMachine()
        _ = machine.handle(.started(now: Self.now, appearance: .light, utcOffsetMinutes: 0, tabs: [Self.t1: Self.url]))
        _ = machine.handle(.storageLoaded(local: Self.cache, session: nil, now: Self.now + 1))
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 2))
        let edited = machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], message: 1, at: Self.now - 500, now: Self.now + 3))
        guard case .saveLocalStorage(let stored, _)? = edited.first, case .patch(_, _, _, let stamp)? = stored.outbox.first?.request else {
            throw TestFailure("the popup change was not saved: \(edited)")
        }
        #expect(stamp.at == Self.now - 500)
        // A time after the background's own now is not believed.
        let later = machine.handle(.popupForgotSite(message: 2, at: Self.now + 60_000, now: Self.now + 4))
        guard case .saveLocalStorage(let next, _)? = later.first, case .deleteSite(_, let deleted)? = next.outbox.last?.request else {
            throw TestFailure("the deletion was not saved: \(later)")
        }
        #expect(deleted.at == Self.now + 4)
    }

    @Test func aPatchThatChangedNothingThereDoesNotPassTheCacheOffAsCurrent() throws {
        // Another write (which nobody announced) came first and won: the handler changed
        // nothing, at a revision the cache would reach by applying the patch itself.
        var (machine, token) = try popupEditAwaitingSave()
        let patch = nativeRequests(machine.handle(.localStorageSaved(token: token, now: Self.now + 5)))[0].0
        let reply = NativeReply.applied(DocumentVersion(documentId: "DOC-1", revision: 8), changed: false).json
        let acknowledged = machine.handle(.nativeReplyArrived(request: patch, reply, now: Self.now + 6))
        #expect(nativeRequests(acknowledged).map(\.1) == [.getSnapshot(known: DocumentVersion(documentId: "DOC-1", revision: 7))])
    }

    @Test func aNotModifiedAnswerEndsTheReconciliation() throws {
        var (machine, directives) = started(Self.cache)
        let request = nativeRequests(directives)[0].0
        let version = try #require(Self.cache.snapshotVersion)
        _ = machine.handle(.nativeReplyArrived(request: request, NativeReply.notModified(version).json, now: Self.now + 2))
        // A tab asking is not a reconciliation point: no new snapshot request.
        let asked = machine.handle(.tabRequestedDecision(TabID("t2"), url: "https://a.example/", nativeDark: false, now: Self.now + 3))
        #expect(nativeRequests(asked).isEmpty, "\(asked)")
    }

    @Test func anEmptyPopupEditIsIgnored() {
        var (machine, _) = started(Self.cache)
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        #expect(machine.handle(.popupEdited(set: SiteValues(), reset: [], now: Self.now + 4)) == [.popupAnswer(message: 0, saved: false, scope: nil)])
    }

    @Test func storedOutboxEntriesWithImpossibleNumbersAreSkippedNotFatal() throws {
        let stored = try JSONParser.parse(#"{"outbox": [{"edit": -1, "request": {"type": "deleteSite", "scope": "a.example", "at": 1783939999000, "edit": 1}}], "nextEdit": -5}"#)
        let local = try #require(LocalStorage.decode(stored))
        #expect(local.outbox.isEmpty)
        #expect(local.nextEdit == 1)
    }

    @Test func aTabThatAsksBeforeTheSaveIsConfirmedDoesNotSeeTheChangeYet() throws {
        var (machine, token) = try popupEditAwaitingSave()
        let early = machine.handle(.tabRequestedDecision(TabID("t2"), url: Self.url, nativeDark: false, now: Self.now + 5))
        #expect(decisions(early).map(\.1.reason) == [.modeOn], "not acknowledged yet: not shown")
        let acknowledged = machine.handle(.localStorageSaved(token: token, now: Self.now + 6))
        #expect(decisions(acknowledged).map(\.1.reason) == [.modeOff, .modeOff])
    }

    @Test func aPopupChangeWhoseSaveFailsIsStillShownAndSentButAnsweredUnknown() throws {
        // The save may have failed after it took effect: memory keeps the change, as storage may.
        var (machine, token) = try popupEditAwaitingSave()
        let failed = machine.handle(.localStorageSaveFailed(token: token, now: Self.now + 5))
        #expect(failed.first == .popupAnswer(message: 0, saved: nil, scope: try ScopeKey.parse("docs.example.com")))
        #expect(nativeRequests(failed).contains { if case .patch = $0.1 { true } else { false } })
        #expect(decisions(machine.handle(.tabRequestedDecision(TabID("t2"), url: Self.url, nativeDark: false, now: Self.now + 7))).map(\.1.reason) == [.modeOff])
    }

    @Test func unreadableStorageIsNeverOverwrittenAndPopupChangesAreRefused() throws {
        var machine = BackgroundMachine()
        _ = machine.handle(.started(now: Self.now, appearance: .light, utcOffsetMinutes: 0, tabs: [:]))
        let loaded = machine.handle(.storageLoadFailed(now: Self.now))
        let request = nativeRequests(loaded)[0].0
        let adopted = machine.handle(.nativeReplyArrived(request: request, snapshotReply(Self.shared), now: Self.now + 1))
        #expect(!adopted.contains { if case .saveLocalStorage = $0 { true } else { false } })
        _ = machine.handle(.tabRequestedDecision(Self.t1, url: Self.url, nativeDark: false, now: Self.now + 2))
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        #expect(machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], now: Self.now + 4)) == [.popupAnswer(message: 0, saved: false, scope: nil)])
    }

    @Test func aSnapshotAdoptedBeforeTheSaveIsConfirmedStillHidesTheChange() throws {
        var (machine, directives) = started(Self.cache)
        _ = machine.handle(.nativeReplyArrived(request: nativeRequests(directives)[0].0, snapshotReply(Self.shared), now: Self.now + 2))
        _ = machine.handle(.popupOpened(Self.t1, now: Self.now + 3))
        let request = nativeRequests(machine.handle(.safariCameToForeground(now: Self.now + 4)))[0].0
        guard case .saveLocalStorage(_, let token)? = machine.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], now: Self.now + 5)).first else {
            Issue.record("no save")
            return
        }
        var newer = Self.shared
        newer.defaults.theme = .dark
        newer.revision = 8
        let adopted = machine.handle(.nativeReplyArrived(request: request, snapshotReply(newer), now: Self.now + 6))
        #expect(decisions(adopted).map(\.1.reason) == [.modeOn])
        #expect(decisions(adopted).map(\.1.theme) == [.dark])
        #expect(decisions(machine.handle(.localStorageSaved(token: token, now: Self.now + 7))).map(\.1.reason) == [.modeOff])
    }

    @Test func anAcknowledgedPatchIsFoldedIntoTheCacheSoTabsKeepShowingIt() throws {
        var (machine, token) = try popupEditAwaitingSave()
        let patch = nativeRequests(machine.handle(.localStorageSaved(token: token, now: Self.now + 5)))[0].0
        let applied = machine.handle(.nativeReplyArrived(request: patch, NativeReply.applied(DocumentVersion(documentId: "DOC-1", revision: 8), changed: true).json, now: Self.now + 6))
        let saved = applied.compactMap { if case .saveLocalStorage(let stored, _) = $0 { stored } else { nil } }
        #expect(saved.last?.outbox.isEmpty == true)
        #expect(saved.last?.cache?.revision == 8)
        #expect(saved.last?.snapshotVersion == DocumentVersion(documentId: "DOC-1", revision: 8))
        #expect(saved.last?.cache?.sites[try ScopeKey.parse("docs.example.com")]?.values.mode == .off)
        #expect(nativeRequests(applied).isEmpty, "the cache is that revision exactly: nothing to ask")
        #expect(decisions(machine.handle(.tabRequestedDecision(TabID("t2"), url: Self.url, nativeDark: false, now: Self.now + 7))).map(\.1.reason) == [.modeOff])
    }

    @Test func anAcknowledgementAfterAnotherWriteAsksForTheSnapshot() throws {
        var (machine, token) = try popupEditAwaitingSave()
        let patch = nativeRequests(machine.handle(.localStorageSaved(token: token, now: Self.now + 5)))[0].0
        let applied = machine.handle(.nativeReplyArrived(request: patch, NativeReply.applied(DocumentVersion(documentId: "DOC-1", revision: 9), changed: true).json, now: Self.now + 6))
        #expect(nativeRequests(applied).map(\.1) == [.getSnapshot(known: DocumentVersion(documentId: "DOC-1", revision: 7))])
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
