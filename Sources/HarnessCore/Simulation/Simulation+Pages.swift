import ProcessKit
import SiteSettings

/// The extension's own pages (`ProcessExecutables.pages`): Safari's effects for them go to the
/// page host, and what the pages did comes back to Safari (their messages), to the trace
/// (their console, what changed on a page) and to the checks (invariant 15, `expect tab ...
/// page ...`).
extension Simulation {
    /// Hands the pages one of Safari's effects for them, and carries out what they did.
    func toPages(_ effect: SafariMachine.Effect) {
        // A page of the extension's own reads the tabs as they are from its first script, one
        // that hears a content script's message as it loads reads the tab it came from, and one
        // that hears a toolbar click reads the tab it was over as the click showed it.
        switch effect {
        case .loadPage, .pagesActionClicked, .pagesCommandPressed, .pagesTabEvent, .pagesWindowFocus, .pagesMenuClicked: refreshPageTabs()
        default: break
        }
        guard let input = pageInput(effect) else { return }
        toPages(input)
    }

    /// A page's timer fell due: its page runs it, if that load of the page is still there.
    func firePageTimer(_ timer: Scheduler.PageTimer) {
        toPages(.timer(load: timer.load, number: timer.number))
    }

    /// How many inputs what the pages did in one of Safari's inputs may hand them in turn (a
    /// page's message to a tab, a call on Safari's tabs, and what follows from them): past it,
    /// the rest are not handed over and the run fails, saying so, since pages that ask each
    /// other without end would never let virtual time move.
    static let pageInputsPerInput = 1000

    /// Hands the pages `input` and carries out what they did. What that hands the pages in turn
    /// waits until everything they did in `input` is carried out (their states, their timers),
    /// and goes to them then, in order: the page host is never handed an input while the
    /// outputs of another are being read.
    func toPages(_ input: PageHost.Input) {
        pageInputsWaiting.append(input)
        guard !handingToPages else { return }
        handingToPages = true
        defer { handingToPages = false }
        var handed = 0
        while !pageInputsWaiting.isEmpty {
            let next = pageInputsWaiting.removeFirst()
            handed += 1
            guard handed <= Self.pageInputsPerInput else {
                monitor.record("the extension's pages handed Safari \(Self.pageInputsPerInput) inputs for one of Safari's without end (a page's messages to tabs, or its calls on Safari's tabs, each asking for more): the rest are not handed over")
                pageInputsWaiting = []
                break
            }
            handOver(next)
        }
    }

    /// Hands the page host one input and carries out what the pages did.
    private func handOver(_ input: PageHost.Input) {
        guard let host = pageHost() else {
            endInjections()
            return
        }
        let outputs: [PageHost.Output]
        do { outputs = try host.send(input, now: now) } catch {
            if case .ended(let death, let stderr) = error {
                // A death no step caused (invariant 18); what it wrote goes to the diagnostics,
                // never the trace. No page runs on: each was in it.
                trace.record(now, "pages", "died unexpectedly (\(death.ending))")
                trace.diagnostics.append("the pages' runtime died unexpectedly (\(death.ending)); stderr: \(stderr.suffix(1000))")
                monitor.caught(Violation(.invariant(18), "the pages' runtime died without a cause: \(death)"), now: now)
            } else {
                monitor.record(error.description)
            }
            pages = .failed
            endInjections()
            return
        }
        for output in outputs { fromPages(output) }
    }

    /// Whether the pages' runtime failed (the monitor said why): it serves nothing more.
    var pagesFailed: Bool { if case .failed = pages { true } else { false } }

    /// The pages' runtime failed: the injections it held are answered, as Safari answers a
    /// call on a tab whose page is gone.
    private func endInjections() {
        let asked = injections.sorted(by: { $0.key < $1.key })
        injections = [:]
        for (_, asker) in asked {
            // A page that asked went with the page host.
            if case .background = asker { injectionAnswered(asker, results: nil, error: "the extension's pages are not running") }
        }
    }

    /// Why a page cannot be read, for `queryPage`.
    package struct Unreadable: Error, CustomStringConvertible {
        package let description: String
    }

    /// What `page` shows for `selector` now (`expect ... page "SELECTOR" ...`): a tab's page of
    /// the front profile, or the popup. Reading it runs none of its scripts and leaves no trace.
    func queryPage(_ page: PageName, selector: String) -> Result<PageQuery, Unreadable> {
        let key: PageHost.Page = switch page {
        case .tab(let id): .tab(safari.pageKey(id))
        case .popup: .popup
        }
        guard case .running(let host) = pages else { return .failure(Unreadable(description: "the extension's pages are not running")) }
        let outputs: [PageHost.Output]
        do { outputs = try host.send(.query(key, selector: selector), now: now) } catch {
            // A host that did not answer may answer late: it serves nothing more.
            pages = .failed
            return .failure(Unreadable(description: "the pages' runtime could not be read: \(error)"))
        }
        for case .queried(let found) in outputs {
            guard let found else { return .failure(Unreadable(description: page == .popup ? "the popup is not open" : "there is no such page (it is closed, or its pages do not run)")) }
            return .success(found)
        }
        return .failure(Unreadable(description: "the pages' runtime did not answer the query"))
    }

    /// What an extension page's `tabs.query` reads: the front profile's tabs, with each
    /// window's active one, as Safari has them now.
    private var pageTabs: [PageHost.PopupTab] {
        safari.tabs.keys.sorted().map { id in
            let opened = safari.tabs[id]!
            return PageHost.PopupTab(id: id, url: opened.url, windowId: opened.window, active: safari.activeTabs[opened.window] == id,
                                     number: tabNumbers[safari.pageKey(id)])
        }
    }

    /// The extension's pages read the tabs as they are: while the popup or a page of the
    /// extension's own in a tab is open, after each of Safari's inputs that changed them (a tab
    /// opened, closed, shown or gone to another address), the pages are handed them again.
    func refreshPageTabs() {
        guard safari.ownPageOpen else { return }
        let tabs = pageTabs
        let windows = [safari.frontWindow, safari.safariInForeground ? safari.frontWindow : -1]
        guard tabs != pageTabsShown || windows != pageWindowsShown else { return }
        pageTabsShown = tabs
        pageWindowsShown = windows
        toPages(.tabs(tabs, frontWindow: windows[0], focusedWindow: windows[1]))
    }

    /// The timers of every load of `page` go: it loads afresh or closes.
    private func dropTimers(of page: PageHost.Page) {
        clock.pageTimers = clock.pageTimers.filter { $0.key.load.page != page }
    }

    /// The page host, started at its first use; nil once it failed (the monitor said why).
    private func pageHost() -> PageHost? {
        switch pages {
        case .running(let host): return host
        case .failed: return nil
        case .notStarted:
            guard let command = pagesCommand else { return nil }
            do {
                let host = try PageHostPool.shared.take(command, seed: seed, platform: platform)
                pages = .running(host)
                return host
            } catch {
                monitor.record("the pages' runtime could not start: \(error)")
                pages = .failed
                return nil
            }
        }
    }

    /// The extension's version as Safari installed it, when an update gave its files another one.
    private var installedVersion: String? {
        safari.installedVersion == safari.manifestVersion ? nil : safari.installedVersion
    }

    /// The input an effect is for the pages, if it is one; what it changes on the pages' side
    /// of the run (the trace, the pages' states, their timers) is done here.
    private func pageInput(_ effect: SafariMachine.Effect) -> PageHost.Input? {
        switch effect {
        case .loadPage(let tab, let url, let visible, let nativeDark):
            trace.record(now, "pages", "tab \(tab) loads \(url)\(visible ? "" : " (hidden)")\(nativeDark ? ", natively dark" : "")")
            pageStates[tab] = PageState()
            pageConsole[tab] = []
            dropTimers(of: .tab(tab))
            let document = pageDocuments[tab].flatMap { $0.url == url ? $0.html : nil }
            return .load(tab, url: url, visible: visible, appearance: appearance, nativeDark: nativeDark, storage: storageFolder(tab.profile), html: document,
                         version: installedVersion, extension: installedFolder)
        case .pageNativeDark(let tab, let nativeDark):
            trace.record(now, "pages", "tab \(tab)'s own dark theme \(nativeDark ? "appears" : "goes")")
            return .nativeDark(tab, nativeDark: nativeDark)
        case .closePage(let tab):
            pageStates[tab] = nil
            dropTimers(of: .tab(tab))
            return .close(tab)
        case .showPage(let tab, let visible):
            trace.record(now, "pages", "tab \(tab) \(visible ? "visible" : "hidden")")
            return .show(tab, visible: visible)
        case .pagesAppearance(let appearance): return .appearance(appearance)
        case .answerPage(let id, let answer):
            if let answer { trace.record(now, "pages", "message \(id) answered", answer) } else { trace.record(now, "pages", "message \(id) answered with nothing") }
            return .answer(id: id, answer: answer)
        case .messagePage(let page, let id, let message):
            trace.record(now, "pages", "\(page.name) hears message \(id)", message)
            return .message(page, id: id, message: message)
        case .openPopupPage(let tab, let page):
            dropTimers(of: .popup)
            trace.record(now, "pages", "the popup\(page.map { " \($0)" } ?? "") opens over tab \(tab.rawValue)")
            popupConsole = []
            pageTabsShown = pageTabs
            // The popup's page reads its window as the front and focused one until told otherwise.
            pageWindowsShown = nil
            return .openPopup(tab, appearance: appearance, tabs: pageTabs, windowId: safari.tabs[tab]?.window ?? safari.frontWindow,
                              storage: storageFolder(safari.profile), version: installedVersion, extension: installedFolder, page: page)
        case .closePopupPage(let hides):
            dropTimers(of: .popup)
            return .closePopup(hide: hides)
        case .messageOnPagePort(let page, let port, let message):
            trace.record(now, "pages", "the background posts on \(page.name)'s port \(port)", message)
            return .portMessage(port: port, message: message)
        case .pagePortDisconnected(let page, let port, let error):
            trace.record(now, "pages", "\(page.name)'s port \(port) is disconnected\(error.map { ": \($0)" } ?? "")")
            return .portDisconnected(port: port, error: error)
        case .connectPage(let tab, let port, let name, let number):
            trace.record(now, "pages", "the background opens port \(port) to tab \(tab)'s page (its port \(number))\(name.isEmpty ? "" : " \"\(name)\"")")
            return .portOpened(tab, port: port, name: name)
        case .pagesStorageChanged(let area, let changes, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .storageChanged(storage: folder, area: area, changes: changes)
        case .pagesWindowFocus(let window, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .windowFocus(windowId: window, storage: folder)
        case .pagesTabEvent(let event, let window, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            let tab: TabID
            switch event {
            case .tabCreated(let id, _), .tabUpdated(let id, _, _, _), .tabActivated(let id), .tabClosed(let id), .navigated(let id, _, _): tab = id
            default: return nil
            }
            // The tab as the pages number it (a closed one's too).
            let number = tabNumbers[PageKey(tab, profile: profile)]
            return .tabEvent(event, tabId: number.map { .integer(Int64($0)) } ?? .string(tab.rawValue), windowId: window, storage: folder)
        // (What Safari holds, the alarms, the toolbar item and the menu items, goes to the pages
        // as Safari holds it when the input is sent: a page's change carried out since the
        // effect was made, in a turn of an effect before it, is not undone.)
        case .pagesAlarmsChanged(let alarms, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .alarms(profile == safari.profile ? safari.heldAlarms : alarms, storage: folder)
        case .pagesAlarmFired(let name, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .alarmFired(name: name, storage: folder)
        case .pagesMenusChanged(let items, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .menus(profile == safari.profile ? safari.menus : items, storage: folder)
        case .pagesMenuClicked(let event, let profile):
            guard let folder = storageFolder(profile), case .menuClicked(_, _, let tab, _, _, _) = event else { return nil }
            let number = tabNumbers[PageKey(tab, profile: profile)]
            return .menuClicked(event, tabId: number.map { .integer(Int64($0)) } ?? .string(tab.rawValue), storage: folder)
        case .pagesCommandPressed(let name, let tab, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .commandPressed(name, tab: tab.flatMap { id in pageTabs.first { $0.id == id } }, storage: folder)
        case .pagesActionClicked(let tab, let profile):
            guard let folder = storageFolder(profile), let listed = pageTabs.first(where: { $0.id == tab }) else { return nil }
            return .actionClicked(listed, storage: folder)
        case .pagesActionChanged(let action, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .action(profile == safari.profile ? safari.action : action, storage: folder)
        case .pagesPermissionsChanged(let added, let permissions, let origins, let profile):
            guard let folder = storageFolder(profile) else { return nil }
            return .permissionsChanged(storage: folder, added: added, permissions: permissions, origins: origins)
        case .useInPage(let page, .click(let element)):
            trace.record(now, "pages", "the user clicks #\(element) in \(page.name)")
            return .click(element: element, page: page)
        case .useInPage(let page, .choose(let element, let value)):
            trace.record(now, "pages", "the user picks \"\(value)\" in #\(element) in \(page.name)")
            return .choose(element: element, value: value, page: page)
        // Safari's effects for the background, the app, the handler and the clock.
        case .note, .dispatch, .dispatchFirst, .startBackground, .redispatch, .announcePopup, .deliver, .killBackground, .freezeBackground,
             .thawBackground, .fireOverdueTimers, .suspendApp, .queuePortMessage, .appMessageNotConnected, .dropSessionStorage, .completeStorage,
             .queueNativeRequest, .startHandler, .startLegacyHandler, .queueReply, .setTimer, .cancelTimer, .decisionSent, .popupAnswered,
             .reconciliationPoint, .answerBackground, .extensionTabsCall, .permissionsDecided:
            return nil
        }
    }

    /// A change the extension's own pages asked for, as its background sends it to the handler:
    /// the user's edit, for the oracle (invariant 2). Its answer is the background's to read,
    /// so the edit may or may not be saved; a toggle may leave either value.
    func extensionEdits(_ message: NativeRequest) {
        guard case .toggleEnabled = message else { return }
        for value in ["on", "off"] {
            monitor.userEdited(InvariantMonitor.UserEdit(origin: .popup, at: now, target: .defaults, values: ["mode": value], source: "extension"))
        }
    }

    /// A page as the background's `sender` names it: a tab's, with its address, or the popup.
    /// A page of a profile put away has none: its profile's extension does not run while
    /// another is in front, so what it sends reaches no background (and nothing waits for it).
    private func sender(_ page: PageHost.Page) -> ExtensionWire.PageSender? {
        guard case .tab(let key) = page else { return .popup }
        guard key.profile == safari.profile else {
            trace.record(now, "pages", "\(page.name) is of profile \(key.profile), put away: what it sends reaches no background")
            return nil
        }
        return .tab(key.tab, url: tabs[key.tab]?.url ?? "")
    }

    /// Why a page of a profile put away has no call on Safari's tabs done: its extension does not
    /// run while another profile is in front.
    static let putAwayRefusal = "the extension does not run in a profile put away"

    /// The folder of a profile's extension storage, which its pages' `storage` reads and changes:
    /// the background's own (real files only; the simulated disk has no folder a page host reads).
    private func storageFolder(_ profile: String) -> String? {
        guard transport == .process else { return nil }
        return files.storageDirectory(profile)
    }

    /// The page that opened a port, as the trace names it.
    private func portHolder(_ port: Int) -> String { safari.pagePorts[port]?.page.name ?? "a page" }

    private func fromPages(_ output: PageHost.Output) {
        switch output {
        case .sendMessage(let id, let page, let message, let userGesture):
            trace.record(now, "pages", "\(page.name) sends message \(id)\(userGesture ? " in the user's gesture" : "")", message)
            guard let from = sender(page) else { return }
            handle(.pageMessageSent(id: id, from: from, message: message, userGesture: userGesture))
        case .connect(let port, let name, let page):
            trace.record(now, "pages", "\(page.name) opens port \(port)\(name.isEmpty ? "" : " \"\(name)\"")")
            guard let from = sender(page) else { return }
            handle(.pagePortOpened(port: port, name: name, from: from))
        case .postOnPort(let port, let message):
            trace.record(now, "pages", "\(portHolder(port)) posts on port \(port)", message)
            handle(.pagePortPosted(port: port, message: message))
        case .disconnectPort(let port, let unheard):
            trace.record(now, "pages", unheard ? "\(portHolder(port)) has no runtime.onConnect listener: port \(port) connects to nothing"
                                               : "\(portHolder(port)) disconnects port \(port)")
            handle(.pagePortClosed(port: port, unheard: unheard))
        case .queried:
            // Only a check asks (`queryPage`), and it reads the answer itself.
            break
        case .tabsCall(let id, let page, let call):
            trace.record(now, "pages", "\(page.name) asks Safari for a tabs call (\(id))", ExtensionWire.json(.tabsCall(request: id, call)))
            guard sender(page) != nil else { return toPages(.tabsAnswered(id: id, tab: nil, error: Self.putAwayRefusal)) }
            if case .inject(let kind, let tab, let injection) = call { return inject(kind, injection, into: tab, for: .page(page, id: id)) }
            let done = tabsCallDone(call, by: page.name)
            let tab = done.error == nil ? done.tab.flatMap { name in pageTabs.first { $0.id == name } } : nil
            toPages(.tabsAnswered(id: id, tab: tab, error: done.error))
        case .messageTab(let id, let page, let tab, let message):
            trace.record(now, "pages", "\(page.name) sends tab \(tab.rawValue)'s page message \(id)", message)
            guard sender(page) != nil else { return toPages(.answer(id: id, answer: nil)) }
            handle(.pageMessagedTab(id: id, to: tab, message: message))
        case .requestPermissions(let id, let page, let permissions, let origins):
            trace.record(now, "pages", "\(page.name) asks for \((permissions + origins).joined(separator: ", "))")
            guard sender(page) != nil else { return toPages(.permissionsAnswered(id: id, granted: false)) }
            handle(.pagePermissionsRequested(id: id, from: page, permissions: permissions, origins: origins))
        case .setAlarm(let page, let at, let name, let period):
            guard sender(page) != nil else { return }
            trace.record(now, "pages", "\(page.name) makes the alarm \(name.isEmpty ? "with no name" : "\"\(name)\"")")
            handle(.pageAlarmSet(at: at, name: name, period: period))
        case .clearAlarm(let page, let name):
            guard sender(page) != nil else { return }
            trace.record(now, "pages", "\(page.name) clears the alarm \(name.isEmpty ? "with no name" : "\"\(name)\"")")
            handle(.pageAlarmCleared(name: name))
        case .menuChanged(let page, let change):
            guard sender(page) != nil else { return }
            trace.record(now, "pages", "\(page.name) \(change.said)")
            handle(.pageMenuChanged(change))
        case .actionSet(let page, let tab, let property, let value):
            trace.record(now, "pages", "\(page.name) sets the action's \(property.rawValue)\(tab.map { " for tab \($0.rawValue)" } ?? "")", value)
            guard sender(page) != nil else { return }
            handle(.pageActionSet(tab: tab, property: property, value: value))
        case .permissionsRemoved(let page, let permissions, let origins):
            trace.record(now, "pages", "\(page.name) gives back \((permissions + origins).joined(separator: ", "))")
            guard sender(page) != nil else { return }
            handle(.permissionsChanged(added: false, permissions: permissions, origins: origins))
        case .openOptionsPage(let page):
            // Safari opens the options page in a new tab, in front (WebKit,
            // `runtimeOpenOptionsPage`); the page's realm refused the call with none.
            trace.record(now, "pages", "\(page.name) opens the options page")
            guard sender(page) != nil, let options = optionsPage else { return }
            _ = openExtensionTab(url: ExtensionManifest.pageURL(options), active: true, by: page.name)
        case .injected(let number, let results, let error):
            guard let asker = injections.removeValue(forKey: number) else { return }
            if let error { trace.record(now, "pages", "injection \(number) not done: \(error)") } else {
                trace.record(now, "pages", "injection \(number) done", results ?? .null)
            }
            injectionAnswered(asker, results: results, error: error)
        case .storageChanged(let page, let area, let changes):
            trace.record(now, "pages", "\(page.name) changed storage.\(area)", changes)
            guard sender(page) != nil else { return }
            handle(.pageStorageChanged(area: area, changes: changes))
        case .answer(let id, let answer, let unreachable):
            if unreachable { trace.record(now, "pages", "message \(id) reached no page that listens") } else {
                if let answer { trace.record(now, "pages", "message \(id) to a page answered", answer) } else {
                    trace.record(now, "pages", "message \(id) to a page answered with nothing")
                }
            }
            handle(.pageAnswerSent(id: id, answer: answer, unreachable: unreachable))
        case .state(let tab, let state):
            pageStates[tab] = state
            trace.record(now, "pages", "tab \(tab) page: \(state.summary)")
        case .setTimer(let load, let number, let at):
            clock.pageTimers[Scheduler.PageTimer(load: load, number: number)] = at
        case .cancelTimer(let load, let number):
            clock.pageTimers[Scheduler.PageTimer(load: load, number: number)] = nil
        case .log(let page, let level, let text, let at):
            let writer = page?.hostName ?? "pages"
            trace.record(now, "pages", "\(writer) console.\(level) \(text)\(at.map { " (\($0))" } ?? "")")
            switch page {
            case .tab(let key): pageConsole[key, default: []].append("\(level) \(text)")
            case .popup: popupConsole.append("\(level) \(text)")
            case nil: break
            }
            if level == "error" && text.hasPrefix("Uncaught") {
                monitor.caught(Violation(.invariant(15), "\(writer)'s page\(at.map { " at \($0)" } ?? ""): \(text)"), now: now)
            }
            // A step the pages could not do (a click on no element) fails the run: what was
            // judged is not what the scenario says.
            if level == "error" && text.hasPrefix("Not done: ") { monitor.record("\(writer): \(text.dropFirst("Not done: ".count))") }
        }
    }
}

extension PageHost.Page {
    /// As the trace names it.
    var name: String {
        switch self {
        case .tab(let key): "tab \(key)"
        case .popup: "the popup"
        }
    }
}

/// The page host of a run: not started until a page loads, and not used again once it failed.
enum PagesState {
    case notStarted
    case running(PageHost)
    case failed
}
