import ProcessKit
import SiteSettings

/// How the simulation carries out Safari's effects on the processes (starting the background,
/// handing it events, starting a handler per native request, kills and freezes) and feeds back
/// what came of them, with where each input leaves a process (finished, waiting at a yield
/// point, dead), as the yield arbiter decides.
extension Simulation {
    // MARK: - Safari's effects

    /// Tells Safari what happened now and carries out what it does.
    func handle(_ input: SafariMachine.Input) {
        perform(safari.handle(input, now: now))
    }

    /// Carries out Safari's effects in order; some end the list early (a background that did
    /// not start, a popup announcement cut short).
    func perform(_ effects: [SafariMachine.Effect]) {
        var started: ProcessDriver?
        for effect in effects {
            guard perform(effect, started: &started) else { return }
        }
    }

    /// Carries out one effect; false when the effects after it no longer apply. `started` is
    /// the background an earlier effect of the list started.
    private func perform(_ effect: SafariMachine.Effect, started: inout ProcessDriver?) -> Bool {
        switch effect {
        case .note(let text, let message):
            if let message { trace.record(now, "safari", text, message) } else { trace.record(now, "safari", text) }
        case .dispatch(let input):
            event(input)
        case .dispatchFirst(let events):
            for event in events.reversed() { clock.queue.pushFront(.backgroundInput(event)) }
        case .startBackground(let event):
            started = startBackground(event)
            return started != nil
        case .redispatch(let event):
            // The background that started for it, not one a power cut during that start put in
            // its place (that one's device restarted, and the event died with the old one).
            guard let background, background === started else {
                trace.record(now, "safari", "background did not start; event dropped", ExtensionWire.encode(event))
                return false
            }
            // The start itself stopped at a yield point: the event waits for it.
            if arbiter.isWaiting(background.label) { clock.queue.pushFront(.backgroundInput(event)) } else { handle(.eventDue(event)) }
        case .announcePopup(let announcement, let then):
            guard let background else { return false }
            complete(reader.begin(background, announcement, now: now), driver: background, role: .background)
            guard let current = self.background, current === background, !arbiter.isWaiting(background.label) else {
                clock.queue.pushFront(.backgroundInput(then))
                handle(.popupAnnouncementInterrupted)
                return false
            }
        case .deliver(let event):
            guard let background else { return false }
            deliver(event, to: background)
        case .killBackground(let reason, let stop):
            if let background { kill(background, reason: reason, stop: stop) }
        case .freezeBackground(let traced):
            if traced, let background { trace.record(now, background.label, "frozen") }
            try? background?.child.freeze()
        case .thawBackground(let traced, let held):
            if traced, let background { trace.record(now, background.label, "thawed") }
            background?.child.thaw()
            clock.queue += held.map { .backgroundInput($0.event, for: $0.incarnation) }
            // A hold released while it was frozen lets it go on now.
            wakeWaiters()
        case .fireOverdueTimers:
            fireOverdue()
            handle(.overdueTimersFired)
        case .suspendApp:
            if let app { trace.record(now, app.label, "suspended") }
        case .dropSessionStorage:
            files.dropSessions(profiles: safari.profiles)
        case .completeStorage(let incarnation, let token):
            clock.queue.append(.storageCompletion(incarnation: incarnation, token: token))
        case .queueNativeRequest(let id, let message, let profile):
            clock.queue.append(.nativeRequest(incarnation: id.incarnation, request: id.request, message: message, profile: profile))
        case .startHandler(let id, let message, let profile):
            serve(message, profile: profile, role: .handler(incarnation: id.incarnation, request: id.request))
        case .startLegacyHandler(let message):
            serve(message, profile: profile, role: .legacy)
        case .queueReply(let id, let message):
            clock.queue.append(.nativeReply(incarnation: id.incarnation, request: id.request, message: message))
        case .setTimer(let id, let at):
            clock.timers[id] = at
        case .cancelTimer(let id):
            clock.timers[id] = nil
        case .decisionSent(let tab):
            monitor.decisionSent(to: tab.rawValue)
        case .popupAnswered(let number, let saved, let scope):
            edits.popupAnswered(number, saved: saved, scope: scope?.text)
        case .reconciliationPoint(let cause, let invariant):
            reconciliationReached(cause, invariant: invariant)
        }
        return true
    }

    /// Hands a native request to a handler process: one the system keeps, waiting since it
    /// last answered (`handler reuse`), or a new one.
    private func serve(_ message: NativeRequest, profile: String, role: Role) {
        let handler: ProcessDriver
        if let reused = idleHandlers.popLast() {
            trace.record(now, "harness", "\(reused.label) serves this request too: the system kept its process")
            handler = reused
        } else {
            handlerSpawns += 1
            guard let started = start(.handler) else { return }
            handler = started
        }
        complete(handler.begin(NativeHandlerWire.encode(.nativeRequest(message.json, profile: profile)), now: now), driver: handler, role: role)
    }

    /// A handler that answered: it ends, or, reused, waits for the next request.
    private func answered(_ handler: ProcessDriver) {
        if handlerReuse { idleHandlers.append(handler) } else { handler.finish() }
    }

    /// An event for the background: Safari dispatches it in its turn.
    func event(_ input: ExtensionWire.Event) {
        clock.queue.append(.backgroundInput(input))
    }

    /// Starts the front profile's background and hands it its `started` event; nil when it
    /// could not start.
    private func startBackground(_ started: ExtensionWire.Event) -> ProcessDriver? {
        guard let driver = start(.background) else { return nil }
        background = driver
        clock.timers = [:]
        answeredRequests = []
        timedOutRequests = []
        handle(.backgroundStarted(incarnation: driver.incarnation))
        monitor.backgroundStarted(driver.label, profile: profile, withCache: storedLocal?.cache != nil, now: now)
        complete(reader.begin(driver, started, now: now), driver: driver, role: .background)
        reconciliationReached("background#\(driver.incarnation) started", invariant: 7)
        return driver
    }

    /// Hands the loaded background an event, with what the checks learn from it.
    private func deliver(_ input: ExtensionWire.Event, to background: ProcessDriver) {
        if case .tabRequestedDecision(let tab, _, _) = input { monitor.backgroundTook(requestFrom: tab.rawValue) }
        if case .nativeReply(let request, let message) = input {
            monitor.nativeReplyArrives(incarnation: background.incarnation, now: now)
            answeredRequests.insert(request)
            // A valid snapshot in time becomes the cache (a late one is dropped): its next save
            // of storage.local must keep it for the next background (invariant 5).
            if !timedOutRequests.contains(request), case .object(let reply) = message, reply["type"] == .string("snapshot"),
               let document = reply["document"], let snapshot = try? DocumentCodec.decode(document).document {
                monitor.snapshotTaken("the snapshot of revision \(snapshot.revision) it took at \(trace.time(now))")
            }
        }
        complete(reader.begin(background, input, now: now), driver: background, role: .background)
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
    }

    func backgroundDirectives(_ directives: ProcessDriver.Directives, from driver: ProcessDriver) {
        handle(.backgroundFinished(incarnation: driver.incarnation, reader.backgroundOutputs(directives, from: driver, now: now)))
    }

    /// The first version's extension (not yet updated) sends `getEnabled` or `toggleEnabled`
    /// straight to a native handler, as its background did.
    package func legacyMessage(_ message: NativeRequest) {
        lastLegacyAnswer = nil
        handle(.legacyRequestSent(message))
    }

    func handlerDirectives(_ directives: ProcessDriver.Directives, from handler: ProcessDriver, incarnation: Int, request: Int) {
        if handlerBehaviour == .crashing(afterWrite: true) {
            kill(handler, reason: "crashed before replying")
            handle(.handlerEndedWithoutAnswer(Scheduler.NativeRequestID(incarnation: incarnation, request: request)))
            return
        }
        answered(handler)
        for directive in reader.handlerDirectives(directives, from: handler, now: now) {
            switch directive {
            case .reply(let reply):
                let work = Scheduler.Work.nativeReply(incarnation: incarnation, request: request, message: reply.json)
                switch handlerBehaviour {
                case .healthy, .crashing: clock.queue.append(work)
                case .garbage:
                    trace.record(now, handler.label, "reply replaced by garbage")
                    clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: garbage.next()))
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
        if let edit { edits.appTook(edit, at: now) }
        complete(app.begin(AppWire.encode(input), now: now), driver: app, role: .app)
    }

    func appDirectives(_ directives: ProcessDriver.Directives, from app: ProcessDriver) {
        for directive in reader.appDirectives(directives, from: app, now: now) {
            switch directive {
            case .showView(let view):
                appView = view
            case .editSaved, .editRefused:
                edits.appAnswered(directive)
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
        guard let background, safari.nativePort?.incarnation == background.incarnation else {
            trace.record(now, app.label, "message to the extension failed: no native port is open (NotConnected)")
            return
        }
        clock.queue.append(.portMessage(incarnation: background.incarnation))
    }

    // MARK: - Processes

    /// Starts the next incarnation of a process, or records why it could not: a run that cannot
    /// start one of its processes has failed, and the problem names the executable. The trace,
    /// which never holds a path, says only which incarnation did not start.
    func start(_ name: ProcessName) -> ProcessDriver? {
        do {
            let driver = try launcher.start(name, storageDirectory: files.storageDirectory(profile), storageFolder: RunFiles.storageFolder(profile))
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
                    answered(driver)
                    // A withheld answer leaves its request in flight for good.
                    if handlerBehaviour == .hung { handle(.legacyRequestHung) }
                    for case .reply(let reply) in reader.handlerDirectives(directives, from: driver, now: now)
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
                handle(.handlerEndedWithoutAnswer(Scheduler.NativeRequestID(incarnation: incarnation, request: request)))
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
        for process in [driver, app, background].compactMap({ $0 }) + idleHandlers + arbiter.waiting.map(\.process.driver) {
            process.kill(now: now, reason: "power lost")
        }
        idleHandlers = []
        arbiter.powerLost()
        app = nil
        appView = nil
        background = nil
        edits.appGone()
        clock.queue.removeAll()
        clock.delayedReplies = []
        clock.timers = [:]
        monitor.noAnswerOwed()
        handle(.powerLost)
    }

    /// Kills a process; a background is reported to Safari as stopping so (`stop`).
    func kill(_ driver: ProcessDriver, reason: String = "killed", stop: BackgroundState = .killed) {
        driver.kill(now: now, reason: reason)
        forget(driver, stop: stop)
        wakeWaiters()
    }

    /// A dead process holds nothing: its lock is released and it waits nowhere. Safari learns
    /// that its background is gone.
    func forget(_ driver: ProcessDriver, stop: BackgroundState = .killed) {
        idleHandlers.removeAll { $0 === driver }
        arbiter.forget(driver.label)
        disk.releaseLock(heldBy: driver.label)
        if app === driver {
            app = nil
            edits.appGone()
            // What the app showed is gone with it.
            appView = nil
        }
        if background === driver {
            background = nil
            backgroundDeaths += 1
            handle(.backgroundDied(incarnation: driver.incarnation, stop: stop))
        }
    }
}
