import ProcessKit
import SiteSettings
import Synchronization

/// Safari in a soak: it starts the background for an event when none is loaded, hands it one
/// input at a time, carries out its directives (a handler per native request, its timers,
/// storage completions, decisions for tabs, the popup), and unloads or restarts on request.
/// Everything it does happens on its own thread, in the order events reach its mailbox; the
/// background's kills come from elsewhere, at any moment.
final class SoakSafari: Sendable {
    enum Event: Sendable {
        /// From a page, the popup or Safari itself: wakes the background when none is loaded.
        case user(ExtensionWire.Event)
        /// The user changes fields, or forgets the site, in the popup opened on `tab`.
        case popupEdit(tab: TabID, set: SiteValues, reset: [SiteField], forget: Bool, values: [String: String?])
        case storageCompleted(incarnation: Int, token: Int)
        case nativeReply(incarnation: Int, request: Int, reply: JSONValue)
        /// Safari unloads the idle background, with no notice.
        case unload
        /// Safari restarted (its background was killed first): `storage.session` is gone, the
        /// popup closed, and every page loads again.
        case restart
        case stop
    }

    /// What the user sees, for the check after healing.
    struct Views: Sendable {
        var tabs: [TabID: Decision?] = [:]
        var popupTab: TabID?
        var popup: PopupView?
    }

    /// What Safari answers for a native request whose handler ended without a reply.
    static let rejection = JSONValue.object(["type": .string("error"), "code": .string("nativeFailure"),
                                             "message": .string("the native extension ended without an answer")])

    let mailbox = Mailbox<Event>()
    private let current = Mutex<SoakChild?>(nil)
    private let published = Mutex(Views())
    private let idle = Mutex(false)
    private let context: SoakContext
    private let handlers: SoakHandlers
    private let app: SoakApp

    init(context: SoakContext, handlers: SoakHandlers, app: SoakApp) {
        self.context = context
        self.handlers = handlers
        self.app = app
    }

    /// The loaded background, to kill.
    var running: SoakChild? { current.withLock { $0 } }
    var views: Views { published.withLock { $0 } }
    /// No event waits, no native request of the loaded background is out, no timer is set.
    var isIdle: Bool { idle.withLock { $0 } && mailbox.isEmpty }

    /// The event loop, until `stop`.
    func run() {
        var loop = Loop(safari: self, context: context)
        while true {
            let wait = loop.fireDueTimers()
            idle.withLock { $0 = loop.isIdle }
            guard let event = mailbox.take(waitingUpTo: wait) else { continue }
            idle.withLock { $0 = false }
            if case .stop = event { return }
            loop.handle(event)
            published.withLock { $0 = loop.views }
        }
    }

    private struct Tab {
        let url: String
        var applied: Decision?
        var awaiting = false
    }

    /// The loop's state, owned by its thread.
    private struct Loop {
        let safari: SoakSafari
        let context: SoakContext
        var background: SoakChild?
        var incarnation = 0
        var tabs: [TabID: Tab] = SoakWorld.tabs.mapValues { Tab(url: $0) }
        var popupTab: TabID?
        var popup: PopupView?
        /// The incarnation that knows the popup is open.
        var popupKnownTo: Int?
        /// The loaded background's native timeouts, by request, and its requests out.
        var timers: [Int: EpochMillis] = [:]
        var requestsOut: Set<Int> = []
        var alarm: EpochMillis?

        init(safari: SoakSafari, context: SoakContext) {
            self.safari = safari
            self.context = context
        }

        var isIdle: Bool { requestsOut.isEmpty && timers.isEmpty }

        var views: Views { Views(tabs: tabs.mapValues(\.applied), popupTab: popupTab, popup: popup) }

        /// Delivers the timeouts and the alarm that are due; returns how long to wait for the next.
        mutating func fireDueTimers() -> Int {
            let now = context.clock.now()
            for (request, at) in timers.sorted(by: { $0.key < $1.key }) where at <= now {
                timers[request] = nil
                deliver(.nativeTimeout(request: request))
            }
            if let at = alarm, at <= now {
                alarm = nil
                deliver(.alarmFired)
            }
            let next = (Array(timers.values) + [alarm].compactMap { $0 }).min().map { Int($0 - now) } ?? 50
            return max(1, min(50, next))
        }

        mutating func handle(_ event: Event) {
            switch event {
            case .user(let input):
                if case .tabRequestedDecision(let tab, _, _) = input { tabs[tab]?.awaiting = true }
                deliver(input)
            case .popupEdit(let tab, let set, let reset, let forget, let values):
                editInPopup(on: tab, set: set, reset: reset, forget: forget, values: values)
            case .storageCompleted(let number, let token):
                if number == incarnation { deliver(.storageCompleted(token: token)) }
            case .nativeReply(let number, let request, let reply):
                guard number == incarnation else { break }
                requestsOut.remove(request)
                deliver(.nativeReply(request: request, message: reply))
            case .unload:
                guard let background else { break }
                context.log.fault("unload background", "safari unloads \(background.label)")
                background.process.kill()
                died(background, .signaled(9))
            case .restart:
                if let background {
                    background.process.kill()
                    died(background, .signaled(9))
                }
                context.files.removeSession()
                popupTab = nil
                popup = nil
                for id in tabs.keys.sorted() {
                    tabs[id]?.applied = nil
                    tabs[id]?.awaiting = true
                    deliver(.tabRequestedDecision(id, url: tabs[id]!.url, nativeDark: false))
                }
            case .stop:
                break
            }
        }

        /// Opens the popup on `tab` (closing it elsewhere) and makes the change, stamped now.
        private mutating func editInPopup(on tab: TabID, set: SiteValues, reset: [SiteField], forget: Bool, values: [String: String?]) {
            guard let url = tabs[tab]?.url else { return }
            if popupTab != tab {
                if popupTab != nil { deliver(.popupClosed) }
                popupTab = tab
                popup = nil
                popupKnownTo = nil
                deliver(.popupOpened(tab))
            }
            let at = context.clock.now(unique: true)
            let number = context.edits.record(.popup, at: at, .popup(possible: SoakWorld.scopes(of: url)), values: values)
            let input: ExtensionWire.Event = forget ? .popupForgotSite(message: number, at: at)
                                                    : .popupEdited(set: set, reset: reset, message: number, at: at)
            context.log.operation("popup edit", "popup on \(tab.rawValue) edit #\(number) \(render(ExtensionWire.encode(input)))")
            deliver(input, now: at)
        }

        /// Hands an input to the background, starting one for an event that wakes it; a popup
        /// message first tells a background that does not know of the popup that it is open.
        private mutating func deliver(_ input: ExtensionWire.Event, now: EpochMillis? = nil) {
            if background == nil {
                guard input.wakesTheBackground else { return }
                start()
            }
            if input.isFromThePopupAfterOpening, popupKnownTo != incarnation, let tab = popupTab {
                popupKnownTo = incarnation
                send(.popupOpened(tab))
            }
            if case .popupOpened = input { popupKnownTo = incarnation }
            send(input, now: now)
        }

        private mutating func start() {
            incarnation += 1
            let label = "background#\(incarnation)"
            do {
                let started = try SoakChild(context.executables + "/ExtensionProcess", ["--storage", context.files.storage], label: label,
                                            group: context.group, log: context.log)
                background = started
                safari.current.withLock { $0 = started }
            } catch {
                context.log.violation("\(label) could not start: \(error)")
                return
            }
            timers = [:]
            requestsOut = []
            alarm = nil
            context.log.operation("background start", "\(label) started")
            send(.started(appearance: .light, tabs: tabs.mapValues(\.url)))
        }

        private mutating func send(_ input: ExtensionWire.Event, now: EpochMillis? = nil) {
            guard let background else { return }
            switch background.exchange(ExtensionWire.encode(input), now: now ?? context.clock.now(), seed: context.seed) {
            case .done(let directives):
                for json in directives {
                    guard let output = try? ExtensionWire.directive(json) else {
                        context.log.violation("\(background.label) sent a directive Safari cannot read: \(render(json))")
                        continue
                    }
                    carryOut(output, from: background)
                }
            case .died(let status):
                died(background, status)
            }
        }

        /// A dead background holds nothing: its timers and requests go with it, and a tab whose
        /// question died with it asks again.
        private mutating func died(_ dead: SoakChild, _ status: ChildProcess.ExitStatus) {
            guard background === dead else { return }
            background = nil
            safari.current.withLock { if $0 === dead { $0 = nil } }
            timers = [:]
            requestsOut = []
            context.died(dead.label, status)
            for id in tabs.keys.sorted() where tabs[id]!.awaiting {
                safari.mailbox.post(.user(.tabRequestedDecision(id, url: tabs[id]!.url, nativeDark: false)))
            }
        }

        private mutating func carryOut(_ output: ExtensionWire.Output, from background: SoakChild) {
            let number = incarnation
            switch output {
            case .storagePending(let token):
                safari.mailbox.post(.storageCompleted(incarnation: number, token: token))
            case .machine(.sendNative(let request, let message)):
                requestsOut.insert(request)
                let safari = self.safari
                safari.handlers.submit(SoakHandlers.Request(message: message, stampsAnEdit: false, sending: { _ in }) { reply, notified in
                    if notified { safari.app.notify() }
                    safari.mailbox.post(.nativeReply(incarnation: number, request: request, reply: reply?.json ?? SoakSafari.rejection))
                })
            case .machine(.setTimer(.nativeTimeout(let request), let at)):
                timers[request] = at
            case .machine(.cancelTimer(.nativeTimeout(let request))):
                timers[request] = nil
            case .machine(.setAlarm(let at)):
                alarm = at
            case .machine(.sendDecision(let tab, let decision)):
                tabs[tab]?.applied = decision
                tabs[tab]?.awaiting = false
                context.log.operation("decision", "\(background.label) -> tab \(tab.rawValue) \(render(decision.json))")
            case .machine(.showPopup(let view)):
                popup = view
            case .machine(.popupAnswer(let message, let saved, let scope)):
                context.edits.popupAnswer(message, saved: saved, scope: scope?.text)
                context.log.operation("popup answer", "\(background.label) -> edit #\(message) saved \(saved.map(String.init) ?? "unknown") on \(scope?.text ?? "no record")")
            case .machine(.connectNative), .machine(.listen):
                // iOS: the app has no way to the background, and the soak sends only events
                // the background listens for from its start.
                break
            case .machine(.loadStorage), .machine(.saveLocalStorage), .machine(.saveSessionStorage):
                context.log.violation("\(background.label) sent a storage directive out of the process")
            }
        }
    }
}

private extension ExtensionWire.Event {
    /// Whether Safari dispatches it as an event that wakes an unloaded background; a native
    /// reply, a storage completion and the background's own timer find no background and are dropped.
    var wakesTheBackground: Bool {
        switch self {
        case .nativeReply, .nativeTimeout, .storageCompleted, .started, .appMessage: false
        case .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariForeground, .appearanceChanged,
             .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused, .alarmFired: true
        }
    }

    /// A popup message that needs the background to know the popup is open.
    var isFromThePopupAfterOpening: Bool {
        switch self {
        case .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused: true
        case .popupOpened, .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed,
             .safariForeground, .appMessage, .appearanceChanged, .nativeReply, .nativeTimeout, .alarmFired: false
        }
    }
}
