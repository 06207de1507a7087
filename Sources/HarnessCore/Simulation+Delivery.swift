import ProcessKit
import SiteSettings

/// How the simulation carries messages between Safari, the OS and the processes: events
/// delivered to the background (starting it when needed), directives carried out, one handler
/// started per native request, and where each input leaves a process (finished, waiting at a
/// yield point, dead), as the yield arbiter decides.
extension Simulation {
    // MARK: - Delivery

    func askForDecision(_ id: TabID) {
        guard let tab = tabs[id] else { return }
        safari.tabs[id]?.awaitingAnswer = true
        if safari.tabs[id]?.waitingSince == nil { safari.tabs[id]?.waitingSince = now }
        event(.tabRequestedDecision(id, url: tab.url, nativeDark: tab.nativeDark))
    }

    /// An event for the background: Safari starts it if needed and queues the event meanwhile.
    func event(_ input: ExtensionWire.Event) {
        clock.queue.append(.backgroundInput(input))
    }

    /// Hands an input to the background: Safari starts one for an event that wakes it; what
    /// does not wake it (a storage completion, a native reply, a timeout, a port message) finds
    /// no background and is dropped.
    func deliverToBackground(_ input: ExtensionWire.Event) {
        if safari.isBackgroundFrozen {
            // A frozen background takes nothing until it thaws.
            heldForBackground.append(input)
            return
        }
        if background == nil {
            guard input.wakesTheBackground else {
                trace.record(now, "safari", "\(input.name) dropped: no background is loaded")
                return
            }
            if let listener = input.listener, let saved = savedListeners[profile], !saved.contains(listener) {
                // Safari wakes a background only for an event it listens for
                // (`wakeUpBackgroundContentIfNecessaryToFireEvents`).
                trace.record(now, "safari", "\(input.name) wakes nothing: the background does not listen for \(listener.rawValue)")
                return
            }
            guard let started = start(.background) else { return }
            background = started
            clock.timers = [:]
            registeredListeners = []
            answeredRequests = []
            timedOutRequests = []
            // Loading re-arms the unload timer too (`performTasksAfterBackgroundContentLoads`).
            clock.lastWake = now
            monitor.backgroundStarted(started.label, profile: profile, withCache: storedLocal?.cache != nil, now: now)
            complete(begin(started, .started(appearance: appearance, tabs: tabs.mapValues(\.url), appMessages: platform == .macOS)),
                     driver: started, role: .background)
            reconciliationReached("background#\(started.incarnation) started", invariant: 7)
        }
        guard let background else {
            trace.record(now, "safari", "background did not start; event dropped", ExtensionWire.encode(input))
            return
        }
        if arbiter.isWaiting(background.label) {
            // The start itself stopped at a yield point: the event waits for it.
            clock.queue.pushFront(.backgroundInput(input))
            return
        }
        if let listener = input.listener, !registeredListeners.contains(listener) {
            // An event that arrives before its listener exists is lost; it re-arms nothing.
            trace.record(now, "safari", "\(input.name) lost: background#\(background.incarnation) has no \(listener.rawValue) listener")
            return
        }
        if input.wakesTheBackground { clock.lastWake = now }
        if case .tabRequestedDecision(let tab, _, _) = input { monitor.backgroundTook(requestFrom: tab.rawValue) }
        if input.isFromThePopup {
            if case .popupOpened = input {
                safari.popupKnownTo = background.incarnation
            } else if let tab = popupTab, safari.popupKnownTo != background.incarnation {
                // The popup stays open across an unload; a new background learns of it from the
                // popup's next message, which names its tab.
                var announcements: [ExtensionWire.Event] = [.popupOpened(tab)]
                if let scope = safari.popupScope, !input.isScopeChoice { announcements.append(.popupChoseScope(scope: scope)) }
                for announcement in announcements {
                    complete(begin(background, announcement), driver: background, role: .background)
                    guard let current = self.background, current === background, !arbiter.isWaiting(background.label) else {
                        clock.queue.pushFront(.backgroundInput(input))
                        return
                    }
                }
                safari.popupKnownTo = background.incarnation
            }
        }
        if case .nativeReply(let request, let message) = input {
            // Counted as the background takes it: one held for a frozen background is not yet
            // before anything (invariant 5, and a page's first decision).
            nativeRepliesDelivered += 1
            monitor.nativeReplyArrives(incarnation: background.incarnation, now: now)
            answeredRequests.insert(request)
            // A valid snapshot in time becomes the cache (a late one is dropped): its next save
            // of storage.local must keep it for the next background (invariant 5).
            if !timedOutRequests.contains(request), case .object(let reply) = message, reply["type"] == .string("snapshot"),
               let document = reply["document"], let snapshot = try? DocumentCodec.decode(document).document {
                monitor.snapshotTaken("the snapshot of revision \(snapshot.revision) it took at \(trace.time(now))")
            }
        }
        complete(begin(background, input), driver: background, role: .background)
        if case .nativeTimeout(let request) = input {
            timedOutRequests.insert(request)
            // A timeout for a request already answered (its timer fired while the answer was
            // still being handled, held at a yield point) ends nothing: no recovery follows.
            if !answeredRequests.contains(request) { recoveryOwedBy = background.incarnation }
        } else if recoveryOwedBy == background.incarnation, !input.isNativeExchange {
            // The first input after a native timeout that is not itself a native exchange is
            // the background's recovery (`BackgroundMachine.recoveryDue`).
            recoveryOwedBy = nil
            reconciliationReached("the first event after a native timeout", invariant: 7)
        }
        switch input {
        case .safariForeground: reconciliationReached("Safari came to the front", invariant: 7)
        case .tabActivated(let tab): reconciliationReached("tab \(tab.rawValue) was activated", invariant: 7)
        case .appMessage: reconciliationReached("the app's change arrived on the port", invariant: 8)
        default: break
        }
    }

    /// Sends the background one event (written out, on a pipe, as its codec writes it). A debug
    /// build (the tests) checks that reading that back gives the event: a process reading it
    /// from its pipe takes what it reads.
    func begin(_ driver: ProcessDriver, _ event: ExtensionWire.Event) -> ProcessDriver.Step {
        #if DEBUG
        if (try? ExtensionWire.decode(ExtensionWire.encode(event))) != event {
            monitor.record("the event for \(driver.label) reads back from its JSON as another: \(String(decoding: JSONWriter.compact(ExtensionWire.encode(event)), as: UTF8.self))")
        }
        #endif
        return driver.begin(event: event, now: now)
    }

    func backgroundDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver) {
        backgroundDeathsInARow = 0
        let outputs: [ExtensionWire.Output]
        if let typed = directives.background {
            outputs = checked(typed, directives, from: driver, ExtensionWire.directive)
        } else {
            outputs = directives.json.compactMap { json in
                do { return try ExtensionWire.directive(json) } catch {
                    trace.record(now, "safari", "unreadable directive: \(error)", json)
                    return nil
                }
            }
        }
        for output in outputs {
            switch output {
            case .storagePending(let token):
                clock.queue.append(.storageCompletion(incarnation: driver.incarnation, token: token))
            case .machine(let directive):
                carryOut(directive, from: driver)
            }
        }
    }

    /// What Safari does with a directive of the background's.
    func carryOut(_ directive: BackgroundMachine.Directive, from driver: ProcessDriver) {
        switch directive {
        case .sendNative(let request, let message):
            clock.queue.append(.nativeRequest(incarnation: driver.incarnation, request: request, message: message, profile: profile))
        case .setTimer(.nativeTimeout(let request), let at):
            clock.timers[Scheduler.NativeRequestID(incarnation: driver.incarnation, request: request)] = at
        case .cancelTimer(.nativeTimeout(let request)):
            clock.timers[Scheduler.NativeRequestID(incarnation: driver.incarnation, request: request)] = nil
        case .listen(let events):
            registeredListeners = Set(events)
            savedListeners[profile] = Set(events)
        case .connectNative:
            // The port lives as long as this incarnation (WebKit disconnects a page's ports when
            // it closes); opening it counts as port activity for the unload check.
            clock.nativePort = Scheduler.NativePort(incarnation: driver.incarnation, lastActivity: now)
        case .setAlarm(let at):
            if at < now + alarmMinimum { trace.record(now, "safari", "alarm raised to the minimum delay, \(alarmMinimum / 1000) s") }
            clock.alarm = max(at, now + alarmMinimum)
        case .sendDecision(let tab, let decision):
            monitor.decisionSent(to: tab.rawValue)
            if tabs[tab] == nil { trace.record(now, "safari", "tab \(tab.rawValue) is not open here: its decision is dropped") }
            safari.apply(decision, to: tab, now: now, repliesDelivered: nativeRepliesDelivered)
        case .showPopup(let view):
            safari.popup = view
        case .popupAnswer(let number, let saved, let scope):
            // `saved` nil: the save failed, perhaps after it took effect (no answer).
            if let saved { editAnswers[number] = saved }
            if let scope { popupEditScopes[number] = scope.text }
        case .loadStorage, .saveLocalStorage, .saveSessionStorage:
            // The process does its storage work itself; these never travel.
            trace.record(now, "safari", "unexpected storage directive", ExtensionWire.json(directive))
        }
    }

    /// The first version's extension (not yet updated) sends `getEnabled` or `toggleEnabled`
    /// straight to a native handler, as its background did.
    public func legacyMessage(_ message: NativeRequest) {
        lastLegacyAnswer = nil
        guard mayStartNativeRequest() else { return }
        handlerSpawns += 1
        guard let handler = start(.handler) else { return }
        complete(handler.begin(NativeHandlerWire.encode(.nativeRequest(message.json, profile: profile)), now: now), driver: handler, role: .legacy)
    }

    /// Safari starts one handler process per native request.
    func serveNativeRequest(incarnation: Int, request: Int, message: NativeRequest, profile: String) {
        guard mayStartNativeRequest() else {
            return clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.tooManyRequests))
        }
        activeNativeRequests.insert(Scheduler.NativeRequestID(incarnation: incarnation, request: request))
        handlerSpawns += 1
        guard let handler = start(.handler) else { return }
        complete(handler.begin(NativeHandlerWire.encode(.nativeRequest(message.json, profile: profile)), now: now), driver: handler,
                 role: .handler(incarnation: incarnation, request: request))
    }

    /// Whether Safari takes one more native request: it refuses it at once while the most it
    /// allows are in flight.
    func mayStartNativeRequest() -> Bool {
        let active = activeNativeRequests.count + hungLegacyRequests
        guard active >= Self.maximumActiveNativeRequests else { return true }
        trace.record(now, "safari", "refused a native request: \(active) in flight")
        return false
    }

    func handlerDirectives(_ directives: ProcessDriver.Directives, from handler: ProcessDriver, incarnation: Int, request: Int) {
        if handlerBehaviour == .crashing(afterWrite: true) {
            kill(handler, reason: "crashed before replying")
            clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.rejection))
            return
        }
        handler.finish()
        for directive in decoded(directives, directives.handler, from: handler, NativeHandlerWire.directive) {
            switch directive {
            case .reply(let reply):
                let work = Scheduler.Work.nativeReply(incarnation: incarnation, request: request, message: reply.json)
                switch handlerBehaviour {
                case .healthy, .crashing: clock.queue.append(work)
                case .garbage:
                    trace.record(now, handler.label, "reply replaced by garbage")
                    let garbage = Self.garbageReplies[garbageSent % Self.garbageReplies.count]
                    garbageSent += 1
                    clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: garbage))
                case .slow(let delay): clock.delayedReplies.append((now + delay, work))
                case .hung: trace.record(now, handler.label, "reply withheld (hung)")
                }
            case .postChangeNotification:
                // Darwin notifications reach only a running app that is not suspended.
                if app != nil && safari.appInForeground { clock.queue.append(.appInput(.changeNotification)) }
            case .container:
                trace.record(now, "harness", "unexpected container directive from \(handler.label)")
            }
        }
    }

    func deliverToApp(_ input: AppWire.Event, edit: Int?) {
        guard let app else { return }
        if let edit {
            appEditsUnanswered.append(edit)
            appEditTimes[edit] = now
        }
        complete(app.begin(AppWire.encode(input), now: now), driver: app, role: .app)
    }

    func appDirectives(_ directives: ProcessDriver.Directives, from app: ProcessDriver) {
        for directive in decoded(directives, directives.app, from: app, AppWire.directive) {
            switch directive {
            case .showView(let view):
                safari.appView = view
            case .editSaved, .editRefused:
                lastEditAnswer = directive
                guard !appEditsUnanswered.isEmpty else { break }
                let edit = appEditsUnanswered.removeFirst()
                switch directive {
                case .editRefused(.storageFailure, _):
                    // A storage failure may have struck after the write took effect: no answer
                    // for the oracle, though the app told the user it failed.
                    appAnswers[edit] = .refused
                case .editRefused:
                    appAnswers[edit] = .refused
                    editAnswers[edit] = false
                default:
                    appAnswers[edit] = .saved
                    editAnswers[edit] = true
                }
            case .messageExtension:
                pushToTheExtension(from: app)
            case .container:
                trace.record(now, "harness", "unexpected container directive from \(app.label)")
            }
        }
    }

    /// The app messages the extension (`SFSafariApplication.dispatchMessage`, macOS only: "You
    /// can't send messages from a containing iOS app to your web extension's JavaScript"). It
    /// arrives on the native port a loaded background opened and holds (`port.onMessage`); an
    /// unloaded background, or one without the port, misses it and the app's send fails
    /// (`WebExtensionMessagePort::sendMessage` answers `NotConnected`). It wakes nothing and
    /// re-arms no unload timer; whether Safari's own layer would wake the background is not
    /// known, so the stricter reading is taken.
    private func pushToTheExtension(from app: ProcessDriver) {
        guard platform == .macOS else { return }
        guard let background, clock.nativePort?.incarnation == background.incarnation else {
            trace.record(now, app.label, "message to the extension failed: no native port is open (NotConnected)")
            return
        }
        clock.queue.append(.portMessage(incarnation: background.incarnation))
    }

    /// A process's directives as its machine made them: in process as they were handed over,
    /// else read from the JSON it wrote with its codec (one that does not read is traced and
    /// skipped).
    func decoded<Directive: Equatable>(_ directives: ProcessDriver.Directives, _ typed: [Directive]?, from driver: ProcessDriver,
                                       _ read: (JSONValue) throws(NativeMessageError) -> Directive) -> [Directive] {
        if let typed { return checked(typed, directives, from: driver, read) }
        return directives.json.compactMap { json in
            do { return try read(json) } catch {
                trace.record(now, "harness", "unreadable directive from \(driver.label): \(error)", json)
                return nil
            }
        }
    }

    /// Directives handed over in process. A debug build (the tests) also reads their JSON back
    /// and records a problem when that differs (by `==`, so up to the canonical equivalence of
    /// strings): the process transport would carry out what the JSON says, so both transports
    /// must see the same directives. A release build trusts the codec the tests hold to that.
    func checked<Directive: Equatable>(_ typed: [Directive], _ directives: ProcessDriver.Directives, from driver: ProcessDriver,
                                       _ read: (JSONValue) throws(NativeMessageError) -> Directive) -> [Directive] {
        #if DEBUG
        let readBack = directives.json.map { try? read($0) }
        if readBack != typed.map(Optional.some) {
            let written = directives.json.map { String(decoding: JSONWriter.compact($0), as: UTF8.self) }.joined(separator: ", ")
            monitor.record("\(driver.label)'s directives read back from their JSON differ from those it gave: \(written)")
        }
        #endif
        return typed
    }

    // MARK: - Processes

    /// Starts the next incarnation of a process, or records why it could not: a run that cannot
    /// start one of its processes has failed, and the problem names the executable. The trace,
    /// which never holds a path, says only which incarnation did not start.
    func start(_ name: ProcessName) -> ProcessDriver? {
        do {
            let driver = try launcher.start(name, storageDirectory: storageDirectory, storageFolder: Self.storageFolder(profile))
            driver.policy = { [unowned self, unowned driver] point in self.decide(driver, at: point) }
            driver.flaws = flaws.map(\.rawValue).sorted()
            return driver
        } catch {
            let label = "\(name.rawValue)#\(launcher.incarnation(of: name))"
            trace.record(now, label, "could not start")
            monitor.record(error is ChildProcess.SpawnError ? "\(error)" : "cannot start \(label): \(error)")
            return nil
        }
    }

    /// The arbiter's verdict for a process at a yield point, as the driver carries it out.
    func decide(_ driver: ProcessDriver, at point: YieldPoint) -> ProcessDriver.YieldChoice {
        unsyncedAtArrivals.append(transport == .inProcess ? disk.unsynced.count : 0)
        let crashingHandler = driver.name == .handler && handlerBehaviour == .crashing(afterWrite: false)
        switch arbiter.arrive(driver.name, label: driver.label, at: point, crashingHandler: crashingHandler) {
        case .proceed:
            passed(driver, point, failing: false, after: false)
            return .proceed
        case .fail(let errno, let after):
            passed(driver, point, failing: true, after: after)
            return after ? .failAfter(errno: errno) : .fail(errno: errno)
        case .kill: return .kill
        case .wait: return .hold
        case .cutPower(let plan):
            // The power fails with this process at this point: it and everyone else stop here.
            disk.cutPowerNow(keeping: plan.keep)
            return .kill
        }
    }

    /// What invariant 5 learns from the background going on past a yield point of its storage:
    /// a read that fails leaves it with no cache; a rename that takes effect saves `storage.local`.
    func passed(_ driver: ProcessDriver, _ point: YieldPoint, failing: Bool, after: Bool) {
        guard driver === background else { return }
        if point == .storageRead && failing { monitor.cacheUnreadable(profile: profile) }
        if point == .storageRename && (!failing || after) { monitor.localSaved(profile: profile, by: driver.label, at: trace.time(now)) }
    }

    /// Carries out where an input left a process.
    func complete(_ step: ProcessDriver.Step, driver: ProcessDriver, role: Role) {
        if transport == .inProcess && disk.generation != bootGeneration {
            // The power failed while this step ran: whatever it produced is lost with it.
            return reboot(also: driver)
        }
        switch step {
        case .finished(let directives):
            // Invariant 9: no process keeps the container's lock while it waits for its next
            // input (the lock is released for it, as the next writer would otherwise wait for ever).
            if arbiter.lockHolder == driver.label || transport == .inProcess && disk.lockHolder == driver.label {
                monitor.caught("\(driver.label) finished its input still holding the container's lock (invariant 9)", now: now)
            }
            arbiter.finished(driver.label)
            switch role {
            case .app: appDirectives(directives, from: driver)
            case .background: backgroundDirectives(directives, from: driver)
            case .handler(let incarnation, let request): handlerDirectives(directives, from: driver, incarnation: incarnation, request: request)
            case .legacy:
                // The first version's extension awaits its answer: a slow one still arrives, a
                // hung or crashed handler leaves it with none.
                if handlerBehaviour == .crashing(afterWrite: true) {
                    kill(driver, reason: "crashed before replying")
                } else {
                    driver.finish()
                    // A withheld answer leaves its request in flight for good.
                    if handlerBehaviour == .hung { hungLegacyRequests += 1 }
                    for case .reply(let reply) in decoded(directives, directives.handler, from: driver, NativeHandlerWire.directive)
                        where handlerBehaviour != .hung {
                        lastLegacyAnswer = reply
                    }
                }
            }
        case .held(let point):
            arbiter.wait((driver, role), name: driver.name, label: driver.label, at: point)
        case .died:
            monitor.checkWhatWasLeft("\(driver.label) died", in: self)
            forget(driver)
            if case .handler(let incarnation, let request) = role {
                clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.rejection))
            }
        }
        wakeWaiters()
    }

    /// Resumes the first waiting process that may go on: not held by the user, and not waiting
    /// for a lock someone else holds.
    func wakeWaiters() {
        // A frozen background waits where it is, released or not, until it thaws.
        let frozen = safari.isBackgroundFrozen ? background?.label : nil
        guard let (entry, resumption) = arbiter.nextToResume(skipping: frozen) else { return }
        let (driver, role) = entry.process
        switch resumption {
        case .kill:
            driver.kill(now: now, reason: "killed at \(entry.point.rawValue)")
            complete(.died(.unknown), driver: driver, role: role)
        case .fail(let errno, let after):
            passed(driver, entry.point, failing: true, after: after)
            trace.record(now, driver.label, "resumed at \(entry.point.rawValue) to fail")
            complete(driver.resume(after ? .failAfter(errno: errno) : .fail(errno: errno), now: now), driver: driver, role: role)
        case .proceed:
            passed(driver, entry.point, failing: false, after: false)
            trace.record(now, driver.label, "resumed at \(entry.point.rawValue)")
            complete(driver.resume(.proceed, now: now), driver: driver, role: role)
        }
    }

    /// After a power cut: every process is gone, with Safari's session and every queued event;
    /// the device starts again, Safari restores its tabs and each page asks afresh.
    func reboot(also driver: ProcessDriver?) {
        bootGeneration = disk.generation
        // Every background dies with the power: a pending reconciliation bound is void.
        backgroundDeaths += 1
        reconciliationBoundEnded()
        let cut = disk.lastCut
        trace.record(now, "harness", "power lost: \(cut?.kept ?? 0) unsynced changes kept, \(cut?.dropped ?? 0) dropped; the device restarts")
        monitor.checkWhatWasLeft("the power failed", in: self)
        monitor.cachesMayBeLost()
        for process in [driver, app, background].compactMap({ $0 }) + arbiter.waiting.map(\.process.driver) { process.kill(now: now, reason: "power lost") }
        arbiter.powerLost()
        app = nil
        safari.appView = nil
        background = nil
        backgroundStop = .unloaded
        safari.appInForeground = false
        appEditsUnanswered = []
        clock.queue.removeAll()
        clock.delayedReplies = []
        clock.timers = [:]
        heldForBackground = []
        safari.backgroundFrozenByUser = false
        backgroundDeathsInARow = 0
        monitor.noAnswerOwed()
        safari.forgetPopup()
        forgetSessions()
        forgetAlarms()
        forgetNativeRequests()
        safari.safariInForeground = true
        // Every question died with its background: each page's wait starts again with its reload.
        for id in tabs.keys.sorted() {
            if tabs[id]?.waitingSince != nil { safari.tabs[id]?.waitingSince = now }
            reloadTab(id)
        }
    }

    func kill(_ driver: ProcessDriver, reason: String = "killed") {
        driver.kill(now: now, reason: reason)
        forget(driver)
        wakeWaiters()
    }

    /// A dead process holds nothing: its lock is released and it waits nowhere.
    func forget(_ driver: ProcessDriver) {
        arbiter.forget(driver.label)
        disk.releaseLock(heldBy: driver.label)
        if app === driver {
            app = nil
            appEditsUnanswered = []
            // What the app showed is gone with it.
            safari.appView = nil
        }
        if background === driver {
            background = nil
            clock.nativePort = nil
            registeredListeners = []
            // A freeze was of that process; what waited for it only reaches a new background if
            // it would wake one (a late reply or storage completion was for this one).
            safari.backgroundFrozenByUser = false
            heldForBackground.removeAll { !$0.wakesTheBackground }
            if !safari.isBackgroundFrozen {
                // They were sent before anything that follows: they go first, in their order.
                for input in heldForBackground.reversed() { clock.queue.pushFront(.backgroundInput(input)) }
                heldForBackground = []
            }
            // Unloads say so after this; anything else that ends it is a kill.
            backgroundStop = .killed
            backgroundDeathsInARow += 1
            backgroundDeaths += 1
            // A tab whose answer was lost with the background asks again; Safari wakes a new one,
            // unless backgrounds keep dying before they finish anything.
            guard backgroundDeathsInARow <= Self.wakesBeforeGivingUp else {
                trace.record(now, "safari", "background keeps dying; tabs stop asking")
                return
            }
            for id in tabs.keys.sorted() where tabs[id]!.awaitingAnswer {
                trace.record(now, "safari", "tab \(id.rawValue) asks again")
                // Its question died with the background (a fault the scenario chose): the new
                // one gets a whole timeout to answer it.
                safari.tabs[id]?.waitingSince = now
                askForDecision(id)
            }
        }
    }
}

private extension ExtensionWire.Event {
    /// A message from the popup: a background that does not know the popup is open learns of
    /// it first.
    /// A native reply or the background's native timeout.
    var isNativeExchange: Bool {
        switch self {
        case .nativeReply, .nativeTimeout: true
        case .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariForeground,
             .appMessage, .appearanceChanged, .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite,
             .popupPaused, .alarmFired: false
        }
    }

    var isFromThePopup: Bool {
        switch self {
        case .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused: true
        case .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariForeground,
             .appMessage, .appearanceChanged, .nativeReply, .nativeTimeout, .alarmFired: false
        }
    }

    /// Whether Safari dispatches it as an event the background listens for (a message from a
    /// content script or the popup, a tab event, an alarm) or it is the load itself: those wake
    /// the background and re-arm its unload timer (WebKit,
    /// `WebExtensionContext::wakeUpBackgroundContentIfNecessaryToFireEvents`). A native reply,
    /// a storage completion, its own timer and a message on a port do not.
    var wakesTheBackground: Bool { listener != nil }

    /// The listener Safari dispatches it to, or nil for what is not an event: the load, a
    /// storage completion, a native reply, the background's own timer, a message on its port.
    var listener: BackgroundListener? {
        switch self {
        case .tabRequestedDecision, .tabNativeDarkChanged, .appearanceChanged, .popupOpened, .popupClosed, .popupChoseScope, .popupEdited,
             .popupForgotSite, .popupPaused: .message
        case .tabActivated: .tabActivated
        case .tabClosed: .tabRemoved
        case .safariForeground: .windowFocus
        case .alarmFired: .alarm
        case .started, .storageCompleted, .nativeReply, .nativeTimeout, .appMessage: nil
        }
    }

    /// The event's name, as traces say it.
    var name: String {
        if case .string(let type)? = ExtensionWire.encode(self).objectValue?["type"] { return type }
        return "event"
    }

    var isScopeChoice: Bool {
        if case .popupChoseScope = self { return true }
        return false
    }
}
