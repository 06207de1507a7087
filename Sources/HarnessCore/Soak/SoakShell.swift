import ProcessKit
import SiteSettings
import Synchronization

/// Safari in a soak: the shell of `SafariMachine` on the wall clock. It tells the machine what
/// happened (the user's steps, the background's directives and death, handlers' answers, the
/// time) and carries out its effects on the free-running processes. Everything it does happens
/// on its own thread, in the order events reach its mailbox; the background's kills come from
/// elsewhere, at any moment.
final class SoakShell: Sendable {
    enum Event: Sendable {
        /// The user or the system, as Safari's machine takes it.
        case safari(SafariMachine.Input)
        /// The user changes fields, or forgets the site, in the popup opened on `tab`.
        case popupEdit(tab: TabID, set: SiteValues, reset: [SiteField], forget: Bool, values: [String: String?])
        case storageCompleted(incarnation: Int, token: Int)
        /// A handler's answer, or nil when it ended without one.
        case handlerAnswered(SafariMachine.NativeRequestID, NativeReply?)
        /// Safari unloads the background, with no notice.
        case unload
        /// Safari restarted (its background was killed first): `storage.session` is gone and
        /// every page asks again.
        case restart
        case stop
    }

    /// What the user sees, for the check after healing.
    struct Views: Sendable {
        var tabs: [TabID: Decision?] = [:]
        var popupTab: TabID?
        var popup: PopupView?
    }

    let mailbox = Mailbox<Event>()
    private let current = Mutex<SoakChild?>(nil)
    private let published = Mutex(Views())
    private let rules = Mutex(SafariMachine.RuleCounts())
    private let idle = Mutex(false)
    private let context: SoakContext
    private let handlers: SoakHandlers
    private let app: SoakApp
    private let nativeRequestCap: Int

    init(context: SoakContext, handlers: SoakHandlers, app: SoakApp, nativeRequestCap: Int) {
        self.context = context
        self.handlers = handlers
        self.app = app
        self.nativeRequestCap = nativeRequestCap
    }

    /// The loaded background, to kill.
    var running: SoakChild? { current.withLock { $0 } }
    var views: Views { published.withLock { $0 } }
    /// How often each of Safari's rules bit.
    var ruleCounts: SafariMachine.RuleCounts { rules.withLock { $0 } }
    /// No event waits, no native request of the loaded background is out, no timer is set.
    var isIdle: Bool { idle.withLock { $0 } && mailbox.isEmpty }

    /// The event loop, until `stop`.
    func run() {
        var loop = Loop(shell: self, context: context)
        loop.start()
        while true {
            let wait = loop.fireDueTimers()
            idle.withLock { $0 = loop.isIdle }
            guard let event = mailbox.take(waitingUpTo: wait) else { continue }
            idle.withLock { $0 = false }
            if case .stop = event { return }
            loop.handle(event)
            published.withLock { $0 = loop.views }
            rules.withLock { $0 = loop.safari.counts }
        }
    }

    /// The loop's state, owned by its thread.
    private struct Loop {
        let shell: SoakShell
        let context: SoakContext
        var safari = SafariMachine(platform: .iOS)
        /// Invariant 14, with the lateness a timer on the wall clock may have on a loaded machine.
        var rules: SafariRules
        var background: SoakChild?
        var incarnation = 0
        /// What Safari queued (events for the background, native requests and the answers it
        /// gives in a handler's place), taken in turn once the effects that queued it are done,
        /// as the simulation's work queue does.
        var queue: [Pending] = []
        /// The loaded background's native timeouts, and its requests out.
        var timers: [SafariMachine.TimerID: EpochMillis] = [:]
        var requestsOut: Set<SafariMachine.NativeRequestID> = []

        init(shell: SoakShell, context: SoakContext) {
            self.shell = shell
            self.context = context
            safari.nativeRequestCap = shell.nativeRequestCap
            rules = SafariRules(platform: .iOS, epoch: SoakClock.epoch, nativeRequestCap: shell.nativeRequestCap, lateness: Self.timerLateness)
            safari.contentScriptFlaws = Flaw.set(context.flaws)
        }

        var isIdle: Bool { requestsOut.isEmpty && timers.isEmpty && queue.isEmpty }

        var views: Views {
            Views(tabs: safari.tabs.mapValues(\.applied), popupTab: safari.popupTab, popup: safari.popup)
        }

        /// Safari opens the soak's tabs (the last one in front); each asks.
        mutating func start() {
            for (id, url) in SoakWorld.tabs.sorted(by: { $0.key < $1.key }) { tell(.tabOpened(id, url: url, nativeDark: false, window: nil)) }
        }

        /// Fires what is due (the unload check, the background's native timeouts, an alarm) in
        /// the order it fell due, as the simulation does; returns how long to wait for the next.
        mutating func fireDueTimers() -> Int {
            let now = context.clock.now()
            // A timer that never fires leaves no input behind: invariant 14 looks as time passes.
            for message in rules.check(now: now) { context.log.violation("\(message) (invariant 14)") }
            while let (_, due) = nextDue(now: now, before: now) {
                switch due {
                case .safari(.idleUnload):
                    context.log.note("safari checks whether to unload background#\(incarnation)")
                    tell(.timeReached(.idleUnload))
                case .safari(.alarm(let name)):
                    tell(.timeReached(.alarm(name)))
                case .safari(.backgroundLoad):
                    tell(.timeReached(.backgroundLoad))
                case .safari(.pageAsksAgain(let tab)):
                    tell(.timeReached(.pageAsksAgain(tab)))
                case .safari(.permissionPrompt):
                    tell(.timeReached(.permissionPrompt))
                case .backgroundTimer(let id):
                    timers[id] = nil
                    tell(.eventDue(.timerFired(id.timer), for: id.incarnation))
                case .delayedReply, .pageTimer:
                    // The soak holds no reply back (its handlers answer as they run), and runs
                    // no extension's own pages.
                    break
                }
            }
            return max(1, min(50, nextDue(now: now, before: now + 50).map { Int($0.at - now) } ?? 50))
        }

        /// The first of Safari's timers and the background's to fall due by `end`, in the order
        /// every run fires them (`Scheduler.nextDue`).
        private func nextDue(now: EpochMillis, before end: EpochMillis) -> (at: EpochMillis, due: Scheduler.Due)? {
            var clock = Scheduler(now: now)
            clock.timers = timers
            return clock.nextDue(before: end, background: safari.loaded, frozen: false, safari: safari)
        }

        mutating func handle(_ event: Event) {
            switch event {
            case .safari(let input):
                tell(input)
            case .popupEdit(let tab, let set, let reset, let forget, let values):
                editInPopup(on: tab, set: set, reset: reset, forget: forget, values: values)
            case .storageCompleted(let incarnation, let token):
                tell(.storageCompleted(incarnation: incarnation, token: token))
            case .handlerAnswered(let id, let reply):
                requestsOut.remove(id)
                tell(reply.map { .replyArrived(id, .replied($0)) } ?? .handlerEndedWithoutAnswer(id))
            case .unload:
                if let background { context.log.fault("unload background", "safari unloads \(background.label)") }
                tell(.backgroundUnloadRequested)
            case .restart:
                tell(.safariQuit)
                tell(.safariLaunched)
            case .stop:
                break
            }
        }

        /// Opens the popup on `tab` (closing it elsewhere) and makes the change, stamped now.
        private mutating func editInPopup(on tab: TabID, set: SiteValues, reset: [SiteField], forget: Bool, values: [String: String?]) {
            guard let url = safari.tabs[tab]?.url else { return }
            if safari.popupTab != tab {
                if safari.popupTab != nil { tell(.popupClosed) }
                tell(.popupOpened(tab))
            }
            let at = context.clock.now(unique: true)
            let number = context.edits.record(.popup, at: at, .popup(possible: SoakWorld.scopes(of: url)), values: values)
            context.log.operation("popup edit", "popup on \(tab.rawValue) edit #\(number) \(forget ? "forgets the site" : "sets \(values.keys.sorted().joined(separator: ", "))")")
            tell(forget ? .popupForgotSite(edit: number) : .popupEdited(set: set, reset: reset, edit: number), now: at)
        }

        enum Pending {
            case event(ExtensionWire.Event, for: Int? = nil)
            case request(SafariMachine.NativeRequestID, NativeRequest, profile: String)
            case reply(SafariMachine.NativeRequestID, NativeOutcome)
        }

        /// How late a timer may fire before invariant 14 calls it missing: the loop wakes at
        /// least every 50 ms, but it waits for a child's answer up to `SoakChild.answerTimeout`
        /// while a timer falls due.
        static let timerLateness: EpochMillis = EpochMillis(SoakChild.answerTimeout) + 2_000

        /// Tells Safari's machine what happened, and invariant 14 what it did.
        private mutating func machine(_ input: SafariMachine.Input, now: EpochMillis) -> [SafariMachine.Effect] {
            let effects = safari.handle(input, now: now)
            for message in rules.observe(input, effects, now: now) { context.log.violation("\(message) (invariant 14)") }
            return effects
        }

        /// Tells Safari what happened, carries out its effects, then takes what Safari queued
        /// meanwhile, in turn, each at the wall clock's time.
        private mutating func tell(_ input: SafariMachine.Input, now: EpochMillis? = nil) {
            let at = now ?? context.clock.now()
            perform(machine(input, now: at), now: at)
            while !queue.isEmpty {
                let now = context.clock.now()
                switch queue.removeFirst() {
                case .event(let event, let incarnation): perform(machine(.eventDue(event, for: incarnation), now: now), now: now)
                case .request(let id, let message, let profile): perform(machine(.nativeRequestDue(id, message, profile: profile), now: now), now: now)
                case .reply(let id, let message): perform(machine(.replyArrived(id, message), now: now), now: now)
                }
            }
        }

        private mutating func perform(_ effects: [SafariMachine.Effect], now: EpochMillis) {
            for effect in effects {
                guard perform(effect, now: now) else { return }
            }
        }

        /// Carries out one effect; false when the effects after it no longer apply.
        private mutating func perform(_ effect: SafariMachine.Effect, now: EpochMillis) -> Bool {
            switch effect {
            case .note(let note):
                context.log.note("safari \(note.text)")
            case .dispatch(let event):
                queue.append(.event(event))
            case .dispatchFirst(let events):
                queue.insert(contentsOf: events.map { .event($0) }, at: 0)
            case .startBackground(let started):
                guard startBackground(now: now) else { return false }
                send(started, now: now)
            case .redispatch(let event):
                guard background != nil else { return false }
                perform(machine(.eventDue(event), now: now), now: now)
            case .announcePopup(let announcement, let then):
                send(announcement, now: now)
                guard background != nil else {
                    queue.insert(.event(then), at: 0)
                    perform(machine(.popupAnnouncementInterrupted, now: now), now: now)
                    return false
                }
            case .deliver(let event):
                send(event, now: now)
            case .killBackground(_, let stop):
                if let background {
                    background.kill()
                    died(background, .signaled(9), stop: stop, now: now)
                }
            case .thawBackground(_, let held):
                queue += held.map { .event($0.event, for: $0.incarnation) }
            case .freezeBackground, .suspendApp, .reconciliationPoint:
                // The soak's Safari stays in front with the background running, and checks no
                // liveness bound.
                break
            case .fireOverdueTimers:
                _ = fireDueTimers()
                perform(machine(.overdueTimersFired, now: now), now: now)
            case .dropSessionStorage:
                context.files.removeSession()
            case .completeStorage(let incarnation, let token):
                shell.mailbox.post(.storageCompleted(incarnation: incarnation, token: token))
            case .queueNativeRequest(let id, let message, let profile):
                queue.append(.request(id, message, profile: profile))
            case .startHandler(let id, let message, _):
                requestsOut.insert(id)
                let shell = self.shell
                shell.handlers.submit(SoakHandlers.Request(message: message, stampsAnEdit: false, sending: { _ in }) { reply, notified in
                    if notified { shell.app.notify() }
                    shell.mailbox.post(.handlerAnswered(id, reply))
                })
            case .startLegacyHandler:
                // The first version's messages go to handlers of their own (`SoakUser`).
                break
            case .queueReply(let id, let message):
                queue.append(.reply(id, message))
            case .setTimer(let id, let at):
                timers[id] = at
            case .cancelTimer(let id):
                timers[id] = nil
            case .decisionSent(let tab, _):
                let shown = safari.tabs[tab]?.applied.map { render($0.json) } ?? "nothing (not open)"
                context.log.operation("decision", "background#\(incarnation) -> tab \(tab.rawValue) \(shown)")
            case .queuePortMessage, .appMessageNotConnected:
                // The soak's Safari is on iOS: the app cannot message the extension.
                break
            case .loadPage, .pageNativeDark, .closePage, .showPage, .pagesAppearance, .answerPage, .messagePage, .openPopupPage, .closePopupPage,
                 .useInPage, .answerBackground, .messageOnPagePort, .pagePortDisconnected, .connectPage, .pagesStorageChanged, .extensionTabsCall,
                 .permissionsDecided, .pagesPermissionsChanged, .pagesActionChanged, .pagesActionClicked, .pagesCommandPressed,
                 .pagesAlarmsChanged, .pagesAlarmFired, .pagesMenusChanged, .pagesMenuClicked, .pagesTabEvent, .pagesWindowFocus:
                // The soak runs the built-in background and the reference content script: no
                // extension's own pages.
                break
            case .popupAnswered(let edit, let saved, let scope):
                context.edits.popupAnswer(edit, saved: saved, scope: scope?.text)
                context.log.operation("popup answer", "background#\(incarnation) -> edit #\(edit) saved \(saved.map(String.init) ?? "unknown") on \(scope?.text ?? "no record")")
            }
            return true
        }

        /// Starts the next background incarnation; false when it cannot start.
        private mutating func startBackground(now: EpochMillis) -> Bool {
            incarnation += 1
            let label = "background#\(incarnation)"
            do {
                let started = try SoakChild(.background, of: context.executables, ["--storage", context.files.storage], container: context.files.container, label: label,
                                            group: context.group, log: context.log, flaws: context.flaws)
                background = started
                shell.current.withLock { $0 = started }
            } catch {
                context.log.violation("\(label) could not start: \(error)")
                return false
            }
            timers = [:]
            requestsOut = []
            context.log.operation("background start", "\(label) started")
            perform(machine(.backgroundStarted(incarnation: incarnation), now: now), now: now)
            return true
        }

        /// Hands the loaded background one input and tells Safari what came of it.
        private mutating func send(_ input: ExtensionWire.Event, now: EpochMillis) {
            guard let background else { return }
            switch background.exchange(.background(input), now: now, seed: context.seed) {
            case .done(let written):
                guard case .background(let outputs) = written else {
                    context.log.violation("\(background.label) answered with another role's directives")
                    return
                }
                perform(machine(.backgroundFinished(incarnation: incarnation, outputs), now: now), now: now)
            case .died(let status):
                died(background, status, stop: .killed, now: now)
            }
        }

        /// A dead background holds nothing: its timers and requests go with it.
        private mutating func died(_ dead: SoakChild, _ status: ChildProcess.ExitStatus, stop: BackgroundState, now: EpochMillis) {
            guard background === dead else { return }
            background = nil
            shell.current.withLock { if $0 === dead { $0 = nil } }
            timers = [:]
            requestsOut = []
            context.died(dead, status)
            perform(machine(.backgroundDied(incarnation: incarnation, stop: stop), now: now), now: now)
        }
    }
}
