@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Safari's rules for an extension's own pages (`runsOwnPages`): which pages load, show and
/// hide, and how their messages reach the background and come back, with no process started.
struct OwnPagesTests {
    private let t1 = TabID("t1"), t2 = TabID("t2")
    /// Their pages, in the default profile.
    private let p1 = PageKey(TabID("t1")), p2 = PageKey(TabID("t2"))
    private let url = "https://a.example/", other = "https://b.example/"
    private let getEnabled = JSONValue.object(["type": .string("getEnabled")])

    /// A machine running the extension's own pages, with a loaded background `incarnation` that
    /// registered `listeners`.
    private func loaded(_ platform: Simulation.Platform = .iOS, listeners: [BackgroundListener] = [.message]) -> SafariMachine {
        var safari = SafariMachine(platform: platform)
        safari.runsOwnPages = true
        _ = safari.handle(.backgroundStarted(incarnation: 1), now: 0)
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.listen(listeners)]), now: 0)
        return safari
    }

    /// Storage changes go both ways: a page's reaches the background as `storage.onChanged`,
    /// which wakes it when it listens (and only then); the background's reaches the pages of its
    /// profile, where they run.
    /// A port whose page went before it reached the background connects to nothing; its
    /// `runtime.connect` still starts the unload timer again when a background of the session
    /// listened for ports and the loaded one does not yet, as any such event does.
    @Test func aPortWhosePageIsGoneConnectsToNothingAndStillWakesLikeAnyEventOfItsType() {
        var safari = loaded(listeners: [.message])
        let port = ExtensionWire.Event.portOpened(port: 5, name: "", from: .popup)
        #expect(safari.handle(.eventDue(port), now: 10_000) == [.note("port 5's page is gone: it connects to nothing")])
        #expect(safari.unloadTime == 30_000, "no background of the session listened for ports")
        safari.sessionListeners["default"] = [.connect]
        _ = safari.handle(.eventDue(port), now: 10_000)
        #expect(safari.unloadTime == 40_000)
    }

    @Test func aStorageChangeReachesTheOtherSideAndWakesAListeningBackground() {
        let changes = JSONValue.object(["color": .object(["newValue": .string("green")])])
        var safari = loaded(listeners: [.storageChanged])
        #expect(safari.handle(.pageStorageChanged(area: "sync", changes: changes), now: 0) == [.dispatch(.storageChanged(area: "sync", changes: changes))])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.storageChanged(area: "local", changes: changes)]), now: 0) ==
                [.pagesStorageChanged(area: "local", changes: changes, profile: SafariMachine.defaultProfile)])
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 40_000)
        #expect(safari.handle(.eventDue(.storageChanged(area: "sync", changes: changes)), now: 50_000).contains { if case .startBackground = $0 { true } else { false } },
                "a background that listens is woken for it")
        var deaf = loaded(listeners: [.message])
        _ = deaf.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 40_000)
        #expect(deaf.handle(.eventDue(.storageChanged(area: "sync", changes: changes)), now: 50_000) ==
                [.note("storageChanged wakes nothing: the background does not listen for storageChanged")])
        // The built-in design runs no pages of the extension's own: nothing goes to them.
        var design = SafariMachine(platform: .iOS)
        _ = design.handle(.backgroundStarted(incarnation: 1), now: 0)
        #expect(design.handle(.backgroundFinished(incarnation: 1, [.storageChanged(area: "local", changes: changes)]), now: 0) == [])
    }

    /// A tab's events reach only a background that listens: opening gives tabs.onCreated and
    /// onUpdated (loading with its address, then complete); a reload's loading names no address.
    @Test func tabEventsAreFiredOnlyToABackgroundThatListens() {
        func events(_ effects: [SafariMachine.Effect]) -> [ExtensionWire.Event] { effects.compactMap { if case .dispatch(let event) = $0 { event } else { nil } } }
        var deaf = loaded(listeners: [.message])
        #expect(events(deaf.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)).isEmpty)
        var listening = loaded(listeners: [.tabCreated, .tabUpdated])
        #expect(events(listening.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)) ==
                [.tabCreated(t1, url: url), .tabUpdated(t1, url: url, status: .loading, urlChanged: true), .tabUpdated(t1, url: url, status: .complete)])
        #expect(events(listening.handle(.tabReloaded(t1), now: 1)) ==
                [.tabUpdated(t1, url: url, status: .loading), .tabUpdated(t1, url: url, status: .complete)])
        #expect(events(listening.handle(.tabNavigated(t1, url: other), now: 2)) ==
                [.tabUpdated(t1, url: other, status: .loading, urlChanged: true), .tabUpdated(t1, url: other, status: .complete)])
        // Unloaded, the set saved at its last load decides, and the event wakes it.
        _ = listening.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 40_000)
        #expect(events(listening.handle(.tabReloaded(t1), now: 50_000)).count == 2)
    }

    @Test func aTabLoadsItsOwnPageAndAsksNothingOfTheBackgroundItself() {
        var safari = loaded()
        #expect(safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0) ==
                [.note("tab t1 opened in profile default, window 1: \(url)"), .loadPage(p1, url: url, visible: true)])
        // Another tab in front hides the first and shows itself; its activation is an event.
        #expect(safari.handle(.tabOpened(t2, url: other, nativeDark: false, window: nil), now: 0) ==
                [.note("tab t2 opened in profile default, window 1: \(other)"), .loadPage(p2, url: other, visible: true), .showPage(p1, visible: false)])
        #expect(safari.handle(.tabActivated(t1), now: 1) == [.dispatch(.tabActivated(t1)), .showPage(p2, visible: false), .showPage(p1, visible: true)])
        // iOS Safari leaving the front hides its page; coming back shows it.
        #expect(safari.handle(.safariWentToBackground, now: 2).contains(.showPage(p1, visible: false)))
        // On its return the overdue timers fire first (the shell carries the effects out in order).
        #expect(safari.handle(.safariCameToForeground, now: 3) == [.note("Safari comes to the front"), .fireOverdueTimers, .showPage(p1, visible: true)])
        #expect(!safari.handle(.overdueTimersFired, now: 3).contains(.showPage(p1, visible: true)), "shown once")
        #expect(safari.handle(.tabReloaded(t1), now: 4) == [.note("tab t1 loads \(url)"), .loadPage(p1, url: url, visible: true)])
        #expect(safari.handle(.tabClosed(t1), now: 5) == [.note("tab t1 closed"), .closePage(p1), .dispatch(.tabClosed(t1)), .showPage(p2, visible: true)])
        // A profile that leaves the front hides its pages; they show again when it returns.
        #expect(safari.handle(.profileCameToFront("work"), now: 6).contains(.showPage(p2, visible: false)))
        // Its own tab of the same name is another page: the page host names it with its profile.
        let workT2 = PageKey(t2, profile: "work")
        #expect(safari.handle(.tabOpened(t2, url: url, nativeDark: false, window: nil), now: 6).contains(.loadPage(workT2, url: url, visible: true)))
        #expect(PageKey(name: "work/t2") == workT2 && workT2.name == "work/t2" && PageKey(name: "t2") == p2 && p2.name == "t2")
        // A page of the profile put away waits, its timers too; the popup's and the front's run.
        let work1 = PageLoad(.tab(workT2), number: 1), front3 = PageLoad(.tab(p2), number: 3), popup2 = PageLoad(.popup, number: 2)
        #expect(PageLoad(name: "tab work/t2#1") == work1 && PageLoad(name: "popup#2") == popup2 && front3.name == "tab t2#3")
        #expect(safari.pageRuns(work1) && !safari.pageRuns(front3) && safari.pageRuns(popup2))
        let back = safari.handle(.profileCameToFront(SafariMachine.defaultProfile), now: 7)
        #expect(!safari.pageRuns(work1) && safari.pageRuns(front3))
        #expect(back.contains(.showPage(p2, visible: true)) && back.contains(.showPage(workT2, visible: false)), "\(back)")
    }

    @Test func aPagesMessageWakesTheBackgroundAndItsAnswerGoesBack() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let message = ExtensionWire.Event.pageMessage(id: 4, from: .tab(t1, url: url), message: getEnabled, active: t1)
        #expect(safari.handle(.pageMessageSent(id: 4, from: .tab(t1, url: url), message: getEnabled), now: 1) == [.dispatch(message)])
        #expect(safari.handle(.eventDue(message), now: 1) == [.deliver(message)])
        #expect(safari.unloadTime == 30_001, "a page's message wakes the background")
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.answerPage(id: 4, answer: .bool(true))]), now: 1) ==
                [.answerPage(id: 4, answer: .bool(true))])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.answerPage(id: 4, answer: .bool(false))]), now: 1) ==
                [.note("background#1 answered page message 4, which waits for no answer")], "a page is answered once")
    }

    /// A page's port (`runtime.connect`): `runtime.onConnect` wakes the background and it takes
    /// the port, which holds it while it used a port less than 2 minutes before; a message or a
    /// close reaches only the incarnation that took it; the background's death disconnects it at
    /// the page's end, and the page going closes it at the background's.
    @Test func aPagesPortReachesTheIncarnationThatTookItAndHoldsItWhileItUsesIt() {
        var safari = loaded(listeners: [.connect])
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let opened = ExtensionWire.Event.portOpened(port: 1, name: "page", from: .tab(t1, url: url))
        #expect(safari.handle(.pagePortOpened(port: 1, name: "page", from: .tab(t1, url: url)), now: 0) == [.dispatch(opened)])
        #expect(safari.handle(.eventDue(opened), now: 0) == [.deliver(opened)])
        #expect(safari.loadedBackground?.ports == [.page(1)] && safari.pagePorts[1]?.takenBy == 1)
        let ping = ExtensionWire.Event.portMessage(port: 1, message: .string("ping"))
        #expect(safari.handle(.eventDue(ping), now: 10) == [.deliver(ping)])
        #expect(safari.unloadTime == 30_000, "a message on a port is no wake")
        // The background's post is its port activity: it is held 2 minutes after it.
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.postOnPort(port: 1, message: .string("pong"))]), now: 60_000) ==
                [.messageOnPagePort(.tab(p1), port: 1, message: .string("pong"))])
        #expect(safari.isHeld(now: 179_999) && !safari.isHeld(now: 180_000))
        #expect(safari.handle(.backgroundFinished(incarnation: 2, [.postOnPort(port: 1, message: .null)]), now: 60_000) ==
                [.note("background#2 posted on port 1, which it does not hold")])
        // The background dies: the page's end is disconnected, and what the page still sends is
        // for no background.
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 180_000)
                    .contains(.pagePortDisconnected(.tab(p1), port: 1, error: nil)))
        #expect(safari.pagePorts.isEmpty && safari.loaded == nil)
        #expect(safari.handle(.eventDue(.portClosed(port: 1)), now: 180_000) == [.note("port 1 is open to no background: portClosed dropped")])

        // A port the page closes, or loses with its page, is closed at the background's end.
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 200_000)
        _ = safari.handle(.backgroundFinished(incarnation: 2, [.listen([.connect])]), now: 200_000)
        let second = ExtensionWire.Event.portOpened(port: 2, name: "", from: .tab(t1, url: url))
        _ = safari.handle(.pagePortOpened(port: 2, name: "", from: .tab(t1, url: url)), now: 200_000)
        _ = safari.handle(.eventDue(second), now: 200_000)
        #expect(safari.handle(.tabReloaded(t1), now: 200_001).contains(.dispatch(.portClosed(port: 2))))
        #expect(safari.handle(.eventDue(.portClosed(port: 2)), now: 200_001) == [.deliver(.portClosed(port: 2))])
        #expect(safari.pagePorts.isEmpty && safari.loadedBackground?.ports == [])
    }

    /// A port no `runtime.onConnect` listener takes is disconnected at once, saying why, as
    /// WebKit's `runtimeConnect` answers it.
    @Test func aPortNoListenerTakesIsDisconnectedSayingWhy() {
        var safari = loaded(listeners: [.message])
        let opened = ExtensionWire.Event.portOpened(port: 3, name: "", from: .popup)
        _ = safari.handle(.pagePortOpened(port: 3, name: "", from: .popup), now: 0)
        #expect(safari.handle(.eventDue(opened), now: 0) == [
            .note("portOpened lost: background#1 has no connect listener"),
            .pagePortDisconnected(.popup, port: 3, error: SafariMachine.noConnectListener),
        ])
        #expect(safari.pagePorts.isEmpty)
    }

    /// A port the background opens to a tab (`tabs.connect`, WebKit's `tabsConnect`): Safari
    /// numbers the page's end below 0 and hands it to the tab's page; the background's own
    /// number travels both ways between it and Safari; opening it is port activity, which holds
    /// the background 2 minutes; a page with no `runtime.onConnect` listener closes it saying
    /// why, and a tab that is not open fails it without adding a port.
    @Test func aPortTheBackgroundOpensToATabTravelsByItsOwnNumberAndHoldsIt() {
        var safari = loaded(listeners: [.message])
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.tabOpened(t2, url: other, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.connectTab(port: -1, tab: t1, name: "words")]), now: 10_000) ==
                [.connectPage(p1, port: -1, name: "words", number: -1)])
        #expect(safari.loadedBackground?.ports == [.page(-1)])
        #expect(safari.isHeld(now: 129_999) && !safari.isHeld(now: 130_000), "opening it is port activity")
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.postOnPort(port: -1, message: .string("count"))]), now: 10_000) ==
                [.messageOnPagePort(.tab(p1), port: -1, message: .string("count"))])
        // The page's answer reaches the background by the background's number.
        _ = safari.handle(.pagePortPosted(port: -1, message: .integer(13)), now: 10_001)
        #expect(safari.handle(.eventDue(.portMessage(port: -1, message: .integer(13))), now: 10_001) == [.deliver(.portMessage(port: -1, message: .integer(13)))])

        // A second port, to a page with no listener: closed at the background's end with why.
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.connectTab(port: -2, tab: t2, name: "")]), now: 20_000) ==
                [.connectPage(p2, port: -2, name: "", number: -2)])
        #expect(safari.handle(.pagePortClosed(port: -2, unheard: true), now: 20_000) ==
                [.dispatch(.portClosed(port: -2, error: SafariMachine.noTabConnectListener))])
        #expect(safari.handle(.eventDue(.portClosed(port: -2, error: SafariMachine.noTabConnectListener)), now: 20_000) ==
                [.deliver(.portClosed(port: -2, error: SafariMachine.noTabConnectListener))])
        #expect(safari.loadedBackground?.ports == [.page(-1)])

        // A tab that is not open: no port is added, and no activity counts.
        let closedBefore = safari.loadedBackground?.lastPortActivity
        let missing = safari.handle(.backgroundFinished(incarnation: 1, [.connectTab(port: -3, tab: TabID("t9"), name: ""),
                                                                         .postOnPort(port: -3, message: .null)]), now: 30_000)
        #expect(missing == [.note("tab t9 is not open: background#1's port -3 connects to nothing"),
                            .dispatch(.portClosed(port: -3, error: SafariMachine.noTabToConnect)),
                            .note("background#1 posted on port -3, which it does not hold")], "a post on it is no port activity and goes nowhere")
        #expect(safari.handle(.eventDue(.portClosed(port: -3, error: SafariMachine.noTabToConnect)), now: 30_000) ==
                [.deliver(.portClosed(port: -3, error: SafariMachine.noTabToConnect))])
        #expect(safari.loadedBackground?.ports == [.page(-1)] && safari.loadedBackground?.lastPortActivity == closedBefore)

        // The background closes its end: the page hears it by the page's number.
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.closePort(port: -1)]), now: 40_000) ==
                [.pagePortDisconnected(.tab(p1), port: -1, error: nil)])
        #expect(safari.pagePorts.isEmpty && safari.loadedBackground?.ports == [])

        // A new incarnation numbers its ports from -1 again; Safari's number for the page's end
        // goes on, and the old incarnation's number means nothing to it.
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 50_000)
        _ = safari.handle(.backgroundStarted(incarnation: 2), now: 60_000)
        #expect(safari.handle(.backgroundFinished(incarnation: 2, [.connectTab(port: -1, tab: t1, name: "")]), now: 60_000) ==
                [.connectPage(p1, port: -4, name: "", number: -1)])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.postOnPort(port: -1, message: .null)]), now: 60_000) ==
                [.note("background#1 posted on port -1, which it does not hold")])
        // The tab's page goes: the background hears its port close, by its own number.
        #expect(safari.handle(.tabClosed(t1), now: 70_000).contains(.dispatch(.portClosed(port: -4))))
        #expect(safari.handle(.eventDue(.portClosed(port: -4)), now: 70_000) == [.deliver(.portClosed(port: -1))])

        // Where the extension's pages do not run, nothing can take it: it fails as unheard, and
        // Safari added no port a post could be activity on.
        var bare = SafariMachine(platform: .iOS)
        _ = bare.handle(.backgroundStarted(incarnation: 1), now: 0)
        _ = bare.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(bare.handle(.backgroundFinished(incarnation: 1, [.connectTab(port: -1, tab: t1, name: ""), .postOnPort(port: -1, message: .null)]), now: 5_000) ==
                [.note("tab t1's page has no script of the extension here: port -1 connects to nothing"),
                 .dispatch(.portClosed(port: -1, error: SafariMachine.noTabConnectListener)),
                 .note("background#1 posted on port -1, which it does not hold")])
        #expect(bare.loadedBackground?.ports == [] && bare.loadedBackground?.lastPortActivity == 0)
    }

    @Test func aMessageNoBackgroundTakesIsAnsweredWithNothing() {
        // The loaded background has no message listener: the message is lost, and Safari answers it.
        var safari = loaded(listeners: [.tabActivated])
        let popupMessage = ExtensionWire.Event.pageMessage(id: 1, from: .popup, message: getEnabled)
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.pageMessageSent(id: 1, from: .popup, message: getEnabled), now: 0)
        #expect(safari.handle(.eventDue(popupMessage), now: 0) ==
                [.note("pageMessage lost: background#1 has no message listener"), .answerPage(id: 1, answer: nil)])
        // Unloaded, it is not woken for what it does not listen for.
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 1)
        _ = safari.handle(.pageMessageSent(id: 2, from: .popup, message: getEnabled), now: 2)
        #expect(safari.handle(.eventDue(.pageMessage(id: 2, from: .popup, message: getEnabled)), now: 2) ==
                [.note("pageMessage wakes nothing: the background does not listen for message"), .answerPage(id: 2, answer: nil)])
    }

    @Test func aMessageWhoseBackgroundDidNotStartIsAnsweredWithNothing() {
        var safari = SafariMachine(platform: .iOS)
        safari.runsOwnPages = true
        let message = ExtensionWire.Event.pageMessage(id: 1, from: .popup, message: getEnabled)
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.pageMessageSent(id: 1, from: .popup, message: getEnabled), now: 0)
        #expect(safari.handle(.eventDue(message), now: 0) == [.startBackground(.started(appearance: .light, tabs: [:])), .redispatch(message)])
        // The start was cut short (a crash while it loaded): the event it was for is dropped.
        #expect(safari.handle(.eventDropped(message), now: 0) == [.answerPage(id: 1, answer: nil)])
        #expect(safari.pageQuestions.isEmpty)
    }

    @Test func aBackgroundThatDiesBeforeAnsweringLeavesSafariToAnswerWithNothing() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let message = ExtensionWire.Event.pageMessage(id: 7, from: .tab(t1, url: url), message: getEnabled, active: t1)
        _ = safari.handle(.pageMessageSent(id: 7, from: .tab(t1, url: url), message: getEnabled), now: 0)
        _ = safari.handle(.eventDue(message), now: 0)
        // A message still queued when the background died is not its to answer: it wakes the next.
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.pageMessageSent(id: 8, from: .popup, message: getEnabled), now: 0)
        #expect(safari.handle(.backgroundDied(incarnation: 1, stop: .unloaded), now: 3) ==
                [.note("page message 7 answered with nothing: background#1 is gone"), .answerPage(id: 7, answer: nil)])
        #expect(safari.pageQuestions[8] != nil && safari.pageQuestions[7] == nil)
        // A page that goes takes its own messages with it: nothing waits for their answer.
        _ = safari.handle(.pageMessageSent(id: 9, from: .tab(t1, url: url), message: getEnabled), now: 4)
        _ = safari.handle(.tabReloaded(t1), now: 4)
        #expect(safari.pageQuestions[9] == nil && safari.pageQuestions[8] != nil)
        _ = safari.handle(.popupOpened(t1), now: 5)
        #expect(safari.pageQuestions[8] == nil, "a popup opened afresh is a new page")
    }

    @Test func theBackgroundsMessageToATabIsNumberedAndItsAnswerGoesToThatIncarnation() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let toggle = JSONValue.object(["type": .string("toggleEnabled")])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.messageTab(t1, id: 3, message: toggle)]), now: 0) == [.messagePage(.tab(p1), id: 1, message: toggle)])
        #expect(safari.handle(.pageAnswerSent(id: 1, answer: .bool(true)), now: 0) == [.answerBackground(incarnation: 1, id: 3, answer: .bool(true))])
        #expect(safari.handle(.pageAnswerSent(id: 1, answer: .bool(true)), now: 0) == [], "an answer is taken once")
        // A tab that is not open has no page to hear it: the background gets nothing back.
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.messageTab(t2, id: 4, message: toggle)]), now: 0) ==
                [.note("tab t2 has no page of the extension here: nothing hears the message"), .answerBackground(incarnation: 1, id: 4, answer: nil, unreachable: true)])
        // The popup hears the background's runtime.sendMessage while it is open.
        let refresh = JSONValue.object(["type": .string("refresh")])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.messagePopup(id: 6, message: refresh)]), now: 0) ==
                [.note("no page of the extension's own is open: nothing hears the message"), .answerBackground(incarnation: 1, id: 6, answer: nil, unreachable: true)])
        _ = safari.handle(.popupOpened(t1), now: 0)
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.messagePopup(id: 7, message: refresh)]), now: 0) == [.messagePage(.popup, id: 2, message: refresh)])
        #expect(safari.handle(.pageAnswerSent(id: 2, answer: nil, unreachable: true), now: 0) == [.answerBackground(incarnation: 1, id: 7, answer: nil, unreachable: true)])
        // A page that goes before it answers is answered for with nothing.
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.messageTab(t1, id: 8, message: toggle)]), now: 0)
        // (The open popup hears the tab load, as tabs.onUpdated and webNavigation's stages: its
        // end once the new page is there.)
        let profile = safari.profile
        #expect(safari.handle(.tabReloaded(t1), now: 0) ==
                [.note("tab t1 loads \(url)"), .pagesTabEvent(.navigated(t1, url: url, stage: .beforeNavigate), window: 1, profile: profile),
                 .pagesTabEvent(.tabUpdated(t1, url: url, status: .loading), window: 1, profile: profile),
                 .note("tab t1 went before it answered message 3: it is answered with nothing"),
                 .answerBackground(incarnation: 1, id: 8, answer: nil), .loadPage(p1, url: url, visible: true),
                 .pagesTabEvent(.navigated(t1, url: url, stage: .committed), window: 1, profile: profile),
                 .pagesTabEvent(.navigated(t1, url: url, stage: .domContentLoaded), window: 1, profile: profile),
                 .pagesTabEvent(.navigated(t1, url: url, stage: .completed), window: 1, profile: profile),
                 .pagesTabEvent(.tabUpdated(t1, url: url, status: .complete), window: 1, profile: profile)])
        // An answer for a background that died since goes nowhere.
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.messageTab(t1, id: 5, message: toggle)]), now: 0)
        _ = safari.handle(.backgroundDied(incarnation: 1, stop: .killed), now: 1)
        #expect(safari.handle(.pageAnswerSent(id: 4, answer: nil), now: 2) == [])
    }

    /// The background's runtime.sendMessage reaches every page of the extension's own: the
    /// popup and each tab that shows one of its pages (an options page). The first answer is
    /// the background's; when every copy comes back with nothing, the background's answer is
    /// nothing if a page heard it, and unreachable if none did; a page that goes counts as
    /// answered with nothing.
    @Test func theBackgroundsMessageReachesEveryExtensionPageAndTheFirstAnswerIsTheOne() {
        var safari = loaded()
        let options = "safari-web-extension://extension/options.html", po = PageKey(TabID("o"))
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.tabOpened(TabID("o"), url: options, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.popupOpened(t1), now: 0)
        let refresh = JSONValue.object(["type": .string("refresh")])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.messagePopup(id: 1, message: refresh)]), now: 0)
            == [.messagePage(.popup, id: 1, message: refresh), .messagePage(.tab(po), id: 2, message: refresh)])
        #expect(safari.handle(.pageAnswerSent(id: 1, answer: nil, unreachable: true), now: 0) == [], "the options page may still answer")
        #expect(safari.handle(.pageAnswerSent(id: 2, answer: .string("done")), now: 0) == [.answerBackground(incarnation: 1, id: 1, answer: .string("done"))])
        // The first answer ends it: a later one goes nowhere.
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.messagePopup(id: 2, message: refresh)]), now: 0)
        #expect(safari.handle(.pageAnswerSent(id: 3, answer: .bool(true)), now: 0) == [.answerBackground(incarnation: 1, id: 2, answer: .bool(true))])
        #expect(safari.handle(.pageAnswerSent(id: 4, answer: .bool(false)), now: 0) == [])
        // Nothing from every copy: nothing if a page heard it, unreachable if none did.
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.messagePopup(id: 3, message: refresh), .messagePopup(id: 4, message: refresh)]), now: 0)
        #expect(safari.handle(.pageAnswerSent(id: 5, answer: nil, unreachable: true), now: 0) == [])
        #expect(safari.handle(.pageAnswerSent(id: 6, answer: nil), now: 0) == [.answerBackground(incarnation: 1, id: 3, answer: nil)])
        #expect(safari.handle(.pageAnswerSent(id: 7, answer: nil, unreachable: true), now: 0) == [])
        #expect(safari.handle(.pageAnswerSent(id: 8, answer: nil, unreachable: true), now: 0) == [.answerBackground(incarnation: 1, id: 4, answer: nil, unreachable: true)])
        // A page that goes is answered for with nothing; the other's answer is then the one.
        _ = safari.handle(.backgroundFinished(incarnation: 1, [.messagePopup(id: 5, message: refresh)]), now: 0)
        #expect(safari.handle(.tabClosed(TabID("o")), now: 0).contains(.note("tab o went before it answered message 10: it is answered with nothing")))
        #expect(safari.handle(.pageAnswerSent(id: 9, answer: .integer(1)), now: 0) == [.answerBackground(incarnation: 1, id: 5, answer: .integer(1))])
        #expect(safari.messagesToPages.isEmpty && safari.messageGroups.isEmpty)
    }

    /// An extension page's tabs.sendMessage reaches the tab's page, and its answer the page that
    /// asked, by that page's own number; a tab with no page, or a page that goes, answers nothing.
    @Test func anExtensionPagesMessageToATabIsAnsweredToThatPage() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let ask = JSONValue.object(["type": .string("size?")])
        #expect(safari.handle(.pageMessagedTab(id: 9, to: t1, message: ask), now: 0) == [.messagePage(.tab(p1), id: 1, message: ask)])
        #expect(safari.handle(.pageAnswerSent(id: 1, answer: .string("large")), now: 0) == [.answerPage(id: 9, answer: .string("large"))])
        #expect(safari.handle(.pageMessagedTab(id: 10, to: t2, message: ask), now: 0)
            == [.note("tab t2 has no page of the extension here: nothing hears the page's message"), .answerPage(id: 10, answer: nil)])
        _ = safari.handle(.pageMessagedTab(id: 11, to: t1, message: ask), now: 0)
        #expect(safari.handle(.tabClosed(t1), now: 0).contains(.answerPage(id: 11, answer: nil)))
        #expect(safari.pageMessagesToTabs.isEmpty)
    }

    @Test func thePopupAndTheAppearanceGoToThePagesNotTheBackground() {
        var safari = loaded()
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        #expect(safari.handle(.popupOpened(t1), now: 0) == [.openPopupPage(t1)])
        #expect(safari.handle(.popupUsed(.click("toggle")), now: 0) == [.useInPage(.popup, .click("toggle"))])
        #expect(safari.handle(.appearanceChanged(.dark), now: 0) == [.pagesAppearance(.dark)])
        #expect(safari.handle(.popupClosed, now: 0) == [.closePopupPage(hides: true)])
        // What it sends as it closes (pagehide) leaves, and nothing waits for the answer.
        #expect(safari.handle(.pageMessageSent(id: 4, from: .popup, message: getEnabled), now: 0) ==
                [.dispatch(.pageMessage(id: 4, from: .popup, message: getEnabled, active: t1))])
        #expect(safari.pageQuestions[4] == nil)
        // Another profile in front takes the popup away, with what it waited for.
        _ = safari.handle(.popupOpened(t1), now: 0)
        _ = safari.handle(.pageMessageSent(id: 5, from: .popup, message: getEnabled), now: 0)
        #expect(safari.handle(.profileCameToFront("work"), now: 0).contains(.closePopupPage(hides: false)))
        #expect(safari.pageQuestions[5] == nil)
        #expect(safari.handle(.popupUsed(.click("toggle")), now: 0) == [.note("no popup is open: nothing to click")])
    }

    /// The extension's grants changing fire `permissions.onAdded` or `onRemoved` for the
    /// background and the pages, permissions and host patterns each in an event of their own, in
    /// WebKit's order: a grant's patterns first, a removal's permissions first. A removal of
    /// nothing fires nothing; a request for nothing is granted at once, with no prompt, and
    /// fires an empty `onAdded` before the answer.
    @Test func changedGrantsFireTheirEventsInWebKitsOrderToTheBackgroundAndThePages() {
        var safari = loaded(listeners: [.permissionsAdded])
        let profile = safari.profile
        let site = "https://*.example.org/*"
        #expect(safari.handle(.permissionsChanged(added: true, permissions: ["tabs"], origins: [site]), now: 1_000) == [
            .dispatch(.permissionsChanged(added: true, permissions: [], origins: [site])),
            .pagesPermissionsChanged(added: true, permissions: [], origins: [site], profile: profile),
            .dispatch(.permissionsChanged(added: true, permissions: ["tabs"], origins: [])),
            .pagesPermissionsChanged(added: true, permissions: ["tabs"], origins: [], profile: profile),
        ])
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.permissionsRemoved(permissions: ["tabs"], origins: [site])]), now: 2_000) == [
            .dispatch(.permissionsChanged(added: false, permissions: ["tabs"], origins: [])),
            .pagesPermissionsChanged(added: false, permissions: ["tabs"], origins: [], profile: profile),
            .dispatch(.permissionsChanged(added: false, permissions: [], origins: [site])),
            .pagesPermissionsChanged(added: false, permissions: [], origins: [site], profile: profile),
        ])
        #expect(safari.handle(.permissionsChanged(added: false, permissions: [], origins: []), now: 3_000) == [])

        let asked = safari.handle(.backgroundFinished(incarnation: 1, [.tabsCall(request: 4, .requestPermissions(permissions: [], origins: []))]), now: 4_000)
        let prompt = SafariMachine.PermissionPrompt(asker: .background(incarnation: 1, request: 4), permissions: [], origins: [],
                                                    expires: 4_000 + SafariMachine.permissionPromptTimeout)
        #expect(asked == [.note("background#1 asks for nothing: granted at once"),
                          .dispatch(.permissionsChanged(added: true, permissions: [], origins: [])),
                          .pagesPermissionsChanged(added: true, permissions: [], origins: [], profile: profile),
                          .permissionsDecided(prompt, granted: true)])
        #expect(safari.permissionPrompts.isEmpty, "no prompt is shown, and none holds the background")

        // Each is a listener of its own: the loaded background takes the one it listens for,
        // and loses the other.
        #expect(safari.handle(.eventDue(.permissionsChanged(added: true, permissions: ["tabs"], origins: [])), now: 5_000) ==
                [.deliver(.permissionsChanged(added: true, permissions: ["tabs"], origins: []))])
        #expect(safari.handle(.eventDue(.permissionsChanged(added: false, permissions: ["tabs"], origins: [])), now: 5_000).contains(
                .note("permissionsChanged lost: background#1 has no permissionsRemoved listener")))
    }

    /// The pages read the toolbar item as Safari holds it: they are told whenever it changes,
    /// whoever changed it (a page's set, the background's, a tab closing with its own values,
    /// an update dropping it), and not when nothing changed.
    @Test func thePagesAreToldOfEveryChangeToTheToolbarItem() {
        var safari = loaded(listeners: [.message])
        _ = safari.handle(.tabOpened(t1, url: url, nativeDark: false, window: nil), now: 0)
        let profile = safari.profile
        var expected = ExtensionAction()
        expected.set(.badgeText, to: .string("3"), tab: t1)
        #expect(safari.handle(.pageActionSet(tab: t1, property: .badgeText, value: .string("3")), now: 1_000).last ==
                .pagesActionChanged(expected, profile: profile))
        #expect(!safari.handle(.pageActionSet(tab: t1, property: .badgeText, value: .string("3")), now: 2_000).contains {
            if case .pagesActionChanged = $0 { true } else { false }
        }, "a set that changes nothing tells nothing")
        expected.set(.title, to: .string("Three"), tab: nil)
        #expect(safari.handle(.backgroundFinished(incarnation: 1, [.actionSet(tab: nil, property: .title, value: .string("Three"))]), now: 3_000).last ==
                .pagesActionChanged(expected, profile: profile))
        expected.forget(t1)
        #expect(safari.handle(.tabClosed(t1), now: 4_000).last == .pagesActionChanged(expected, profile: profile))
        // An update drops it all; the pages hear it is empty.
        #expect(safari.handle(.extensionUpdated(), now: 5_000).contains(.pagesActionChanged(ExtensionAction(), profile: profile)))
    }

    /// The pages hear Safari's state before a page this input loads reads it: an update drops
    /// the alarms a page made, and the options page it reloads reads none. And a tab's page of
    /// the extension's own hears its own load complete once it is there.
    @Test func aPageThatLoadsReadsSafarisStateAndHearsItsOwnLoadComplete() {
        var safari = loaded(listeners: [.message])
        let options = TabID("options"), address = "safari-web-extension://extension/options.html"
        _ = safari.handle(.tabOpened(options, url: address, nativeDark: false, window: nil), now: 0)
        _ = safari.handle(.pageAlarmSet(at: 120_000, name: "x", period: nil), now: 0)
        let updated = safari.handle(.extensionUpdated(), now: 1_000)
        let told = updated.firstIndex(of: .pagesAlarmsChanged([:], profile: safari.profile))
        let load = updated.firstIndex { if case .loadPage = $0 { true } else { false } }
        #expect(told != nil && load != nil && told! < load!, "\(updated)")
        let reloaded = safari.handle(.tabReloaded(options), now: 2_000)
        let page = reloaded.firstIndex { if case .loadPage = $0 { true } else { false } }
        let complete = reloaded.firstIndex(of: .pagesTabEvent(.tabUpdated(options, url: address, status: .complete), window: 1, profile: safari.profile))
        #expect(page != nil && complete != nil && page! < complete!, "\(reloaded)")
    }

    @Test func anAddressAMatchPatternMatches() {
        #expect(PageRuntime.address(matching: "<all_urls>") == "https://example.com/")
        #expect(PageRuntime.address(matching: "*://*.example.org/*") == "https://www.example.org/")
        #expect(PageRuntime.address(matching: "http://docs.example.com/guide/*") == "http://docs.example.com/guide/")
        #expect(PageRuntime.address(matching: "https://*/*") == "https://example.com/")
    }
}
