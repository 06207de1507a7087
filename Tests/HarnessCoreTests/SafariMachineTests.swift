@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Safari's rules on their own: each input and the complete list of effects it gives, with no
/// process started.
struct SafariMachineTests {
    private let t1 = TabID("t1"), t2 = TabID("t2")
    private let url = "https://docs.example.com/"

    /// A machine with a loaded background `incarnation` that registered `listeners`, at `now`.
    private func loaded(_ platform: Simulation.Platform = .iOS, incarnation: Int = 1, listeners: [BackgroundListener] = BackgroundListener.builtIn,
                        now: EpochMillis = 0) -> SafariMachine {
        var safari = SafariMachine(platform: platform)
        #expect(safari.handle(.backgroundStarted(incarnation: incarnation), now: now) == [])
        #expect(safari.handle(.backgroundFinished(incarnation: incarnation, [.listen(listeners)]), now: now) == [])
        return safari
    }

    /// What iOS Safari leaving the front says in the trace.
    private static let iOSSafariLeaves = SafariMachine.Effect.note("Safari goes to the background: iOS suspends it, and the extension with it")

    private func asks(_ tab: TabID, _ url: String) -> SafariMachine.Effect {
        .dispatch(.tabRequestedDecision(tab, url: url, nativeDark: false))
    }

    /// A decision, told apart by the appearance it was made in.
    private func decision(_ appearance: Appearance) -> Decision {
        Resolver(document: SettingsDocument()).decide(url: url,
                                                      context: DecisionContext(appearance: appearance, now: 0, utcOffsetMinutes: 0, pausedUntil: nil, pageIsNativelyDark: false))
    }

    // MARK: - Waking and listeners

    @Test func aTabThatOpensAsksAndItsEventStartsAnUnloadedBackgroundThenComesAgain() {
        var safari = SafariMachine(platform: .iOS)
        #expect(safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 5) ==
                [.note("tab t1 opened in profile default, window 1: \(url)"), asks(t1, url)])
        let event = ExtensionWire.Event.tabRequestedDecision(t1, url: url, nativeDark: false)
        #expect(safari.handle(.eventDue(event), now: 5) ==
                [.startBackground(.started(appearance: .light, tabs: [t1: url])), .redispatch(event)])
        _ = safari.handle(.backgroundStarted(incarnation: 1), now: 5)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.listen([.message])]), now: 5)
        #expect(safari.handle(.eventDue(event), now: 5) == [.deliver(event)])
        #expect(safari.unloadTime == 30_005, "the load re-armed the unload timer")
    }

    @Test func anEventTheSavedListenersLackWakesNothingAndIsCounted() {
        var safari = loaded(listeners: [.message])
        _ = safari.handle(.backgroundUnloadRequested, now: 10)
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 10)
        #expect(safari.handle(.eventDue(.tabActivated(t1)), now: 20) ==
                [.note("tabActivated wakes nothing: the background does not listen for tabActivated")])
        #expect(safari.counts.droppedForWantOfAListener == 1)
    }

    @Test func anEventBeforeItsListenerIsLostAndReArmsNothing() {
        var safari = loaded(listeners: [.message])
        #expect(safari.handle(.eventDue(.tabClosed(t1)), now: 20_000) == [.note("tabClosed lost: background#1 has no tabRemoved listener")])
        #expect(safari.unloadTime == 30_000)
        #expect(safari.handle(.eventDue(.appearanceChanged(.dark)), now: 20_000) == [.deliver(.appearanceChanged(.dark))])
        #expect(safari.unloadTime == 50_000, "an event it listens for re-arms the timer")
    }

    /// Safari hears a listener as it is added (`WebExtensionContext::addListener`), after the
    /// load too: it hears what comes later, and its type wakes the session's later backgrounds
    /// (an unload removes nothing from `m_backgroundContentEventListeners`), though Safari saves
    /// the set only at a load's end (`saveBackgroundPageListenersToStorage`).
    @Test func aListenerAddedAfterTheLoadHearsLaterEventsAndWakesTheSessionsLaterBackgrounds() {
        var safari = loaded(listeners: [])
        #expect(safari.savedListeners["default"] == [])
        let question = ExtensionWire.Event.tabRequestedDecision(t1, url: url, nativeDark: false)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.eventDue(question), now: 1) ==
                [.note("tabRequestedDecision lost: background#1 has no message listener"), .note(.asksAgain(t1)), asks(t1, url)])
        // The listener, added once storage answered.
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.listen([.message])]), now: 2) == [])
        #expect(safari.handle(.eventDue(question), now: 3) == [.deliver(question)])
        #expect(safari.unloadTime == 30_003 && safari.savedListeners["default"] == [])
        // Its question went with the background: the page asks again after a pause.
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 40_000) == [.note(.asksAgainAfter(t1, milliseconds: 500))])
        #expect(safari.handle(.timeReached(.pageAsksAgain(t1)), now: 40_500) == [.note("tab t1's pause is over: it asks again"), asks(t1, url)])
        #expect(safari.handle(.eventDue(question), now: 40_501) == [.startBackground(.started(appearance: .light, tabs: [t1: url])), .redispatch(question)])
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 40_501)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen([])]), now: 40_501)
        #expect(safari.savedListeners["default"] == [.message], "the second load's end saves what the session holds")
        // An event an earlier background listened for is lost, and starts the unload timer again.
        #expect(safari.handle(.eventDue(question), now: 50_000) ==
                [.note("tabRequestedDecision lost: background#2 has no message listener"), .note(.asksAgainAfter(t1, milliseconds: 2_000))])
        #expect(safari.unloadTime == 80_000)
    }

    /// Safari's launch knows only what it saved at a load's end
    /// (`loadBackgroundPageListenersFromStorage`), and a listener removed leaves the set only
    /// when no earlier background of the session had it (`removeListener` lowers a count).
    @Test func safarisLaunchKnowsTheListenersSavedAtALoadsEndAndARemovedOneLeavesWithItsLastCount() {
        var safari = loaded(listeners: [.message, .tabActivated])
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.listen([.message, .tabRemoved])]), now: 1)
        #expect(safari.listenerSet == [.message, .tabRemoved], "none was there before this background: tabActivated leaves")
        #expect(safari.savedListeners["default"] == [.message, .tabActivated])
        _ = safari.handle(.safariQuit, now: 2)
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 2)
        #expect(safari.sessionListeners["default"] == [.message, .tabRemoved])
        _ = safari.handle(.safariLaunched, now: 3)
        #expect(safari.listenerSet == [.message, .tabActivated], "tabRemoved came after the load's end, and went with Safari")
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 3)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen([.message])]), now: 3)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen([])]), now: 4)
        #expect(safari.listenerSet == [.message, .tabActivated], "what Safari read at its launch keeps a count of its own")
    }

    /// A page's question that no listener takes is answered with nothing at once
    /// (`runtimeSendMessage`: no process listens for `runtime.onMessage`), whether the loaded
    /// background has no listener or Safari wakes none; the content script asks again, and
    /// those empty answers excuse no wait.
    @Test func aQuestionNoListenerTakesIsAnsweredEmptyAtOnce() {
        var safari = loaded(listeners: [])
        let question = ExtensionWire.Event.tabRequestedDecision(t1, url: url, nativeDark: false)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let lost = SafariMachine.Effect.note("tabRequestedDecision lost: background#1 has no message listener")
        #expect(safari.handle(.eventDue(question), now: 1) == [lost, .note(.asksAgain(t1)), asks(t1, url)])
        // The content script pauses before it asks the second and the third time.
        for (pause, end) in [(500, 501), (2_000, 2_501)] as [(Int, EpochMillis)] {
            #expect(safari.handle(.eventDue(question), now: end - EpochMillis(pause)) == [lost, .note(.asksAgainAfter(t1, milliseconds: pause))])
            #expect(safari.nextAskAgain?.tab == t1 && safari.nextAskAgain?.at == end)
            #expect(safari.handle(.timeReached(.pageAsksAgain(t1)), now: end) == [.note("tab t1's pause is over: it asks again"), asks(t1, url)])
            #expect(safari.nextAskAgain == nil)
        }
        #expect(safari.handle(.eventDue(question), now: 2_501) ==
                [.note("tabRequestedDecision lost: background#1 has no message listener"), .note(.stopsAsking(t1, emptyAnswers: 4))])
        #expect(safari.tabs[t1]?.unheardQuestions == 4 && safari.tabs[t1]?.waitingSince == 0, "its wait goes on, pauses and all")
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 2)
        #expect(safari.handle(.tabActivated(t1), now: 3) == [.dispatch(.tabActivated(t1)), asks(t1, url)])
        #expect(safari.handle(.eventDue(question), now: 3) ==
                [.note("tabRequestedDecision wakes nothing: the background does not listen for message"), .note(.asksAgain(t1)), asks(t1, url)])
    }

    @Test func whatIsNotAnEventFindsNoBackgroundAndIsDropped() {
        var safari = SafariMachine(platform: .macOS)
        #expect(safari.handle(.eventDue(.timerFired(.nativeTimeout(3))), now: 0) == [.note(.droppedWithNoBackground("timerFired"))])
        #expect(safari.handle(.storageCompleted(incarnation: 1, token: 2), now: 0) == [])
        #expect(safari.handle(.portMessageDue(incarnation: 1), now: 0) == [.note("the app's message dropped: background#1's port closed")])
    }

    // MARK: - Freezing and iOS suspension

    @Test func whatWasHeldForAFrozenBackgroundThatDiedReachesNoOtherIncarnation() {
        var safari = loaded(.macOS)
        _ = safari.handle(.backgroundFrozenByUser, now: 0)
        let reply = ExtensionWire.Event.nativeReplyArrived(request: 1, .unreadable(.null))
        #expect(safari.handle(.replyArrived(.init(incarnation: 1, request: 1), .unreadable(.null)), now: 0) == [])
        #expect(safari.handle(.backgroundThawedByUser, now: 0) == [.thawBackground(traced: true, held: [.init(event: reply, incarnation: 1)])])
        // Before the shell hands it over, background#1 dies and #2 starts, with a request 1 of its own.
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .killed), now: 0)
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 0)
        #expect(safari.handle(.eventDue(reply, for: 1), now: 0) == [.note("dropped reply for background#1")])
        #expect(safari.handle(.eventDue(.timerFired(.nativeTimeout(1)), for: 1), now: 0) == [], "a timeout of #1's timer is #1's")
        #expect(safari.handle(.eventDue(.timerFired(.nativeTimeout(1)), for: 2), now: 0) == [.deliver(.timerFired(.nativeTimeout(1)))])
    }

    @Test func eventsForAFrozenBackgroundWaitForItsThaw() {
        var safari = loaded(.macOS)
        #expect(safari.handle(.backgroundFrozenByUser, now: 0) == [.freezeBackground(traced: true)])
        #expect(safari.handle(.eventDue(.tabActivated(t1)), now: 0) == [])
        #expect(safari.handle(.backgroundThawedByUser, now: 0) == [.thawBackground(traced: true, held: [.init(event: .tabActivated(t1))])])
    }

    @Test func iOSSafariReturningFiresItsOverdueTimersBeforeTheBackgroundThaws() {
        var safari = loaded(.iOS)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.safariWentToBackground, now: 0) == [Self.iOSSafariLeaves, .freezeBackground(traced: true)])
        #expect(safari.handle(.eventDue(.alarmFired(name: "")), now: 1) == [], "held for the frozen background")
        #expect(safari.handle(.safariCameToForeground, now: 3_600_000) == [.note("Safari comes to the front"), .fireOverdueTimers])
        #expect(safari.handle(.overdueTimersFired, now: 3_600_000) ==
                [.thawBackground(traced: true, held: [.init(event: .alarmFired(name: ""))]), .dispatch(.safariCameToForeground), asks(t1, url)])
    }

    /// Safari leaving the front on macOS tells its extensions that no window has focus
    /// (`didFocusWindow(nullptr)`: `windows.onFocusChanged` with `WINDOW_ID_NONE`), which wakes
    /// a background that listens for window focus; once, and not again while it stays behind.
    /// iOS suspends Safari and tells nothing.
    @Test func macOSSafariLeavingTheFrontTellsTheExtensionNoWindowHasFocusAndIOSSafariDoesNot() {
        var mac = loaded(.macOS, listeners: [.windowFocus])
        #expect(mac.handle(.safariWentToBackground, now: 0) == [.note("Safari goes to the background"), .dispatch(.safariWentToBackground)])
        #expect(mac.handle(.safariWentToBackground, now: 1) == [], "behind already: nothing changes focus")
        #expect(mac.handle(.eventDue(.safariWentToBackground), now: 10_000) == [.deliver(.safariWentToBackground)])
        #expect(mac.unloadTime == 40_000, "the event woke it")
        _ = mac.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 50_000)
        _ = mac.handle(.safariCameToForeground, now: 60_000)
        _ = mac.handle(.safariWentToBackground, now: 70_000)
        #expect(mac.handle(.eventDue(.safariWentToBackground), now: 70_000) == [.startBackground(.started(appearance: .light, tabs: [:], appMessages: true)), .redispatch(.safariWentToBackground)])
        var ios = loaded(.iOS, listeners: [.windowFocus])
        #expect(ios.handle(.safariWentToBackground, now: 0) == [Self.iOSSafariLeaves, .freezeBackground(traced: true)])
    }

    @Test func theAppInFrontSendsIOSSafariToTheBackgroundButNotMacOSSafari() {
        var ios = loaded(.iOS), mac = loaded(.macOS)
        #expect(ios.handle(.appCameToForeground, now: 0) == [Self.iOSSafariLeaves, .freezeBackground(traced: true)])
        #expect(mac.handle(.appCameToForeground, now: 0) == [])
        #expect(ios.isBackgroundFrozen && !mac.isBackgroundFrozen)
        #expect(ios.handle(.safariCameToForeground, now: 0) == [.suspendApp, .note("Safari comes to the front"), .fireOverdueTimers])
    }

    // MARK: - The popup

    @Test func aBackgroundThatDoesNotKnowTheOpenPopupLearnsOfItAndItsScopeFirst() {
        var safari = loaded()
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.popupScopeChosen(".example.com"), now: 0)
        #expect(safari.handle(.eventDue(.popupOpened(t1)), now: 0) == [.deliver(.popupOpened(t1))])
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 0)
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen([.message])]), now: 0)
        let edit = ExtensionWire.Event.popupPaused(until: 60_000)
        #expect(safari.handle(.eventDue(edit), now: 0) ==
                [.announcePopup(.popupOpened(t1), then: edit), .announcePopup(.popupChoseScope(scope: ".example.com"), then: edit), .deliver(edit)])
        #expect(safari.handle(.eventDue(edit), now: 0) == [.deliver(edit)], "it knows now")
        _ = safari.handle(.popupAnnouncementInterrupted, now: 0)
        #expect(safari.handle(.eventDue(edit), now: 0).count == 3, "an announcement cut short is made again")
    }

    @Test func theUserBringsSafariToTheFrontAndShowsTheTabToOpenThePopupOverIt() {
        var safari = loaded()
        for tab in [t1, t2] { _ = safari.handle(.tabOpened(tab, url: url, nativeDark: false, window: nil), now: 0) }
        _ = safari.handle(.appCameToForeground, now: 0)
        #expect(!safari.safariInForeground && safari.activeTab == t2)
        let effects = safari.handle(.popupOpened(t1), now: 0)
        #expect(Array(effects.prefix(5)) == [.note("the user brings Safari to the front to open the popup"), .suspendApp, .note("Safari comes to the front"),
                                             .fireOverdueTimers, .note("the user shows tab t1 to open the popup over it")])
        #expect(effects.contains(.dispatch(.tabActivated(t1))) && effects.last == .dispatch(.popupOpened(t1)))
        #expect(safari.safariInForeground && safari.activeTab == t1 && safari.popupTab == t1)
        _ = safari.handle(.appCameToForeground, now: 0)
        #expect(safari.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], edit: 1), now: 0).prefix(2) ==
                [.note("the user brings Safari to the front to edit in the popup"), .suspendApp], "so does a change in it")
    }

    @Test func aChangeWithNoPopupOpenDoesNothing() {
        var safari = loaded()
        #expect(safari.handle(.popupEdited(set: SiteValues(mode: .off), reset: [], edit: 1), now: 0) == [.note("no popup is open: nothing to edit")])
        #expect(safari.handle(.popupUsed(.click("save")), now: 0) == [.note("no popup is open: nothing to click")])
    }

    @Test func thePopupClosesWithItsTabAndGoesWithSafariAndWithAnUpdate() {
        var safari = loaded(.macOS)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.popupOpened(t1), now: 0)
        #expect(safari.handle(.tabClosed(t1), now: 0).contains(.dispatch(.popupClosed)), "the background hears it close with its tab")
        #expect(safari.popupTab == nil)
        _ = safari.handle(.tabOpened(t2, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.popupOpened(t2), now: 0)
        #expect(!safari.handle(.safariQuit, now: 0).contains(.dispatch(.popupClosed)), "no background is left to hear it")
        #expect(safari.popupTab == nil && safari.popup == nil)
        _ = safari.handle(.safariLaunched, now: 0)
        _ = safari.handle(.tabOpened(t2, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.popupOpened(t2), now: 0)
        _ = safari.handle(.extensionUpdated(), now: 0)
        #expect(safari.popupTab == nil)
    }

    // MARK: - Directives

    @Test func anAlarmSoonerThanTheMinimumIsRaisedToItAndFiresOnce() {
        var safari = loaded(now: 100_000)
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 101_000)]), now: 100_000) ==
                [.note("alarm raised to the minimum delay, 30 s"), .dispatch(.alarmsChanged(alarms: ["": ExtensionWire.Alarm(at: 130_000)]))],
                "the background hears the alarm as Safari holds it")
        #expect(safari.nextAlarm?.at == 130_000 && safari.counts.alarmsRaisedToTheMinimum == 1)
        #expect(safari.handle(.timeReached(.alarm(SafariMachine.decisionAlarm)), now: 130_000) == [.dispatch(.alarmFired(name: ""))])
        #expect(safari.nextAlarm == nil)
    }

    /// A one-shot alarm that fired stays, at the time it was due, with no timer
    /// (`WebExtensionAlarm::fire`): the next background hears it in `started`, it never fires
    /// again, and making it again sets it afresh. A background that does not listen is told
    /// nothing new when a one-shot alarm fires, and is told a periodic one's next time.
    @Test func aOneShotAlarmThatFiredStaysListedUntilItIsMadeAgain() {
        var safari = loaded(now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 60_000, name: "remind")]), now: 0)
        #expect(safari.handle(.timeReached(.alarm("remind")), now: 60_000) == [.dispatch(.alarmFired(name: "remind"))])
        #expect(safari.nextAlarm == nil, "it has no timer")
        #expect(safari.heldAlarms == ["remind": ExtensionWire.Alarm(at: 60_000)], "alarms.get still gives it")
        #expect(safari.handle(.timeReached(.alarm("remind")), now: 120_000).isEmpty, "it never fires again")
        _ = safari.handle(.deviceSlept(1_000), now: 120_000)
        #expect(safari.nextAlarm == nil && safari.heldAlarms == ["remind": ExtensionWire.Alarm(at: 61_000)], "a sleep moves it and leaves it fired")
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 200_000, name: "remind")]), now: 120_000)
        #expect(safari.nextAlarm?.at == 200_000 && safari.nextAlarm?.name == "remind")
        var deaf = loaded(listeners: [.message], now: 0)
        _ = deaf.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 60_000, name: "once"), .setAlarm(at: 60_000, name: "every", period: 60_000)]), now: 0)
        #expect(deaf.handle(.timeReached(.alarm("once")), now: 60_000) == [.dispatch(.alarmFired(name: "once"))])
        #expect(deaf.handle(.timeReached(.alarm("every")), now: 60_000) ==
                [.dispatch(.alarmFired(name: "every")),
                 .dispatch(.alarmsChanged(alarms: ["once": ExtensionWire.Alarm(at: 60_000), "every": ExtensionWire.Alarm(at: 120_000, period: 60_000)]))])
    }

    /// The toolbar item is Safari's: what a background sets outlives it and reaches the next
    /// one's `started`; a tab's values go with the tab, every profile keeps its own, and all go
    /// when Safari quits or an update loads the extension afresh (`WebExtensionContext::unload`).
    @Test func theToolbarItemIsSafarisAndGoesWithItsTabQuitsAndUpdates() {
        var safari = loaded(now: 0)
        _ = safari.handle(.tabOpened(TabID("t1"), url: "https://a.example/", nativeDark: false, window: 1), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.actionSet(tab: nil, property: .badgeText, value: .string("new")),
                                                            .actionSet(tab: TabID("t1"), property: .title, value: .string("One")),
                                                            .actionSet(tab: TabID("t9"), property: .title, value: .string("Nine"))]), now: 0)
        #expect(safari.action.value(.badgeText, tab: TabID("t1")) == .string("new"), "a tab shows every tab's value where it has none of its own")
        #expect(safari.action.value(.title, tab: TabID("t1")) == .string("One") && safari.action.tabs[TabID("t9")] == nil, "a tab not open is dropped")
        _ = safari.handle(.backgroundUnloadRequested, now: 1_000)
        guard case .started(_, _, _, _, _, _, _, _, let action, _) = safari.startedEvent() else { Issue.record("no started event"); return }
        #expect(action == safari.action && !action.isEmpty, "the next background learns it")
        _ = safari.handle(.tabClosed(TabID("t1")), now: 2_000)
        #expect(safari.action.tabs.isEmpty && safari.action.value(.badgeText, tab: nil) == .string("new"))
        _ = safari.handle(.profileLeftFront, now: 2_000)
        _ = safari.handle(.profileCameToFront("work", queued: []), now: 2_000)
        #expect(safari.action.isEmpty, "another profile has its own")
        _ = safari.handle(.profileCameToFront(SafariMachine.defaultProfile, queued: []), now: 2_000)
        #expect(safari.action.value(.badgeText, tab: nil) == .string("new"), "and the first keeps its own")
        _ = safari.handle(.extensionUpdated(version: nil), now: 3_000)
        #expect(safari.action.isEmpty, "an update clears it")
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 3_000)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.actionSet(tab: nil, property: .enabled, value: .bool(false))]), now: 3_000)
        #expect(safari.action.value(.enabled, tab: nil) == .bool(false))
        _ = safari.handle(.safariQuit, now: 4_000)
        _ = safari.handle(.safariLaunched, now: 5_000)
        #expect(safari.action.isEmpty, "Safari keeps it in memory only")
    }

    /// A page's change to the menu items is made in Safari's list one call at a time: an item
    /// made twice, or changed or removed once gone, is refused; a removal takes the items under
    /// the item with it.
    @Test func aPagesMenuChangeIsMadeInSafarisListOrRefused() {
        let tools = ExtensionMenuItem(id: .string("tools"), title: "Tools"), pin = ExtensionMenuItem(id: .integer(1), title: "Pin", parentId: .string("tools"))
        let under = ExtensionMenuItem(id: .string("deep"), title: "Deep", parentId: .integer(1)), other = ExtensionMenuItem(id: .string("other"), title: "Other")
        let items = [tools, pin, under, other]
        #expect(MenuChange.create(other).applied(to: items) == .failure(MenuChange.Refusal("an item other is there already")))
        #expect(MenuChange.update(ExtensionMenuItem(id: .string("gone"), title: "x")).applied(to: items) == .failure(MenuChange.Refusal("no item gone is there")))
        #expect(MenuChange.remove(.string("tools")).applied(to: items) == .success([other]))
        #expect(MenuChange.remove(.integer(1)).applied(to: items) == .success([tools, other]))
        #expect(MenuChange.remove(.string("gone")).applied(to: items) == .failure(MenuChange.Refusal("no item gone is there")))
        #expect(MenuChange.removeAll.applied(to: items) == .success([]))
        var renamed = other
        renamed.title = "Renamed"
        #expect(MenuChange.update(renamed).applied(to: items) == .success([tools, pin, under, renamed]))
        // The loaded background hears Safari's list before anything queued for it.
        var safari = loaded(listeners: [], now: 0)
        #expect(safari.handle(.pageMenuChanged(.create(other)), now: 0) == [.dispatchFirst([.menusChanged(items: [other])])])
        #expect(safari.handle(.pageMenuChanged(.create(other)), now: 0) == [.note("a page's menu change is refused: an item other is there already")])
    }

    /// A page's menu shows only visible items for a page under visible, enabled parents; an
    /// enabled one chosen fires menus.onClicked (a checkbox flips, a radio item is checked and
    /// its neighbours not), and the list is Safari's until it quits.
    @Test func aMenuItemChosenOnAPageFiresOnlyWhenThePageMenuShowsIt() {
        var safari = loaded(listeners: [.menuClicked], now: 0)
        let t1 = TabID("t1"), url = "https://a.example/"
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: 1), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.menusChanged([
            ExtensionMenuItem(id: .string("tools"), title: "Tools", contexts: ["all"]),
            ExtensionMenuItem(id: .integer(1), title: "Pin", type: "checkbox", checked: true, parentId: .string("tools")),
            ExtensionMenuItem(id: .string("a"), title: "A", type: "radio", checked: true), ExtensionMenuItem(id: .string("b"), title: "B", type: "radio"),
            ExtensionMenuItem(id: .string("link"), title: "Link", contexts: ["link"]),
            ExtensionMenuItem(id: .string("off"), title: "Off", enabled: false),
            ExtensionMenuItem(id: .string("hidden"), title: "Hidden", visible: false), ExtensionMenuItem(id: .string("under"), title: "Under", parentId: .string("hidden")),
        ])]), now: 0)
        #expect(safari.handle(.menuItemChosen("1", t1), now: 1_000)
                == [.dispatch(.menuClicked(id: .integer(1), parentId: .string("tools"), tab: t1, url: url, checked: false, wasChecked: true))])
        #expect(safari.handle(.menuItemChosen("b", t1), now: 1_000)
                == [.dispatch(.menuClicked(id: .string("b"), parentId: nil, tab: t1, url: url, checked: true, wasChecked: false))])
        #expect(safari.menus.filter { $0.checked }.map(\.name) == ["b"], "a radio item unchecks its neighbours, and the checkbox flipped")
        for name in ["link", "off", "hidden", "under", "missing"] {
            let effects = safari.handle(.menuItemChosen(name, t1), now: 1_000)
            #expect(effects.count == 1 && !effects.contains { if case .dispatch = $0 { true } else { false } }, "\(name): \(effects)")
        }
        _ = safari.handle(.safariQuit, now: 2_000)
        _ = safari.handle(.safariLaunched, now: 3_000)
        #expect(safari.menus.isEmpty, "Safari writes them nowhere")
    }

    /// A background's own storage change fires storage.onChanged through Safari, which wakes a
    /// background that listens for it: its unload timer starts again. One that does not listen
    /// is not woken (`fireStorageChangedEventIfNeeded`).
    @Test func aBackgroundsOwnStorageChangeWakesItWhenItListensForChanges() {
        var safari = loaded(listeners: [.storageChanged], now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.storageChanged(area: "local", changes: .object([:]))]), now: 20_000)
        #expect(safari.unloadTime == 50_000)
        var deaf = loaded(listeners: [.message], now: 0)
        _ = deaf.handle(.backgroundFinished(incarnation: 1, [.storageChanged(area: "local", changes: .object([:]))]), now: 20_000)
        #expect(deaf.unloadTime == 30_000)
    }

    @Test func anAlarmThatFiresForABackgroundListeningForItRestartsTheUnloadTimerAtOnce() {
        var safari = loaded(now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 40_000)]), now: 0)
        // iOS Safari returning at +1 h: the alarm (due at 40 s) fires before the check (due at 30 s + wakes).
        #expect(safari.handle(.timeReached(.alarm(SafariMachine.decisionAlarm)), now: 3_600_000) == [.dispatch(.alarmFired(name: ""))])
        #expect(safari.unloadTime == 3_630_000, "the stale check is gone before the event reaches the page")
        var deaf = loaded(listeners: [.message], now: 0)
        _ = deaf.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 40_000)]), now: 0)
        _ = deaf.handle(.timeReached(.alarm(SafariMachine.decisionAlarm)), now: 3_600_000)
        #expect(deaf.unloadTime == 30_000, "a background that does not listen for alarms is not woken")
    }

    @Test func aDecisionForATabNotOpenHereIsDroppedAndOneForAnOpenTabIsShown() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.sendDecision(t2, decision(.light))]), now: 1) ==
                [.decisionSent(t2, decision(.light)), .note("tab t2 is not open here: its decision is dropped")])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.storagePending(token: 4), .sendDecision(t1, decision(.dark))]), now: 2) ==
                [.completeStorage(incarnation: 1, token: 4), .decisionSent(t1, decision(.dark))])
        #expect(safari.tabs[t1]?.applied == decision(.dark) && safari.tabs[t1]?.waitingSince == nil)
    }

    @Test func theBackgroundsTimersAndRequestsAreItsIncarnations() {
        var safari = loaded(incarnation: 3)
        let message = NativeRequest.getSnapshot(known: nil)
        let id = SafariMachine.NativeRequestID(incarnation: 3, request: 1)
        #expect(safari.handle(.backgroundFinished(incarnation: 3, [.sendNative(request: 1, message),
                                                                   .setTimer(.nativeTimeout(1), at: 5_000)]), now: 0) ==
                [.queueNativeRequest(id, message, profile: "default"), .setTimer(.init(incarnation: 3, .nativeTimeout(1)), at: 5_000)])
        #expect(safari.handle(.backgroundFinished(incarnation: 3, [.setTimer(.script(1), at: 6_000), .cancelTimer(.script(1))]), now: 0) ==
                [.setTimer(.init(incarnation: 3, .script(1)), at: 6_000), .cancelTimer(.init(incarnation: 3, .script(1)))])
    }

    // MARK: - Native requests

    @Test func requestsBeyondTheCapAreRefusedAtOnceAndOneEndingMakesRoom() {
        var safari = loaded()
        safari.nativeRequestCap = 2
        let message = NativeRequest.getSnapshot(known: nil)
        let ids = (1...3).map { SafariMachine.NativeRequestID(incarnation: 1, request: $0) }
        #expect(safari.handle(.nativeRequestDue(ids[0], message, profile: "default"), now: 0) == [.startHandler(ids[0], message, profile: "default")])
        #expect(safari.handle(.legacyRequestSent(.getEnabled), now: 0) == [.startLegacyHandler(.getEnabled)], "the first version's is not counted until it hangs")
        _ = safari.handle(.legacyRequestHung, now: 0)
        #expect(safari.handle(.nativeRequestDue(ids[1], message, profile: "default"), now: 0) ==
                [.note("refused a native request: 2 in flight"), .queueReply(ids[1], .rejected(.tooManyRequests))])
        #expect(safari.counts.requestsRefusedAtTheCap == 1)
        #expect(safari.handle(.replyArrived(ids[0], .unreadable(.null)), now: 0) == [.deliver(.nativeReplyArrived(request: 1, .unreadable(.null)))])
        #expect(safari.handle(.nativeRequestDue(ids[2], message, profile: "default"), now: 0) == [.startHandler(ids[2], message, profile: "default")])
    }

    @Test func aHandlerThatEndsWithoutAnswerIsRejectedAndAReplyForAnEarlierIncarnationIsDropped() {
        var safari = loaded(incarnation: 2)
        let old = SafariMachine.NativeRequestID(incarnation: 1, request: 4)
        #expect(safari.handle(.handlerEndedWithoutAnswer(old), now: 0) == [.queueReply(old, .rejected(.handlerEnded))])
        #expect(safari.handle(.replyArrived(old, .rejected(.handlerEnded)), now: 0) == [.note("dropped reply for background#1")])
    }

    // MARK: - Death, unload and restart

    @Test func aTabWhoseAnswerDiedWithTheBackgroundGetsAnEmptyAnswerAndItsContentScriptAsksAgain() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.backgroundKillRequested, now: 0) == [.killBackground(reason: "killed", stop: .killed)])
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .killed), now: 7) == [.note(.asksAgain(t1)), asks(t1, url)])
        #expect(safari.lastStop == .killed && safari.tabs[t1]?.waitingSince == 7 && safari.tabs[t1]?.emptyAnswersInARow == 1)
        for (incarnation, pause) in [(2, 500), (3, 2_000)] {
            _ = safari.handle(.backgroundStarted(incarnation: incarnation), now: 8)
            // A background that finishes something else does not answer the page.
            _ = safari.handle(.backgroundFinished(incarnation: incarnation, []), now: 8)
            #expect(safari.handle(.backgroundDied(incarnation: incarnation, stop: .killed), now: 8) == [.note(.asksAgainAfter(t1, milliseconds: pause))])
            #expect(safari.handle(.timeReached(.pageAsksAgain(t1)), now: 9) == [.note("tab t1's pause is over: it asks again"), asks(t1, url)])
            #expect(safari.tabs[t1]?.waitingSince == 9, "after deaths, the question asked after the pause gets a whole timeout")
        }
        _ = safari.handle(.backgroundStarted(incarnation: 4), now: 9)
        #expect(safari.handle(.backgroundDied(incarnation: 4, stop: .killed), now: 9) ==
                [.note(.stopsAsking(t1, emptyAnswers: 4))])
        #expect(safari.tabs[t1]?.emptyAnswersInARow == 4)
        #expect(safari.handle(.backgroundDied(incarnation: 4, stop: .killed), now: 9) == [], "a death told twice is one death")
        // Shown again, the page asks afresh, and Safari counts its empty answers from none.
        #expect(safari.handle(.tabActivated(t1), now: 10) == [.dispatch(.tabActivated(t1)), asks(t1, url)])
        #expect(safari.tabs[t1]?.emptyAnswersInARow == 0 && safari.tabs[t1]?.questionPending == true)
        _ = safari.handle(.backgroundStarted(incarnation: 5), now: 10)
        _ = safari.handle(.backgroundFinished(incarnation: 5, [.sendDecision(t1, decision(.light))]), now: 10)
        #expect(safari.tabs[t1]?.applied == decision(.light) && safari.tabs[t1]?.emptyAnswersInARow == 0)
        #expect(safari.tabs[t1]?.waitingSince == nil && safari.tabs[t1]?.script.waitingForAnswer == false)
    }

    /// A page whose question died with its background gets a whole timeout for the next one it
    /// asks, however it asks it: here afresh, as an update starts its content script again
    /// during the pause it took (a run the explorer found: seed 23748).
    @Test func theQuestionAfterADeathGetsAWholeTimeoutHoweverItIsAsked() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .killed), now: 0) == [.note(.asksAgain(t1)), asks(t1, url)])
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 0)
        #expect(safari.handle(.backgroundDied(incarnation: 2, stop: .killed), now: 0) == [.note(.asksAgainAfter(t1, milliseconds: 500))])
        _ = safari.handle(.extensionUpdated(), now: 100)
        #expect(safari.tabs[t1]?.waitingSince == 100 && safari.tabs[t1]?.asksAgainAt == nil && safari.tabs[t1]?.questionPending == true)
    }

    @Test func aContentScriptWithTheAsksOnceFlawLeavesThePageWaiting() {
        var safari = loaded()
        safari.contentScriptFlaws = [.contentScriptAsksOnce]
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .killed), now: 7) == [])
        #expect(safari.tabs[t1]?.waitingSince == 7, "the checks still time the page's wait")
        // It asked nothing of the next background: that one's death gives it no empty answer,
        // so the checks never excuse it.
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 8)
        _ = safari.handle(.backgroundDied(incarnation: 2, stop: .killed), now: 9)
        #expect(safari.tabs[t1]?.emptyAnswersInARow == 1 && safari.tabs[t1]?.waitingSince == 7)
    }

    @Test func theUnloadCheckFallsDue30SecondsAfterTheLastWakeAndARecentlyUsedPortPostponesIt() {
        var safari = loaded(.macOS, now: 10_000)
        #expect(safari.unloadTime == 40_000)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.connectNative]), now: 0)
        // Checks at 40, 70 and 100 s find the port used less than 120 s ago: each runs the
        // timer again 30 s later; the check at 130 s does not.
        for check: EpochMillis in [40_000, 70_000, 100_000] {
            #expect(safari.handle(.timeReached(.idleUnload), now: check) == [])
            #expect(safari.unloadTime == check + 30_000)
        }
        #expect(safari.handle(.timeReached(.idleUnload), now: 130_000) == [.killBackground(reason: "unloaded", stop: .unloaded)])
        #expect(SafariMachine(platform: .macOS).unloadTime == nil, "nothing to unload")
    }

    /// The app's message reaches a loaded background on macOS only through the native port it
    /// holds; otherwise the send fails, and on iOS there is no such message at all.
    @Test func theAppsMessageTravelsOnlyOnAnOpenNativePort() {
        var mac = loaded(.macOS, incarnation: 3)
        #expect(mac.handle(.appMessageSent(), now: 0) == [.appMessageNotConnected], "no port yet")
        _ = mac.handle(.backgroundFinished(incarnation: 3, [.connectNative]), now: 0)
        #expect(mac.handle(.appMessageSent(), now: 0) == [.queuePortMessage(incarnation: 3)])
        _ = mac.handle(.backgroundDied(incarnation: 3, stop: .unloaded), now: 1)
        #expect(mac.handle(.appMessageSent(), now: 2) == [.appMessageNotConnected], "the port went with its background")
        var ios = loaded(.iOS)
        _ = ios.handle(.backgroundFinished(incarnation: 1, [.connectNative]), now: 0)
        #expect(ios.handle(.appMessageSent(), now: 0) == [])
    }

    @Test func theOpenPopupsPortHoldsTheBackgroundTwoMinutesAfterItsLastPostAndClosesWithThePopup() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.eventDue(.popupOpened(t1)), now: 0)
        #expect(safari.loadedBackground?.ports == [.popup] && safari.loadedBackground?.lastPortActivity == 0, "the port opens when the background takes the popup's opening")
        #expect(safari.handle(.timeReached(.idleUnload), now: 30_000) == [] && safari.unloadTime == 60_000, "held by the port")
        // Posting the popup's view is the background's port activity; a decision is not.
        let view = PopupView(tab: t1, url: url, unsupported: false, scopes: [], selectedScope: nil, settings: nil, pausedUntil: nil)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.sendDecision(t1, decision(.light))]), now: 40_000)
        #expect(safari.loadedBackground?.lastPortActivity == 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.showPopup(view)]), now: 50_000)
        #expect(safari.loadedBackground?.lastPortActivity == 50_000)
        // The check at 150 s finds the post 100 s old; the one at 180 s finds it 130 s old.
        for check: EpochMillis in [60_000, 90_000, 120_000, 150_000] { _ = safari.handle(.timeReached(.idleUnload), now: check) }
        #expect(safari.unloadTime == 180_000)
        #expect(safari.handle(.timeReached(.idleUnload), now: 180_000) == [.killBackground(reason: "unloaded", stop: .unloaded)])
        // A check finds the port as it is then: one the popup closed after the last check holds nothing.
        var closing = loaded()
        _ = closing.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = closing.handle(.eventDue(.popupOpened(t1)), now: 0)
        _ = closing.handle(.timeReached(.idleUnload), now: 30_000)
        _ = closing.handle(.popupClosed, now: 31_000)
        #expect(closing.loadedBackground?.ports == [] && closing.unloadTime == 60_000, "the check at 30 s found the port open; the next is at 60 s")
        // A new background learns of the popup still open from its next message, which connects again.
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 180_000)
        #expect(safari.loaded == nil && safari.popupTab == t1)
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 190_000)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen(BackgroundListener.builtIn)]), now: 190_000)
        #expect(safari.handle(.eventDue(.popupPaused(until: 1)), now: 200_000) ==
                [.announcePopup(.popupOpened(t1), then: .popupPaused(until: 1)), .deliver(.popupPaused(until: 1))])
        #expect(safari.loadedBackground?.ports == [.popup] && safari.loadedBackground?.lastPortActivity == 200_000)
    }

    @Test func aRestartDropsAlarmsSessionStorageAndHeldEventsEveryPageAsksAndTheLaunchLoadsTheBackground() {
        var safari = loaded(.macOS)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: 1), now: 0)
        _ = safari.handle(.tabOpened(t2, url: url, nativeDark: false, window: 2), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 90_000)]), now: 0)
        _ = safari.handle(.backgroundFrozenByUser, now: 0)
        _ = safari.handle(.eventDue(.alarmFired(name: "")), now: 0)
        #expect(safari.handle(.safariQuit, now: 0) == [.killBackground(reason: "safari restart", stop: .unloaded)])
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 0) ==
                [.dispatchFirst([.alarmFired(name: "")]), .note(.asksAgain(t1)), asks(t1, url), .note(.asksAgain(t2)), asks(t2, url)])
        #expect(safari.handle(.safariLaunched, now: 0) ==
                [.dropSessionStorage, .note("alarms dropped: Safari keeps them in memory only"), asks(t1, url), asks(t2, url), .startBackground(.started(appearance: .light, tabs: [t1: url, t2: url], appMessages: true, reason: .startup))],
                "the death thawed the background, which handed back its wake-up events; the launch's load is for runtime.onStartup")
        #expect(safari.nextAlarm == nil && safari.lastStop == .unloaded)

        // On iOS with Safari away, what was held for the frozen background dies with Safari.
        var ios = loaded(.iOS)
        _ = ios.handle(.safariWentToBackground, now: 0)
        _ = ios.handle(.eventDue(.tabActivated(t1)), now: 0)
        _ = ios.handle(.safariQuit, now: 0)
        #expect(ios.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 0) == [], "still frozen: held, not handed back")
        #expect(ios.handle(.safariLaunched, now: 0) ==
                [.note("restart drops 1 events held for the frozen background"), .dropSessionStorage, .note("Safari comes to the front"),
                 .startBackground(.started(appearance: .light, tabs: [:], reason: .startup))])
    }

    @Test func noUnloadWhileWebInspectorIsAttachedAndTheFirstCheckAfterItClosesUnloads() {
        var safari = loaded(.iOS, now: 0)
        #expect(safari.handle(.inspectorOpened, now: 0) == [.note("Web Inspector attached to background#1: it is not unloaded while it is")])
        #expect(safari.handle(.timeReached(.idleUnload), now: 30_000) == [], "the check finds it inspected")
        #expect(safari.unloadTime == 60_000, "and runs again 30 s later")
        #expect(safari.handle(.inspectorClosed, now: 600_000) == [.note("Web Inspector closed")])
        #expect(safari.handle(.timeReached(.idleUnload), now: 600_000 + 1) == [.killBackground(reason: "unloaded", stop: .unloaded)],
                "the first check after it closed unloads")
        _ = safari.handle(.inspectorOpened, now: 700_000)
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .killed), now: 700_000)
        #expect(safari.loaded == nil && safari.lastStop == .killed)
        #expect(safari.handle(.inspectorOpened, now: 700_000) == [.note("no background is loaded: Web Inspector has nothing to attach to")])
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 700_000)
        #expect(safari.loadedBackground?.inspected == false, "it detached when its background went")
    }

    /// An install loads the background at once, its load firing runtime.onInstalled
    /// (`loadBackgroundWebViewDuringLoad`: an install is an event to fire); a later load is
    /// an ordinary one.
    @Test func anInstallLoadsTheBackgroundAtOnceForOnInstalled() {
        var safari = SafariMachine(platform: .macOS)
        #expect(safari.handle(.extensionInstalled, now: 0) == [.startBackground(.started(appearance: .light, tabs: [:], appMessages: true, reason: .install))])
        #expect(safari.startedEvent() == .started(appearance: .light, tabs: [:], appMessages: true), "the reason goes with the load that fired it")
    }

    @Test func anExtensionUpdateForgetsListenersAlarmsAndSessionStorageAndLoadsTheBackground() {
        var safari = loaded(.iOS, listeners: [.message])
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 90_000)]), now: 0)
        #expect(safari.handle(.extensionUpdating, now: 0) == [.killBackground(reason: "extension updated", stop: .unloaded)])
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 0)
        #expect(safari.handle(.extensionUpdated(), now: 0) ==
                [.note("alarms dropped: Safari keeps them in memory only"), .dropSessionStorage,
                 .note("extension updated from 1.0 to 1.1: storage.session, alarms and saved listeners cleared; the background loads for runtime.onInstalled"),
                 asks(t1, url), .startBackground(.started(appearance: .light, tabs: [t1: url], reason: .update, version: "1.1", previousVersion: "1.0"))])
        #expect(safari.savedListeners.isEmpty && safari.nextAlarm == nil && safari.startReason == nil, "the reason goes with the load")
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 0)
        #expect(safari.handle(.eventDue(.tabActivated(t1)), now: 0) == [.note("tabActivated lost: background#2 has no tabActivated listener")],
                "until the new background registers its listeners, events reach it and are lost")
        // The version an update names stays with every later load; only the update's load says
        // which version it replaced.
        _ = safari.handle(.extensionUpdating, now: 1)
        _ = safari.handle(.backgroundDied(incarnation: 2, stop: .unloaded), now: 1)
        #expect(safari.handle(.extensionUpdated(version: "3.0"), now: 1).last ==
                .startBackground(.started(appearance: .light, tabs: [t1: url], reason: .update, version: "3.0", previousVersion: "1.1")))
        #expect(safari.startedEvent() == .started(appearance: .light, tabs: [t1: url], version: "3.0"))
    }

    /// A load that takes time (`background-load-time`): the background's scripts run at its end;
    /// meanwhile an event of a type Safari holds the extension listens for waits for it, and one
    /// of another type is fired at once to no listener and lost (after an update Safari holds
    /// none); a quit during the load cuts it short.
    @Test func eventsDuringALoadWaitForItsEndWhenSafariHoldsTheirTypeAndAreLostOtherwise() {
        var safari = loaded(.macOS, listeners: [.message])
        safari.backgroundLoadTime = 250
        _ = safari.handle(.backgroundUnloadRequested, now: 0)
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 0)
        let question = ExtensionWire.Event.tabRequestedDecision(t1, url: url, nativeDark: false)
        #expect(safari.handle(.eventDue(question), now: 10) == [.note("Safari loads the background: its scripts run in 250ms")])
        #expect(safari.loadEnds == 260 && safari.loaded == nil && safari.lastStop == .unloaded)
        #expect(safari.handle(.eventDue(.appearanceChanged(.dark)), now: 20) == [.note("appearanceChanged waits for the background's load to end")])
        #expect(safari.handle(.eventDue(.tabActivated(t1)), now: 20) == [.note("tabActivated lost: the loading background has no tabActivated listener yet")])
        #expect(safari.handle(.timeReached(.backgroundLoad), now: 260) ==
                [.startBackground(.started(appearance: .light, tabs: [:], appMessages: true)), .redispatch(question), .redispatch(.appearanceChanged(.dark))])
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 260)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen([.message])]), now: 260)
        #expect(safari.handle(.extensionUpdating, now: 300) == [.killBackground(reason: "extension updated", stop: .unloaded)])
        _ = safari.handle(.backgroundDied(incarnation: 2, stop: .unloaded), now: 300)
        #expect(safari.handle(.extensionUpdated(), now: 300).last == .note("Safari loads the background: its scripts run in 250ms"))
        #expect(safari.handle(.eventDue(.appearanceChanged(.light)), now: 310) == [.note("appearanceChanged lost: the loading background has no message listener yet")],
                "after an update Safari holds no listener until the new scripts register theirs")
        _ = safari.handle(.safariQuit, now: 320)
        _ = safari.handle(.safariLaunched, now: 330)
        #expect(safari.loadEnds == 580, "a launch begins a load of its own")
        #expect(safari.handle(.timeReached(.backgroundLoad), now: 580) == [.startBackground(.started(appearance: .light, tabs: [:], appMessages: true, reason: .startup, version: "1.1"))])
    }

    @Test func aDeviceSleepMovesEveryMonotonicDeadlineLaterByTheSleep() {
        var safari = loaded(.macOS, now: 0)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.connectNative, .setAlarm(at: 600_000)]), now: 0)
        #expect(safari.unloadTime == 30_000 && safari.tabs[t1]?.waitingSince == 0)
        #expect(safari.handle(.deviceSlept(28_800_000), now: 0) == [.dispatch(.alarmsChanged(alarms: ["": ExtensionWire.Alarm(at: 29_400_000)]))],
                "the loaded background hears its alarm moved")
        #expect(safari.unloadTime == 28_830_000, "the unload timer is monotonic")
        #expect(safari.handle(.timeReached(.idleUnload), now: 28_830_000) == [], "and so is the port's last use: 30 s before, it holds")
        #expect(safari.nextAlarm?.at == 29_400_000, "the alarm fires as late as the sleep was long")
        #expect(safari.tabs[t1]?.waitingSince == 28_800_000, "a page's wait leaves the sleep out")
    }

    // MARK: - Tabs, windows and profiles

    @Test func onIOSOnlyTheFrontTabIsVisibleAndEveryTabIsInOneWindow() {
        var safari = SafariMachine(platform: .iOS)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: 3), now: 0)
        _ = safari.handle(.tabOpened(t2, url: url, nativeDark: false, window: 2), now: 0)
        #expect(safari.visibleTabs == [t2] && safari.tabs[t1]?.window == 1)
        #expect(safari.handle(.tabActivated(t1), now: 0) == [.dispatch(.tabActivated(t1)), asks(t1, url)])
        #expect(safari.visibleTabs == [t1])
    }

    @Test func onMacOSTheActiveTabOfEveryWindowIsVisibleAndAClosedOnesWindowShowsAnother() {
        var safari = SafariMachine(platform: .macOS)
        let t3 = TabID("t3")
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: 1), now: 0)
        _ = safari.handle(.tabOpened(t2, url: url, nativeDark: false, window: 2), now: 0)
        _ = safari.handle(.tabOpened(t3, url: url, nativeDark: false, window: 2), now: 0)
        #expect(safari.visibleTabs == [t1, t3])
        #expect(safari.handle(.tabClosed(t3), now: 0) == [.note("tab t3 closed"), .dispatch(.tabClosed(t3))])
        #expect(safari.visibleTabs == [t1, t2])
    }

    @Test func aProfileSwitchPutsTabsPopupAndAlarmsAwayAndBringsTheOthersBack() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.setAlarm(at: 90_000)]), now: 0)
        #expect(safari.handle(.profileLeftFront, now: 0) == [.killBackground(reason: "profile default left the front", stop: .unloaded)])
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 0)
        #expect(safari.handle(.profileCameToFront("work"), now: 0) == [.note("profile work in front")])
        #expect(safari.tabs.isEmpty && safari.popupTab == nil && safari.nextAlarm == nil && safari.profiles == ["default", "work"])
        #expect(safari.handle(.profileCameToFront("default"), now: 0) == [.note("profile default in front"), asks(t1, url)])
        #expect(safari.nextAlarm?.at == 90_000)
    }

    @Test func theFirstDecisionSinceALoadIsKeptWithTheRepliesBeforeIt() {
        var safari = loaded()
        _ = safari.handle(.replyArrived(.init(incarnation: 1, request: 1), .unreadable(.null)), now: 0)
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.replyArrived(.init(incarnation: 1, request: 2), .unreadable(.null)), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.sendDecision(t1, decision(.light))]), now: 10)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.sendDecision(t1, decision(.dark))]), now: 20)
        #expect(safari.tabs[t1]?.firstDecision == decision(.light) && safari.tabs[t1]?.firstDecisionAt == 10)
        #expect(safari.tabs[t1]?.nativeRepliesBeforeFirstDecision == 1 && safari.tabs[t1]?.applied == decision(.dark))
        #expect(decision(.light) != decision(.dark))
        #expect(safari.handle(.tabReloaded(t1), now: 30) == [.note("tab t1 loads \(url)"), asks(t1, url)])
        #expect(safari.tabs[t1]?.applied == nil && safari.tabs[t1]?.firstDecision == nil)
    }
}
