import ProcessKit
import SiteSettings

extension TabID {
    /// The tab the user opens the extension's options page in (`options open`).
    static let options = TabID("options")
}

extension ExtensionWire.PageSender {
    /// The page that sent it, a tab's in `profile`.
    func page(in profile: String) -> PageHost.Page {
        switch self {
        case .tab(let tab, _): .tab(PageKey(tab, profile: profile))
        case .popup: .popup
        }
    }
}

/// The extension's own pages (`runsOwnPages`; `PROTOCOL.md`, section 15): Safari loads each
/// tab's page with the extension's content scripts, and the popup's page, in the shell's page
/// host, tells them when they show and hide, and carries the messages between them and the
/// background. Safari reads nothing in those messages: what a page does with an answer is the
/// extension's own code.
extension SafariMachine {
    /// What the user does in the extension's own popup, to the element with an id: click it, or
    /// pick the option of a select that has this value.
    package enum PopupGesture: Equatable, Sendable {
        case click(String)
        case choose(String, value: String)

        /// Its word in a scenario (`popup click`, `popup choose`).
        var verb: String {
            switch self {
            case .click: "click"
            case .choose: "choose"
            }
        }
    }

    /// A page's message on its way: from whom, and the incarnation that took it, once one did.
    struct PageQuestion: Equatable, Sendable {
        var from: ExtensionWire.PageSender
        var takenBy: Int?
        /// The profile of the page that asked (tab names are each profile's own).
        var profile: String
    }

    /// Whether a tab's page is visible: it is its window's active tab, in the profile in front,
    /// with Safari in front (the harness's reading: a page hides when Safari leaves the front,
    /// as iOS Safari's pages do when it is suspended).
    func isShown(_ id: TabID) -> Bool { safariInForeground && visibleTabs.contains(id) }

    /// The page of the front profile's tab `id`. Every effect for a tab's page names it so.
    func pageKey(_ id: TabID) -> PageKey { PageKey(id, profile: profile) }

    /// Whether a load of one of the extension's pages runs now, its timers included: the
    /// popup's always, a tab's while its profile is in front, as Safari runs no extension of a
    /// profile put away.
    func pageRuns(_ load: PageLoad) -> Bool {
        guard case .tab(let key) = load.page else { return true }
        return key.profile == profile
    }

    /// The pages read the toolbar item, the alarms and the menu items as Safari holds them: they
    /// are told whenever an input changed them from what they were (`action`, `alarms`, `menus`,
    /// in `profile`: a set, a tab closing, a restart or an update dropping them) or another
    /// profile's are in front, before any page the input loads, which reads them as it loads.
    mutating func tellPagesSafarisState(action before: ExtensionAction, alarms alarmsBefore: [String: Alarm], menus menusBefore: [ExtensionMenuItem],
                                        profile profileBefore: String, _ effects: inout [Effect]) {
        var told: [Effect] = []
        if action != before || profile != profileBefore { told.append(.pagesActionChanged(action, profile: profile)) }
        if alarms != alarmsBefore || profile != profileBefore { told.append(.pagesAlarmsChanged(heldAlarms, profile: profile)) }
        if menus != menusBefore || profile != profileBefore { told.append(.pagesMenusChanged(menus, profile: profile)) }
        let firstLoad = effects.firstIndex { effect in
            switch effect {
            case .loadPage, .openPopupPage: true
            default: false
            }
        }
        effects.insert(contentsOf: told, at: firstLoad ?? effects.endIndex)
    }

    /// The tab's page loads: its content scripts start in a fresh page.
    mutating func loadPage(_ id: TabID, _ effects: inout [Effect]) {
        guard let tab = tabs[id] else { return }
        pageGone(.tab(pageKey(id)), &effects)
        let visible = isShown(id)
        if visible { shownPages.insert(pageKey(id)) } else { shownPages.remove(pageKey(id)) }
        effects.append(.loadPage(pageKey(id), url: tab.url, visible: visible, nativeDark: tab.nativeDark))
        // The pages hear the load's commit and end (webNavigation's onCommitted,
        // onDOMContentLoaded and onCompleted, tabs.onUpdated's complete) once the new page is
        // there, as a browser's page that listens hears its own tab's load end (the page host
        // gives the commit to neither the tab's old page nor its new one): this load's, after
        // its start.
        let start = effects.lastIndex { effect in
            if case .pagesTabEvent(.navigated(let loaded, _, .beforeNavigate), _, _) = effect { return loaded == id }
            return false
        } ?? effects.startIndex
        let ending = effects.indices.filter { index in
            guard index >= start, case .pagesTabEvent(let event, _, _) = effects[index] else { return false }
            switch event {
            case .tabUpdated(let loaded, _, .complete, _), .navigated(let loaded, _, .committed), .navigated(let loaded, _, .domContentLoaded),
                 .navigated(let loaded, _, .completed): return loaded == id
            default: return false
            }
        }
        let moved = ending.map { effects[$0] }
        for index in ending.reversed() { effects.remove(at: index) }
        effects.append(contentsOf: moved)
    }

    /// A page is gone (it loads afresh, its tab closes, the popup closes): the background's
    /// messages it had not answered are answered with nothing, as Safari answers a message whose
    /// page went away.
    mutating func pageGone(_ page: PageHost.Page, _ effects: inout [Effect]) {
        // Its own messages wait for nothing any more: an answer to them goes nowhere.
        pageQuestions = pageQuestions.filter { $0.value.from.page(in: $0.value.profile) != page }
        // Its ports close (WebKit's `disconnectPortsForPage`): the background hears it after
        // what the page sent on them before.
        for port in pagePorts.keys.sorted() where pagePorts[port]?.page == page { effects.append(.dispatch(.portClosed(port: port))) }
        for number in (messagesToPages.keys.filter { messagesToPages[$0]?.page == page } + pageMessagesToTabs.keys.filter { pageMessagesToTabs[$0]?.page == page }).sorted() {
            effects.append(.note("\(page.name) went before it answered message \(number): it is answered with nothing"))
            pageAnswered(number, answer: nil, unreachable: false, &effects)
        }
    }

    /// A page answered the background's message `number` (nil: with nothing; `unreachable`: no
    /// listener of the page heard it). A message to one page is answered so. Of a message to
    /// every extension page, the first answer is the background's (WebKit's
    /// `EagerCallbackAggregator`) and the copies' later ones go nowhere; when every copy came back
    /// with nothing, the background's is nothing, or unreachable if no page heard it.
    mutating func pageAnswered(_ number: Int, answer: JSONValue?, unreachable: Bool, _ effects: inout [Effect]) {
        // An extension page's message to a tab: its answer goes to that page.
        if let asking = pageMessagesToTabs.removeValue(forKey: number) {
            effects.append(.answerPage(id: asking.asker, answer: answer))
            return
        }
        guard let asker = messagesToPages.removeValue(forKey: number) else { return }
        guard let group = asker.group, var copies = messageGroups[group] else {
            effects.append(.answerBackground(incarnation: asker.incarnation, id: asker.id, answer: answer, unreachable: unreachable))
            return
        }
        copies.pending.remove(number)
        copies.heard = copies.heard || !unreachable
        guard answer == nil, !copies.pending.isEmpty else {
            for other in copies.pending { messagesToPages[other] = nil }
            messageGroups[group] = nil
            effects.append(.answerBackground(incarnation: asker.incarnation, id: asker.id, answer: answer, unreachable: answer == nil && !copies.heard))
            return
        }
        messageGroups[group] = copies
    }

    /// The extension's own pages open in the front profile: the popup, then each tab that shows
    /// one of its pages, in tab order.
    var extensionPages: [PageHost.Page] {
        (popupTab == nil ? [] : [.popup]) + tabs.keys.sorted().filter { ExtensionManifest.isOwnPage(tabs[$0]!.url) }.map { .tab(pageKey($0)) }
    }

    /// Each page whose visibility changed hears of it (`visibilitychange`), in tab order: a
    /// page of a profile that left the front is hidden too.
    mutating func showPages(_ effects: inout [Effect]) {
        let shown = Set(tabs.keys.filter(isShown).map(pageKey))
        for id in shownPages.subtracting(shown).sorted() { effects.append(.showPage(id, visible: false)) }
        for id in shown.subtracting(shownPages).sorted() { effects.append(.showPage(id, visible: true)) }
        shownPages = shown
    }

    /// The background took a page's message: if it dies before answering, Safari answers it.
    mutating func pageMessageTaken(_ id: Int) {
        let taker = loaded
        pageQuestions[id]?.takenBy = taker
    }

    /// An event of a page's that no background will take: its message is answered with nothing,
    /// its port disconnected.
    mutating func pageEventLost(_ event: ExtensionWire.Event, _ effects: inout [Effect]) {
        switch event {
        case .pageMessage(let id, _, _, _, _): pageMessageLost(id, &effects)
        case .portOpened(let port, _, _):
            guard let lost = pagePorts.removeValue(forKey: port) else { return }
            effects.append(.pagePortDisconnected(lost.page, port: port, error: Self.noConnectListener))
        default: break
        }
    }

    /// What `runtime.lastError` says to a page whose port found no `runtime.onConnect` listener
    /// (WebKit, `WebExtensionContext::runtimeConnect`, through `toWebExtensionError`).
    static let noConnectListener = "Invalid call to runtime.connect(). No runtime.onConnect listeners found."
    /// What `runtime.lastError` says to the background whose `tabs.connect` found no tab of that
    /// number, or no `runtime.onConnect` listener in the tab's page (WebKit,
    /// `WebExtensionContext::tabsConnect`, through `toWebExtensionError`).
    static let noTabToConnect = "Invalid call to tabs.connect(). Tab not found."
    static let noTabConnectListener = "Invalid call to tabs.connect(). No runtime.onConnect listeners found."

    /// The loaded background's `runtime.onConnect` fired for a page's port: it holds it now,
    /// and taking it counts as its port activity (`addPorts`).
    mutating func pagePortTaken(_ port: Int, now: EpochMillis) {
        let taker = loaded
        pagePorts[port]?.takenBy = taker
        loadedBackground?.ports.insert(.page(port))
        portActivity(now: now)
    }

    /// A page's port event on its way to the background: a message, or its close, reaches only
    /// the incarnation that took the port, and a port whose page is gone connects to nothing.
    /// Returns whether the event was handled here. (`holder`, the loaded incarnation, comes in
    /// as an argument: read here, this compiler's optimizer fails on the function.)
    mutating func pagePortEvent(_ event: ExtensionWire.Event, holder: Int?, now: EpochMillis, _ effects: inout [Effect]) -> Bool {
        let port: Int, closing: Bool
        switch event {
        case .portMessage(let number, _): (port, closing) = (number, false)
        case .portClosed(let number, _): (port, closing) = (number, true)
        case .portOpened(let number, _, _):
            guard !pagePorts.keys.contains(number) else { return false }
            effects.append(.note("port \(number)'s page is gone: it connects to nothing"))
            // Its `runtime.connect` still woke a background without a listener for it, as any
            // event of a type the session listens for does.
            if holder != nil, loadedBackground?.listeners.contains(.connect) != true, listens(for: .connect) { woke(now: now) }
            return true
        default: return false
        }
        let taker = pagePorts[port].flatMap(\.takenBy)
        // The background knows the port by its own number (its own, for one it opened).
        let number = pagePorts[port]?.number ?? port
        if closing { pagePorts[port] = nil }
        guard let taker, taker == holder else {
            effects.append(.note("port \(port) is open to no background: \(event.name) dropped"))
            return true
        }
        if closing { release(.page(port)) }
        switch event {
        case .portMessage(_, let message): effects.append(.deliver(.portMessage(port: number, message: message)))
        case .portClosed(_, let error): effects.append(.deliver(.portClosed(port: number, error: error)))
        default: effects.append(.deliver(event))
        }
        return true
    }

    /// A page's message that no background will take: Safari answers it with nothing
    /// (`EagerCallbackAggregator`'s empty reply).
    mutating func pageMessageLost(_ id: Int, _ effects: inout [Effect]) {
        guard pageQuestions.removeValue(forKey: id) != nil else { return }
        effects.append(.answerPage(id: id, answer: nil))
    }

    /// Background `incarnation` died: each page's message it took and had not answered is
    /// answered with nothing, its messages to tabs are forgotten, and the ports it held are
    /// disconnected at the pages' end.
    mutating func pagesLost(_ incarnation: Int, _ effects: inout [Effect]) {
        for port in pagePorts.keys.sorted() where pagePorts[port]?.takenBy == incarnation {
            let lost = pagePorts.removeValue(forKey: port)!
            if lost.added { effects.append(.pagePortDisconnected(lost.page, port: port, error: nil)) }
        }
        for id in pageQuestions.keys.sorted() where pageQuestions[id]?.takenBy == incarnation {
            effects.append(.note("page message \(id) answered with nothing: background#\(incarnation) is gone"))
            pageMessageLost(id, &effects)
        }
        messagesToPages = messagesToPages.filter { $0.value.incarnation != incarnation }
        messageGroups = messageGroups.filter { !$0.value.pending.isDisjoint(with: messagesToPages.keys) }
    }

    /// What Safari does with the background's answer to a page, or its message to a tab.
    mutating func carryOutForPages(_ output: ExtensionWire.Output, from incarnation: Int, now: EpochMillis, _ effects: inout [Effect]) {
        switch output {
        case .postOnPort(let number, let message):
            guard let port = heldPort(number, by: incarnation), let page = pagePorts[port]?.page else {
                effects.append(.note("background#\(incarnation) posted on port \(number), which it does not hold"))
                return
            }
            // The background's own post on a port counts as its port activity (`portPostMessage`).
            portActivity(now: now)
            effects.append(.messageOnPagePort(page, port: port, message: message))
        case .closePort(let number):
            guard let port = heldPort(number, by: incarnation), let page = pagePorts[port]?.page else {
                effects.append(.note("background#\(incarnation) closed port \(number), which it does not hold"))
                return
            }
            pagePorts[port] = nil
            release(.page(port))
            effects.append(.pagePortDisconnected(page, port: port, error: nil))
        case .connectTab(let number, let tab, let name):
            connectTab(tab, number: number, name: name, from: incarnation, now: now, &effects)
        case .answerPage(let id, let answer):
            guard let question = pageQuestions.removeValue(forKey: id) else {
                effects.append(.note("background#\(incarnation) answered page message \(id), which waits for no answer"))
                return
            }
            if case .tab(let tab, _) = question.from, let answer, Self.decision(answer) != nil { tabs[tab]?.decidedAt = now }
            effects.append(.answerPage(id: id, answer: answer))
        case .messageTab(let tab, let id, let message):
            guard tabs[tab] != nil, runsOwnPages else {
                effects.append(.note("tab \(tab.rawValue) has no page of the extension here: nothing hears the message"))
                effects.append(.answerBackground(incarnation: incarnation, id: id, answer: nil, unreachable: true))
                return
            }
            if case .object(let members) = message, members["type"] == .string("decision"), let decision = members["decision"], Self.decision(decision) != nil {
                tabs[tab]?.decidedAt = now
            }
            send(message, to: .tab(pageKey(tab)), id: id, from: incarnation, &effects)
        case .messagePopup(let id, let message):
            // `runtime.sendMessage`: every page of the extension's own hears it (WebKit's
            // `runtimeSendMessage` to each process with a main-world listener), the popup and
            // each tab that shows one of its pages.
            let pages = runsOwnPages ? extensionPages : []
            guard !pages.isEmpty else {
                effects.append(.note("no page of the extension's own is open: nothing hears the message"))
                effects.append(.answerBackground(incarnation: incarnation, id: id, answer: nil, unreachable: true))
                return
            }
            let group = pages.count > 1 ? nextMessageToPage : nil
            for page in pages { send(message, to: page, id: id, from: incarnation, group: group, &effects) }
            if let group { messageGroups[group] = (Set(group..<nextMessageToPage), false) }
        default: break
        }
    }

    /// The page's end's number of the port the background `incarnation` numbers `number`.
    func heldPort(_ number: Int, by incarnation: Int) -> Int? {
        if number > 0 { return pagePorts[number]?.takenBy == incarnation ? number : nil }
        return pagePorts.first { $0.value.takenBy == incarnation && $0.value.number == number && $0.value.added }?.key
    }

    /// `tabs.connect`: background `incarnation` opened its port `number` to the tab's page
    /// (WebKit, `WebExtensionContext::tabsConnect`). A tab that is not open fails it at once;
    /// else Safari adds the port to the background's (`addPorts`: port activity, which holds it
    /// from unloading as a page's port does) and hands it to the tab's page, whose
    /// `runtime.onConnect` takes it, or which disconnects it unheard. The background hears a
    /// failure as the port's close with why (`portClosed`'s `error`), after what it did before.
    private mutating func connectTab(_ tab: TabID, number: Int, name: String, from incarnation: Int, now: EpochMillis, _ effects: inout [Effect]) {
        let port = nextTabPort
        nextTabPort -= 1
        let page = PageHost.Page.tab(pageKey(tab))
        // Safari adds only a port it hands to a page (below): one that fails at once is kept
        // only until the background hears why, and a post or close on it meanwhile goes nowhere.
        pagePorts[port] = PagePort(page: page, takenBy: incarnation, number: number, added: tabs[tab] != nil && runsOwnPages && loaded == incarnation)
        guard tabs[tab] != nil else {
            effects.append(.note("tab \(tab.rawValue) is not open: background#\(incarnation)'s port \(number) connects to nothing"))
            effects.append(.dispatch(.portClosed(port: port, error: Self.noTabToConnect)))
            return
        }
        // Without the extension's pages running nothing could take it: it fails as unheard, and
        // (unlike WebKit, which adds it first) is no port activity.
        guard runsOwnPages, loaded == incarnation else {
            effects.append(.note("tab \(tab.rawValue)'s page has no script of the extension here: port \(number) connects to nothing"))
            effects.append(.dispatch(.portClosed(port: port, error: Self.noTabConnectListener)))
            return
        }
        loadedBackground?.ports.insert(.page(port))
        portActivity(now: now)
        effects.append(.connectPage(pageKey(tab), port: port, name: name, number: number))
    }

    /// A decision as the documented decision message carries it (section 8.2's `sendDecision`,
    /// the answer to `getDecision`): an extension of the design tells a tab its decision so, and
    /// invariant 11 reads when a tab last heard one. Anything else is nil.
    static func decision(_ json: JSONValue) -> Decision? { try? Decision.decode(json, at: .root) }

    /// The background's message `id` of incarnation `incarnation` for `page`, numbered by Safari.
    private mutating func send(_ message: JSONValue, to page: PageHost.Page, id: Int, from incarnation: Int, group: Int? = nil, _ effects: inout [Effect]) {
        let number = nextMessageToPage
        nextMessageToPage += 1
        messagesToPages[number] = (incarnation, id, page, group)
        effects.append(.messagePage(page, id: number, message: message))
    }
}
