#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// What the user, Safari and the operating system do, as the steps call it: the app's and
/// Safari's lifecycle, tabs and profiles, the popup, and the background's unloads, kills and
/// freezes. Each tells Safari (`SafariMachine`) what happened and carries out what it does;
/// `settle` plays out the rest.
extension Simulation {
    // MARK: - The app

    package func launchApp() {
        if app == nil {
            guard processes.start(.app) != nil else { return }
            clock.queue.append(.appInput(.launched))
        }
        appForeground()
    }

    /// The app comes to the front. On iOS, Safari goes to the background.
    func appForeground() {
        guard app != nil else { return launchApp() }
        handle(.appCameToForeground)
        clock.queue.append(.appInput(.cameToForeground))
    }

    /// The app is suspended: it misses notifications and re-reads when it returns.
    func appBackground() { handle(.appWentToBackground) }

    func killApp() {
        if let app { processes.kill(app) }
        handle(.appQuit)
    }

    /// A user edit in the app; the answer is in `edits`: the last the app gave, and under the
    /// returned number.
    @discardableResult
    package func appEdit(_ edit: AppWire.UserEdit) -> Int {
        if app == nil || !safari.appInForeground {
            // The user edits in the app, so it is launched or brought to the front first.
            trace.record(now, "harness", app == nil ? "the edit launches the app and brings it to the front" : "the edit brings the app to the front")
            appForeground()
        }
        let number = edits.newNumber()
        clock.queue.append(.appInput(.userEdited(edit), edit: number))
        return number
    }

    /// The team's app writes a key of an App Group's defaults, or removes it (`value` nil). The
    /// harness plays that app: no process runs, but the user brings it to the front first, with
    /// what that does to Safari (on iOS Safari goes to the background). It writes the suite's
    /// file whole, as `UserDefaults.synchronize()` does.
    func teamAppWrites(suite: String, key: String, value: JSONValue?) {
        teamAppToTheFront()
        let name = GroupDefaults.fileName(suite)
        var values: [String: JSONValue]
        do { values = try GroupDefaults.read(files.containerFile(name)) } catch {
            return monitor.record("the team's app could not read the defaults of \(suite): \(name) is \(error)")
        }
        values[key] = value
        do { writeContainerFile(name, try GroupDefaults.write(values)) } catch {
            return monitor.record("the team's app could not write the defaults of \(suite): \(error)")
        }
        trace.record(now, "harness", value.map { "the team's app sets \(suite) \(key) to \(String(decoding: JSONWriter.compact($0), as: UTF8.self))" } ?? "the team's app removes \(suite) \(key)")
    }

    /// The team's app sends the extension a message (`SFSafariApplication.dispatchMessage`,
    /// macOS): `{"name": NAME, "userInfo": …}`, as Apple's sample code reads it, on each native
    /// port the front profile's loaded background holds; with none open it is lost.
    func teamAppDispatches(name: String, userInfo: JSONValue) {
        teamAppToTheFront()
        trace.record(now, "harness", "the team's app dispatches \(name) to the extension")
        handle(.appMessageSent(message: .object(["name": .string(name), "userInfo": userInfo])))
    }

    private func teamAppToTheFront() {
        guard !safari.appInForeground else { return }
        trace.record(now, "harness", "the team's app comes to the front")
        handle(.appCameToForeground)
    }

    // MARK: - Safari

    func safariForeground() { handle(.safariCameToForeground) }

    /// The run starts as the extension is installed (`fresh-install`), once the setup is in
    /// place: its background loads.
    func installFresh() { handle(.extensionInstalled) }

    /// On iOS, Safari in the background freezes the background and its timers.
    func safariBackground() { handle(.safariWentToBackground) }

    /// Quits and reopens Safari: the background is gone and session storage with it.
    func safariRestart() {
        handle(.safariQuit)
        handle(.safariLaunched)
    }

    /// The device sleeps this long and wakes. Nothing runs meanwhile; Safari's timers, the
    /// background's and a slow handler's held replies are on monotonic time, which stops, so
    /// each falls due that much later on the wall clock, which a decision reads (a schedule, a
    /// pause's end). A pending reconciliation bound is void: the device's sleep is a new story.
    func sleepDevice(for duration: EpochMillis) {
        settle()
        trace.record(now, "harness", "the device sleeps for \(ScenarioPrinter.duration(duration)): Safari's timers stop with its monotonic clock")
        handle(.deviceSlept(duration))
        clock.sleep(for: duration)
        observe(.deviceSlept)
        trace.record(now, "harness", "the device wakes")
    }

    /// Web Inspector attached to the background (or closed): while it is, Safari never unloads it.
    func inspectBackground(_ attached: Bool) { handle(attached ? .inspectorOpened : .inspectorClosed) }

    /// A new version of the extension is installed (`version`, or the installed one with its
    /// last number one higher): its background goes, then loads again for
    /// `runtime.onInstalled` with `storage.session`, the alarms and the saved listeners cleared.
    func updateExtension(to version: String? = nil) {
        handle(.extensionUpdating)
        handle(.extensionUpdated(version: version))
    }

    /// The same, with another folder's files (an extension's JavaScript), as the version their
    /// manifest gives: the backgrounds, and the pages that load, from then on run them.
    func updateExtension(installing folder: ExtensionVersion.Folder) {
        handle(.extensionUpdating)
        trace.record(now, "harness", "the update installs the extension in \(folder.written), version \(folder.version)")
        processes.installedExtension = folder.path
        safari.manifestVersion = folder.version
        actionDefaults = folder.actionDefaults
        commandNames = Set(folder.commandNames)
        optionsPage = folder.optionsPage
        handle(.extensionUpdated(version: folder.version))
    }

    /// Brings another Safari profile to the front: the extension instance of the one that was
    /// in front is unloaded and its tabs and popup go out of sight; the other profile's tabs
    /// come back (each page asks, being visible again) over its own extension storage.
    func switchProfile(_ name: String) {
        guard name != profile else { return }
        handle(.profileLeftFront)
        // What is still queued for its background, once its death has been played out (a page
        // it answered with nothing may ask again).
        let queued = clock.queue.backgroundEvents
        clock.queue.removeAll(of: [.backgroundInput, .storageCompletion])
        clock.timers = [:]
        observe(.noAnswerOwed(nil))
        files.makeStorageFolder(name)
        handle(.profileCameToFront(name, queued: queued))
    }

    /// Opens a tab in a window (the front one by default; iOS has one) and makes it active there.
    /// `html`: the document the page shows at `url` (a scenario's `html=FILE`); nil, a plain page.
    package func openTab(_ id: TabID, url: String, nativeDark: Bool = false, window: Int? = nil, html: String? = nil) {
        pageDocuments[safari.pageKey(id)] = html.map { (url, $0) }
        // Safari numbers its tabs as it opens them (`tabs.Tab.id`), from 1 in the run.
        tabsOpened += 1
        tabNumbers[safari.pageKey(id)] = tabsOpened
        handle(.tabOpened(id, url: url, nativeDark: nativeDark, window: window))
    }

    /// The numbers of the front profile's tabs by name: every tab it opened in the run, the
    /// closed ones too (an event about a closed tab still names its number).
    var activeTabName: String? { safari.activeTab?.rawValue }

    var safariWindows: SafariWindows {
        SafariWindows(tabURLs: Dictionary(uniqueKeysWithValues: safari.tabs.map { ($0.key.rawValue, $0.value.url) }),
                      tabWindows: Dictionary(uniqueKeysWithValues: safari.tabs.map { ($0.key.rawValue, $0.value.window) }),
                      activeTabs: safari.activeTabs.mapValues(\.rawValue), front: safari.frontWindow,
                      focused: safari.safariInForeground ? safari.frontWindow : nil, action: safari.action)
    }

    var tabIds: [String: Int] {
        var ids: [String: Int] = [:]
        for (key, number) in tabNumbers where key.profile == profile { ids[key.tab.rawValue] = number }
        return ids
    }

    /// The page reloads: its content script starts over and asks for a decision.
    func reloadTab(_ id: TabID) { handle(.tabReloaded(id)) }

    /// The tab goes to another page: its content script starts over there and asks.
    func navigateTab(_ id: TabID, to url: String, html: String? = nil) {
        pageDocuments[safari.pageKey(id)] = html.map { (url, $0) }
        handle(.tabNavigated(id, url: url))
    }

    package func activateTab(_ id: TabID) { handle(.tabActivated(id)) }

    /// The user presses the keys of the extension's command `name`.
    func pressCommand(_ name: String) { handle(.commandPressed(name)) }

    /// The user clicks the extension's toolbar item over the tab.
    func clickAction(over tab: TabID) { handle(.actionClicked(tab)) }

    /// The user chooses the extension's menu item `id` on the tab's page.
    func chooseMenuItem(_ id: String, in tab: TabID) { handle(.menuItemChosen(id, tab)) }

    func closeTab(_ id: TabID) {
        guard tabs[id] != nil else { return }
        observe(.noAnswerOwed(id))
        handle(.tabClosed(id))
    }

    /// The extension's `tabs.create`, `update`, `reload` or `remove`, done as the user would do
    /// it: the tab it concerns (none for `remove`), or why it could not (WebKit's words). A tab
    /// the extension opens is named `x1`, `x2`, … in the order it opens them, so that steps and
    /// expectations can name it; the trace gives its name and its id. `by`: who asked, as the
    /// trace names it.
    func tabsCallDone(_ call: ExtensionWire.TabsCall, by: String) -> (tab: TabID?, error: String?) {
        func notFound(_ method: String, _ tab: TabID) -> String { "Invalid call to tabs.\(method)(). Tab not found: \(tab.rawValue)." }
        switch call {
        case .create(let url, let active):
            return (openExtensionTab(url: url, active: active, by: by), nil)
        case .update(let tab, let url, let active):
            guard tabs[tab] != nil else { return (nil, notFound("update", tab)) }
            if let url { navigateTab(tab, to: url) }
            if active == true { activateTab(tab) }
            return (tab, nil)
        case .reload(let tab):
            guard tabs[tab] != nil else { return (nil, notFound("reload", tab)) }
            reloadTab(tab)
            return (tab, nil)
        case .remove(let closing):
            if let missing = closing.first(where: { tabs[$0] == nil }) { return (nil, notFound("remove", missing)) }
            for tab in closing { closeTab(tab) }
            return (nil, nil)
        case .inject, .requestPermissions:
            preconditionFailure("not a call on Safari's tabs: \(call)")
        }
    }

    /// The background's `tabs.create`, `update`, `reload` or `remove`, done as the user would
    /// do it (`tabsCallDone`), then answered to that incarnation (`tabsAnswered`, which wakes
    /// nothing). A script or a style sheet for a tab's page goes to the page host, and is
    /// answered when the page did it (`injected`).
    func extensionTabsCall(incarnation: Int, request: Int, _ call: ExtensionWire.TabsCall) {
        func answer(_ tab: TabID?, error: String? = nil) {
            let url = tab.flatMap { tabs[$0]?.url }
            clock.queue.append(.backgroundInput(.tabsAnswered(request: request, tab: error == nil ? tab : nil, url: error == nil ? url : nil, error: error),
                                                for: incarnation))
        }
        switch call {
        case .requestPermissions:
            // Safari's own (a prompt: `SafariMachine.askPermission`); never handed here.
            preconditionFailure("a permission request is Safari's to prompt for")
        case .create, .update, .reload, .remove:
            let done = tabsCallDone(call, by: "background#\(incarnation)")
            answer(done.tab, error: done.error)
        case .inject(let kind, let tab, let injection):
            inject(kind, injection, into: tab, for: .background(incarnation: incarnation, request: request))
        }
    }

    /// Who asked for an injection: a background's call numbered `request`, or an extension
    /// page's numbered `id`.
    enum InjectionAsker {
        case background(incarnation: Int, request: Int)
        case page(PageHost.Page, id: Int)
    }

    /// A script or a style sheet for a tab's page (`scripting.executeScript` and kin), from the
    /// background or one of the extension's pages: it goes to the page host, and is answered
    /// when the page did it (`injected`), or at once with WebKit's words
    /// (`WebExtensionContext::scriptingExecuteScript` and kin; the realm says which call they
    /// answer).
    func inject(_ kind: ExtensionWire.InjectionKind, _ injection: ExtensionWire.Injection, into tab: TabID, for asker: InjectionAsker) {
        guard tabs[tab] != nil else { return injectionAnswered(asker, results: nil, error: "tab not found") }
        guard safari.runsOwnPages, !pagesFailed else {
            return injectionAnswered(asker, results: nil, error: kind == .executeScript ? "could not execute script on this tab" : "could not inject stylesheet on this tab")
        }
        injectionsSent += 1
        injections[injectionsSent] = asker
        let what = switch injection {
        case .function: "a function"
        case .files(let files): files.joined(separator: ", ")
        case .code: "code"
        }
        let verb = switch kind {
        case .executeScript: "runs"
        case .insertCSS: "adds the style sheet"
        case .removeCSS: "removes the style sheet"
        }
        let who = switch asker {
        case .background(let incarnation, _): "background#\(incarnation)"
        case .page(let page, _): page.name
        }
        trace.record(now, "safari", "\(who) \(verb) \(what) in tab \(tab.rawValue)'s page")
        toPages(.inject(safari.pageKey(tab), request: injectionsSent, kind, injection))
    }

    /// An injection is done, or could not be: what each run gave, or why not, goes to who asked.
    func injectionAnswered(_ asker: InjectionAsker, results: JSONValue?, error: String?) {
        switch asker {
        case .background(let incarnation, let request):
            clock.queue.append(.backgroundInput(.tabsAnswered(request: request, tab: nil, url: nil, error: error, results: results), for: incarnation))
        case .page(_, let id):
            toPages(.tabsAnswered(id: id, tab: nil, error: error, results: results))
        }
    }

    /// A tab the extension opens (`tabs.create`, `runtime.openOptionsPage`), named `x1`, `x2`,
    /// … in the order it opens them; `by`: who asked, as the trace names it.
    func openExtensionTab(url: String, active: Bool, by: String) -> TabID {
        var name: TabID
        repeat {
            extensionTabsOpened += 1
            name = TabID("x\(extensionTabsOpened)")
        } while tabs[name] != nil
        let front = safari.activeTab
        openTab(name, url: url)
        trace.record(now, "safari", "tab \(name.rawValue) (id \(tabNumbers[safari.pageKey(name)] ?? 0)) is the one \(by) opened")
        if !active, let front { activateTab(front) }
        return name
    }

    /// The user opens the extension's options page from Safari's settings: in a new tab named
    /// `options`, in front (as WebKit's `runtimeOpenOptionsPage` opens it). An extension with
    /// none opens nothing, and the trace says so.
    func openOptionsPage() {
        guard let page = optionsPage else {
            trace.record(now, "safari", "the extension has no options page: nothing opens")
            return
        }
        trace.record(now, "safari", "the user opens the extension's options page (\(page)) from Safari's settings")
        openTab(.options, url: ExtensionManifest.pageURL(page))
    }

    /// The user clicks an element of a tab's page, or picks an option in it: a page the user
    /// sees, its window's active tab. One that is not is a step the user cannot take, which
    /// fails the run.
    func useInTab(_ id: TabID, _ gesture: SafariMachine.PopupGesture) {
        let written = "tab \(gesture.verb) \(id.rawValue)"
        guard let tab = tabs[id] else { return monitor.record("\(written): tab \(id.rawValue) is not open") }
        guard safari.activeTabs[tab.window] == id else {
            return monitor.record("\(written): the tab is not its window's active tab, so the user cannot reach its page (bring it with 'tab activate \(id.rawValue)')")
        }
        handle(.tabPageUsed(id, gesture))
    }

    /// The user answers the oldest permission prompt (`permission grant`, `permission refuse`).
    /// With none on screen there is nothing to answer: the step is one the user cannot take,
    /// which fails the run.
    func answerPermissionPrompt(granted: Bool) {
        guard !safari.permissionPrompts.isEmpty else {
            return monitor.record("permission \(granted ? "grant" : "refuse"): no permission prompt is pending (permissions.request, from the background or an extension page, shows one)")
        }
        handle(.permissionPromptAnswered(granted: granted))
    }

    /// The user takes back, in Safari's settings, a permission or a host pattern they granted
    /// (`permission revoke ITEM`): the extension hears it (`permissions.onRemoved`). One the
    /// user did not grant is a step the user cannot take, which fails the run.
    func revokePermission(_ item: String) {
        let removed: RunFiles.Grants
        do {
            removed = try files.revoke(item, profile: safari.profile)
        } catch {
            return monitor.record("permission revoke \(item): the kept permissions could not be written: \(error)")
        }
        guard !removed.isEmpty else {
            let (kept, _) = files.grants(profile: safari.profile)
            let granted = (kept.permissions + kept.origins).joined(separator: ", ")
            return monitor.record("permission revoke \(item): the user granted no such thing (\(granted.isEmpty ? "nothing is granted" : "granted: \(granted)"))")
        }
        trace.record(now, "safari", "the user takes back \(item) in Safari's settings")
        handle(.permissionsChanged(added: false, permissions: removed.permissions, origins: removed.origins))
    }

    /// A prompt was answered, or went unanswered too long: what the user granted is kept with
    /// the profile's extension storage for good (`permissions.contains` and `getAll` read it),
    /// the extension hears what it had not been granted before (`permissions.onAdded`), and the
    /// background or page that asked hears the answer, if it is still there.
    func permissionsDecided(_ prompt: SafariMachine.PermissionPrompt, granted: Bool) {
        if granted {
            do {
                let kept = try files.grant(RunFiles.Grants(permissions: prompt.permissions, origins: prompt.origins), profile: safari.profile)
                if let problem = kept.problem { trace.record(now, "safari", problem) }
                if !kept.added.isEmpty { handle(.permissionsChanged(added: true, permissions: kept.added.permissions, origins: kept.added.origins)) }
            } catch {
                monitor.record("the granted permissions could not be kept: \(error)")
            }
        }
        switch prompt.asker {
        case .background(let incarnation, let request):
            clock.queue.append(.backgroundInput(.tabsAnswered(request: request, tab: nil, url: nil, error: nil, granted: granted), for: incarnation))
        case .page(_, let id):
            toPages(.permissionsAnswered(id: id, granted: granted))
        }
    }

    /// The content script of a tab detects (or stops detecting) a native dark theme after its
    /// first decision.
    func setNativeDark(_ id: TabID, _ nativeDark: Bool) { handle(.nativeDarkDetected(id, nativeDark)) }

    func setAppearance(_ value: Appearance) { handle(.appearanceChanged(value)) }

    // MARK: - The popup

    package func openPopup(on id: TabID) { handle(.popupOpened(id)) }

    /// The user picks which record the popup edits: host, domain or page (the key as written).
    func choosePopupScope(_ key: String) { handle(.popupScopeChosen(key)) }

    /// A change in the popup; its answer is in `edits` under the returned number.
    @discardableResult
    package func popupEdit(set: SiteValues = SiteValues(), reset: [SiteField] = []) -> Int {
        let number = edits.newNumber()
        handle(.popupEdited(set: set, reset: reset, edit: number))
        return number
    }

    /// "Forget this site": the popup deletes the selected scope's record.
    @discardableResult
    func popupForget() -> Int {
        let number = edits.newNumber()
        handle(.popupForgotSite(edit: number))
        return number
    }

    func closePopup() { handle(.popupClosed) }

    /// The user clicks an element of the extension's own popup, or picks an option in it.
    func useInPopup(_ gesture: SafariMachine.PopupGesture) { handle(.popupUsed(gesture)) }

    func popupPause(for duration: EpochMillis) { handle(.popupPaused(until: now + duration)) }

    // MARK: - The background

    /// Safari unloads the background without notice.
    func unloadBackground() { handle(.backgroundUnloadRequested) }

    /// Kills the background mid-work (a crash, not an unload: the same to the process).
    func killBackground() { handle(.backgroundKillRequested) }

    /// Freezes the background (SIGSTOP): it takes nothing and its timers stop until `thawBackground`.
    func freezeBackground() { handle(.backgroundFrozenByUser) }

    func thawBackground() { handle(.backgroundThawedByUser) }
}
