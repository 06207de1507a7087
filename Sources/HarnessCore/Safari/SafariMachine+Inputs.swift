import ProcessKit
import SiteSettings

/// What Safari takes (`Input`, and the times it asks to be woken at, `Due`) and what it asks its
/// shell to do (`Effect`).
extension SafariMachine {
    /// Something that happened, for Safari to act on.
    package enum Input: Equatable, Sendable {
        // MARK: The user and the operating system
        case tabOpened(TabID, url: String, nativeDark: Bool, window: Int?)
        case tabReloaded(TabID)
        case tabNavigated(TabID, url: String)
        case tabActivated(TabID)
        case tabClosed(TabID)
        /// The run begins, with Safari running and the extension loaded.
        case runBegan
        /// The user pressed the keys of the extension's command `name` (its manifest's `commands`).
        case commandPressed(String)
        /// The user clicked the extension's toolbar item over the tab.
        case actionClicked(TabID)
        /// The user chose the extension's menu item named `id` on the tab's page (its context menu).
        case menuItemChosen(String, TabID)
        /// The content script detected (or stopped detecting) a native dark theme.
        case nativeDarkDetected(TabID, Bool)
        case appearanceChanged(Appearance)
        case popupOpened(TabID)
        case popupScopeChosen(String)
        /// A change in the popup, with the number the harness gave it.
        case popupEdited(set: SiteValues, reset: [SiteField], edit: Int)
        case popupForgotSite(edit: Int)
        case popupPaused(until: EpochMillis)
        case popupClosed
        case safariCameToForeground
        /// Every timer that fell due while iOS Safari was suspended has fired (the shell's
        /// answer to `fireOverdueTimers`).
        case overdueTimersFired
        case safariWentToBackground
        /// Safari quits: its background is killed; `safariLaunched` follows, and forgets the rest
        /// of what lived in Safari's memory.
        case safariQuit
        /// Safari starts again and restores its tabs.
        case safariLaunched
        /// The front profile's window goes away; `profileCameToFront` follows.
        case profileLeftFront
        /// Another profile comes to the front, with the events the shell had queued for the
        /// background of the one that left.
        case profileCameToFront(String, queued: [ExtensionWire.Event] = [])
        case appCameToForeground
        case appWentToBackground
        case appQuit
        /// The app messages the extension (`SFSafariApplication.dispatchMessage`): the design's
        /// app with no payload (the settings changed), a team's app with `{name, userInfo}`.
        case appMessageSent(message: JSONValue? = nil)
        case backgroundUnloadRequested
        case backgroundKillRequested
        /// Web Inspector is attached to the loaded background (it detaches when that background
        /// goes), or closed.
        case inspectorOpened
        case inspectorClosed
        /// The extension is installed as the run starts (`fresh-install`): its background loads
        /// at once, for `runtime.onInstalled`.
        case extensionInstalled
        /// A new version of the extension is installing: its background goes; `extensionUpdated`
        /// follows.
        case extensionUpdating
        /// The update installed `version` (nil: the installed version with its last number one
        /// higher), the same files.
        case extensionUpdated(version: String? = nil)
        case backgroundFrozenByUser
        case backgroundThawedByUser
        /// The power failed: every process is gone, with Safari's memory.
        case powerLost
        /// The device slept this long and woke: the wall clock moved on, Safari's monotonic
        /// clock did not.
        case deviceSlept(EpochMillis)

        // MARK: Time
        case timeReached(Due)

        // MARK: The processes
        /// An event Safari queued (`dispatch`) comes up for the background; `for` names the
        /// incarnation it belongs to when it is not a page's or Safari's event (a reply, a
        /// timeout, a storage completion): no other incarnation ever takes it.
        case eventDue(ExtensionWire.Event, for: Int? = nil)
        /// The app's message, sent on the native port of background `incarnation`, arrives.
        case portMessageDue(incarnation: Int, message: JSONValue? = nil)
        case storageCompleted(incarnation: Int, token: Int)
        case backgroundStarted(incarnation: Int)
        /// The background finished an input with these directives.
        case backgroundFinished(incarnation: Int, [ExtensionWire.Output])
        /// The background process is gone; `stop` says how the scenario sees it (an unload, a kill).
        case backgroundDied(incarnation: Int, stop: BackgroundState)
        /// The popup's announcement to a background that did not know of it was cut short: the
        /// background stopped at a yield point or died.
        case popupAnnouncementInterrupted
        /// A native request the background sent comes up: Safari starts a handler for it or refuses it.
        case nativeRequestDue(NativeRequestID, NativeRequest, profile: String)
        /// The first version's extension sends a native message straight to a handler.
        case legacyRequestSent(NativeRequest)
        /// A request of the first version's extension will never be answered (a hung handler).
        case legacyRequestHung
        /// The handler serving a request ended without answering: Safari rejects the request.
        case handlerEndedWithoutAnswer(NativeRequestID)
        /// How a request ended (the handler's reply, or what stood in for it) arrives.
        case replyArrived(NativeRequestID, NativeOutcome)

        // MARK: The extension's own pages (`runsOwnPages`)
        /// A page sent the background a message (`runtime.sendMessage`), numbered by the pages.
        case pageMessageSent(id: Int, from: ExtensionWire.PageSender, message: JSONValue, userGesture: Bool = false)
        /// A page answered the message Safari numbered `id` (nil: with nothing); `unreachable`:
        /// there was no page, or it listens for no message.
        case pageAnswerSent(id: Int, answer: JSONValue?, unreachable: Bool = false)
        /// A page opened a port to the background (`runtime.connect`), numbered by the pages.
        case pagePortOpened(port: Int, name: String, from: ExtensionWire.PageSender)
        /// A page posted a message on its port.
        case pagePortPosted(port: Int, message: JSONValue)
        /// A page disconnected a port; `unheard`: it is one the background opened to the page's
        /// tab, and the page has no `runtime.onConnect` listener to take it.
        case pagePortClosed(port: Int, unheard: Bool = false)
        /// A page of the front profile changed extension storage: the background hears it
        /// (`storage.onChanged`, which wakes it: WebKit, `fireStorageChangedEventIfNeeded`).
        case pageStorageChanged(area: String, changes: JSONValue)
        /// One of the extension's own pages of the front profile made an alarm (`alarms.create`),
        /// or cleared one: Safari holds it as the background's, and the loaded background hears
        /// Safari's list (`alarmsChanged`).
        case pageAlarmSet(at: EpochMillis, name: String, period: EpochMillis?)
        case pageAlarmCleared(name: String)
        /// One of the extension's own pages of the front profile changed its menu items
        /// (`menus.create` and its kin): Safari makes the change in the list it holds, and the
        /// loaded background hears its list (`menusChanged`) before anything queued for it.
        case pageMenuChanged(MenuChange)
        /// One of the extension's own pages of the front profile set a property of its toolbar
        /// item (`action.setBadgeText` and its kin), for `tab` alone or for every tab (nil).
        case pageActionSet(tab: TabID?, property: ExtensionAction.Property, value: JSONValue)
        /// The user clicks an element of the extension's own open popup, or picks an option.
        case popupUsed(PopupGesture)
        /// The user clicks an element of a tab's page, or picks an option, in the front profile.
        case tabPageUsed(TabID, PopupGesture)
        /// The user answers the oldest permission prompt.
        case permissionPromptAnswered(granted: Bool)
        /// The extension's grants changed: the user granted it optional permissions or host
        /// patterns (`added`), or they were taken back (`permissions.remove` in one of its pages,
        /// or the user in Safari's settings). What changed, by name and by match pattern.
        case permissionsChanged(added: Bool, permissions: [String], origins: [String])
        /// One of the extension's own pages of the front profile sent tab `to`'s page a message
        /// (`tabs.sendMessage`), numbered `id` as its own messages are.
        case pageMessagedTab(id: Int, to: TabID, message: JSONValue)
        /// One of the extension's own pages of the front profile asked for permissions
        /// (`permissions.request`), its request numbered `id`.
        case pagePermissionsRequested(id: Int, from: PageHost.Page, permissions: [String], origins: [String])
        /// An event Safari started a background for is dropped: that background did not start.
        case eventDropped(ExtensionWire.Event)
    }

    /// What Safari's timers fire.
    package enum Due: Equatable, Sendable {
        /// The unload check, 30 s after the background was last woken.
        case idleUnload
        case alarm(String)
        /// The background's load ends (`background-load-time` after it began).
        case backgroundLoad
        /// The tab's content script's pause before it asks again ends.
        case pageAsksAgain(TabID)
        /// The oldest permission prompt has waited 2 minutes unanswered.
        case permissionPrompt

        /// Whether it is a page's own timer (it runs while the background is frozen).
        var isPages: Bool { if case .pageAsksAgain = self { true } else { false } }
    }

    /// What the shell carries out, in order.
    enum Effect: Equatable, Sendable {
        /// A line of Safari's in the trace.
        case note(SafariNote)
        /// Queue an event for the background; it comes back as `eventDue` in its turn.
        case dispatch(ExtensionWire.Event)
        /// Put events back before everything queued, in this order.
        case dispatchFirst([ExtensionWire.Event])
        /// Start the front profile's background and hand it this `started` event; report
        /// `backgroundStarted`, then its directives. If it cannot start, skip the effects that follow.
        case startBackground(ExtensionWire.Event)
        /// After `startBackground`: offer the event again to the background now loaded, or put
        /// it back first in the queue while that background waits at a yield point.
        case redispatch(ExtensionWire.Event)
        /// Hand the popup's opening (or its scope) to a background that does not know of it. If
        /// the background then waits at a yield point or is gone, put `then` back first in the
        /// queue, report `popupAnnouncementInterrupted`, and skip the effects that follow.
        case announcePopup(ExtensionWire.Event, then: ExtensionWire.Event)
        /// Hand the event to the loaded background.
        case deliver(ExtensionWire.Event)
        /// Kill the background process (an unload is a kill it gets no notice of); report
        /// `backgroundDied` with `stop`.
        case killBackground(reason: String, stop: BackgroundState)
        /// Stop the background process (SIGSTOP); `traced` when the trace should say so.
        case freezeBackground(traced: Bool)
        /// Let it go on (SIGCONT), hand it the events held for it, and let what waited go on.
        case thawBackground(traced: Bool, held: [Pending])
        /// Fire every timer that fell due while Safari was suspended, in order, then report
        /// `overdueTimersFired`.
        case fireOverdueTimers
        /// The app leaves the front: it is suspended.
        case suspendApp
        /// Queue the app's message on the native port of background `incarnation`; it comes back
        /// as `portMessageDue` in its turn.
        case queuePortMessage(incarnation: Int, message: JSONValue? = nil)
        /// The app's message found no native port open: its send fails (`NotConnected`).
        case appMessageNotConnected
        /// `storage.session` is gone for every profile.
        case dropSessionStorage
        /// Queue the completion of a storage operation of background `incarnation`.
        case completeStorage(incarnation: Int, token: Int)
        /// Queue a native request; it comes back as `nativeRequestDue` in its turn.
        case queueNativeRequest(NativeRequestID, NativeRequest, profile: String)
        /// Start a handler process for the request.
        case startHandler(NativeRequestID, NativeRequest, profile: String)
        /// Start a handler for the first version's extension's message.
        case startLegacyHandler(NativeRequest)
        /// Queue an answer Safari gives in the handler's place.
        case queueReply(NativeRequestID, NativeOutcome)
        /// The background's own timer (a native request's timeout, a script's `setTimeout`),
        /// set or cancelled.
        case setTimer(TimerID, at: EpochMillis)
        case cancelTimer(TimerID)
        /// The background sent the tab a decision (shown by the tab, if it is open here).
        case decisionSent(TabID, Decision)
        /// The background answered a popup change.
        case popupAnswered(edit: Int, saved: Bool?, scope: ScopeKey?)
        /// The background reached a reconciliation point (invariants 7 and 8 time it).
        case reconciliationPoint(String, invariant: Int)

        // MARK: The extension's own pages (`runsOwnPages`), for the shell's page host
        /// The tab's page loads (again): a fresh page with its content scripts, shown or not.
        case loadPage(PageKey, url: String, visible: Bool, nativeDark: Bool = false)
        /// The page's own dark theme appeared or went (`<meta name="color-scheme">`).
        case pageNativeDark(PageKey, Bool)
        case closePage(PageKey)
        /// The page's `visibilityState` changes.
        case showPage(PageKey, visible: Bool)
        /// The system's appearance changed: every page's `prefers-color-scheme` follows.
        case pagesAppearance(Appearance)
        /// The answer to a page's message (nil: `undefined`).
        case answerPage(id: Int, answer: JSONValue?)
        /// The background's message for a tab's page or the popup, numbered by Safari.
        case messagePage(PageHost.Page, id: Int, message: JSONValue)
        case openPopupPage(TabID, page: String? = nil)
        /// Close the popup's page; `hides`: it hears `visibilitychange` and `pagehide` first,
        /// as when the user closes it. A popup that goes with its profile or with Safari hears
        /// nothing: what it would say then could reach no background that runs.
        case closePopupPage(hides: Bool)
        /// The user's click or pick in the popup's page or a tab's.
        case useInPage(PageHost.Page, PopupGesture)
        /// Safari answers the background that asked with the user's answer to its prompt, and
        /// keeps what was granted.
        case permissionsDecided(PermissionPrompt, granted: Bool)
        /// Queue a page's answer for background `incarnation`: its message `id` (its number).
        case answerBackground(incarnation: Int, id: Int, answer: JSONValue?, unreachable: Bool = false)
        /// The background posted a message on a page's port.
        case messageOnPagePort(PageHost.Page, port: Int, message: JSONValue)
        /// A page's port is disconnected at the background's end (the background disconnected it
        /// or died), or could not connect (`error`: why, as `runtime.lastError` says it).
        case pagePortDisconnected(PageHost.Page, port: Int, error: String?)
        /// The background opened a port to the tab's page (`tabs.connect`), numbered `port` at
        /// the page's end, with the name it gave it; the page's `runtime.onConnect` takes it, or
        /// the page disconnects it unheard. `number`: the background's own number for it.
        case connectPage(PageKey, port: Int, name: String, number: Int)
        /// The background changed extension storage: the pages of `profile` hear it
        /// (`storage.onChanged`).
        case pagesStorageChanged(area: String, changes: JSONValue, profile: String)
        /// The extension's grants changed: the pages of `profile` hear it
        /// (`permissions.onAdded`, `onRemoved`).
        case pagesPermissionsChanged(added: Bool, permissions: [String], origins: [String], profile: String)
        /// The user clicked the toolbar item over the tab where it has no popup: the pages of
        /// `profile` hear it (`action.onClicked`), as the background does.
        case pagesActionClicked(TabID, profile: String)
        /// Another of Safari's windows has focus (-1: none, another app is in front): the pages of
        /// `profile` hear it (`windows.onFocusChanged`), as the background does.
        case pagesWindowFocus(window: Int, profile: String)
        /// A tab's event (`tabCreated`, `tabUpdated`, `tabActivated`, `tabClosed`, or a stage of
        /// its load, `navigated`) in `window`: the pages of `profile` hear it (`tabs.onCreated` and
        /// its kin, `webNavigation`'s events), as the background does.
        case pagesTabEvent(ExtensionWire.Event, window: Int, profile: String)
        /// The alarms Safari holds for the extension in `profile` changed, or that profile came
        /// to the front: its pages read them now (`alarms.get`, `getAll`).
        case pagesAlarmsChanged([String: ExtensionWire.Alarm], profile: String)
        /// An alarm fell due: the pages of `profile` hear it (`alarms.onAlarm`), as the background does.
        case pagesAlarmFired(String, profile: String)
        /// The menu items Safari holds for the extension in `profile` changed, or that profile
        /// came to the front: its pages read them now (`menus.update` and its kin check them).
        case pagesMenusChanged([ExtensionMenuItem], profile: String)
        /// The user chose one of the extension's menu items (`event`: the background's
        /// `menuClicked`): the pages of `profile` hear it (`menus.onClicked`), as the background does.
        case pagesMenuClicked(ExtensionWire.Event, profile: String)
        /// The user pressed the keys of the extension's command `name`, over the front window's
        /// active tab: the pages of `profile` hear it (`commands.onCommand`), as the background does.
        case pagesCommandPressed(String, tab: TabID?, profile: String)
        /// What the extension set on its toolbar item in `profile` changed, or that profile came
        /// to the front: its pages read it now.
        case pagesActionChanged(ExtensionAction, profile: String)
        /// The background asked Safari to open, change, reload or close tabs (`tabs.create`,
        /// ...): the shell does it as the user would, and answers `tabsAnswered` to that
        /// incarnation.
        case extensionTabsCall(incarnation: Int, request: Int, ExtensionWire.TabsCall)
    }
}
