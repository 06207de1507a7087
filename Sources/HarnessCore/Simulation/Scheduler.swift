import ProcessKit
import SiteSettings

/// Virtual time and everything waiting on it: the work queued for the processes, the
/// background's own timers (its native timeouts) and the replies a slow handler holds back.
/// With Safari's own timers (the unload check and the alarms, which `SafariMachine` keeps) it
/// decides what falls due next; the simulation carries it out.
struct Scheduler {
    /// A piece of work for a process, queued until the simulation gets to it.
    enum Work {
        /// An event for the background; `for` the incarnation it belongs to, when only one
        /// (a timeout of its own timer, an event held for it while it was frozen).
        case backgroundInput(ExtensionWire.Event, for: Int? = nil)
        /// The app's message on the native port of one background incarnation: it reaches that
        /// incarnation or nobody.
        case portMessage(incarnation: Int, message: JSONValue?)
        case storageCompletion(incarnation: Int, token: Int)
        /// A request the background sent, with the Safari profile it came from.
        case nativeRequest(incarnation: Int, request: Int, message: NativeRequest, profile: String)
        /// How a request of the background ended: what the handler answered, or what stood in
        /// for it (a garbage reply, Safari's rejection).
        case nativeReply(incarnation: Int, request: Int, outcome: NativeOutcome)
        /// `edit`: the number of the user's edit it carries.
        case appInput(AppWire.Event, edit: Int? = nil)

        var kind: Simulation.WorkKind {
            switch self {
            case .backgroundInput, .portMessage: .backgroundInput
            case .storageCompletion: .storageCompletion
            case .nativeRequest: .nativeRequest
            case .nativeReply: .nativeReply
            case .appInput: .appInput
            }
        }
    }

    /// One background incarnation's native request: what its timeout timer and its place among
    /// the requests in flight are kept by.
    typealias NativeRequestID = SafariMachine.NativeRequestID

    /// Something that falls due at a moment of virtual time.
    enum Due: Equatable, CustomStringConvertible {
        /// One of Safari's timers: the unload check, an alarm.
        case safari(SafariMachine.Due)
        /// One of the loaded background's own timers.
        case backgroundTimer(SafariMachine.TimerID)
        /// The reply a slow handler held back, by its place in `delayedReplies`.
        case delayedReply(index: Int)
        /// A timer of one of the extension's own pages (`setTimeout` in a content script).
        case pageTimer(PageTimer)

        /// What fell due, as the trace says it.
        var description: String {
            switch self {
            case .safari(.idleUnload): "the unload check"
            case .backgroundTimer(let id):
                switch id.timer {
                case .nativeTimeout(let request): "background#\(id.incarnation)'s timeout for request \(request)"
                case .script(let number): "background#\(id.incarnation)'s script timer \(number)"
                }
            case .delayedReply: "a reply held back"
            case .pageTimer(let timer): "\(timer.load)'s timer \(timer.number)"
            case .safari(.alarm): "the alarm"
            case .safari(.backgroundLoad): "the background's load"
            case .safari(.pageAsksAgain(let tab)): "tab \(tab.rawValue)'s pause before it asks again"
            case .safari(.permissionPrompt): "the permission prompt's time"
            }
        }
    }

    var now: EpochMillis
    /// How long the device has slept in the run: Safari's monotonic clock stood still.
    private(set) var slept: EpochMillis = 0
    var queue = WorkQueue()
    /// The background's own timers (native timeouts, scripts' timers).
    var timers: [SafariMachine.TimerID: EpochMillis] = [:]
    /// Replies held back by a slow handler, with when they arrive.
    var delayedReplies: [(at: EpochMillis, work: Work)] = []
    /// The extension's own pages' timers: a page's load (`tab t1#2`) and its timer's number.
    struct PageTimer: Hashable, Comparable {
        var load: PageLoad
        var number: Int
        static func < (a: Self, b: Self) -> Bool { (a.load.name, a.number) < (b.load.name, b.number) }

        /// Whether its page runs now, as Safari says (`SafariMachine.pageRuns`).
        func runs(in safari: SafariMachine) -> Bool { safari.pageRuns(load) }
    }
    var pageTimers: [PageTimer: EpochMillis] = [:]

    init(now: EpochMillis) {
        self.now = now
        start = now
    }

    /// When the run began.
    let start: EpochMillis

    /// Safari's monotonic time at `time`: milliseconds since the run began, less the device's
    /// sleep.
    func uptime(at time: EpochMillis) -> EpochMillis { time - start - slept }

    /// The first thing due no later than `end`, and when. Timers fire in the order they fell
    /// due, as a run loop's do; something overdue (iOS Safari returning, an alarm of a profile
    /// that was out of sight) fires now, in that order: time never runs backwards. At one
    /// instant Safari's unload check comes first, then the loaded background's timers by
    /// request, then the pages' timers, then held-back replies in the order they were held, then
    /// Safari's alarm. A frozen background's unload check, timers and alarm wait, and so do the
    /// pages' timers while iOS suspends Safari, and a profile's while it is put away;
    /// `background` is its incarnation when one is loaded.
    func nextDue(before end: EpochMillis, background: Int?, frozen: Bool, safari: SafariMachine) -> (at: EpochMillis, due: Due)? {
        var best: (due: EpochMillis, what: Due)?
        func consider(_ due: EpochMillis, _ what: Due) {
            if max(now, due) <= end, best.map({ due < $0.due }) ?? true { best = (due, what) }
        }
        if let background, !frozen {
            if let unload = safari.unloadTime { consider(unload, .safari(.idleUnload)) }
            for (timer, at) in timers.sorted(by: { $0.key < $1.key }) where timer.incarnation == background {
                consider(at, .backgroundTimer(timer))
            }
        }
        // A page's scripts stop while iOS suspends Safari, and while its profile is put away.
        if safari.platform == .macOS || safari.safariInForeground {
            for (timer, at) in pageTimers.sorted(by: { $0.key < $1.key }) where timer.runs(in: safari) { consider(at, .pageTimer(timer)) }
        }
        for (index, delayed) in delayedReplies.enumerated() { consider(delayed.at, .delayedReply(index: index)) }
        if let alarm = safari.nextAlarm, !frozen { consider(alarm.at, .safari(.alarm(alarm.name))) }
        if let load = safari.loadEnds, !frozen { consider(load, .safari(.backgroundLoad)) }
        // A content script's timer stops as a page's does.
        if safari.platform == .macOS || safari.safariInForeground, let ask = safari.nextAskAgain { consider(ask.at, .safari(.pageAsksAgain(ask.tab))) }
        // A prompt's time is Safari's own (a timer of its UI process): it stops only while iOS
        // suspends Safari, not for a frozen background.
        if let expiry = safari.nextPromptExpiry, safari.platform == .macOS || safari.safariInForeground { consider(expiry, .safari(.permissionPrompt)) }
        return best.map { (max(now, $0.due), $0.what) }
    }

    /// Carries out what fell due that is the scheduler's own: a native timeout queues the
    /// background's timeout event, a held-back reply is queued. Safari's own timers are handed
    /// back, for Safari.
    mutating func fire(_ due: Due) -> SafariMachine.Due? {
        switch due {
        case .safari(let due):
            return due
        case .backgroundTimer(let id):
            timers[id] = nil
            queue.append(.backgroundInput(.timerFired(id.timer), for: id.incarnation))
        case .delayedReply(let index):
            queue.append(delayedReplies.remove(at: index).work)
        case .pageTimer(let timer):
            // The simulation hands it to the pages.
            pageTimers[timer] = nil
        }
        return nil
    }

    /// The device sleeps this long: monotonic time stops, so the background's timers and the
    /// replies held back fall due that much later on the wall clock, which moves on.
    mutating func sleep(for duration: EpochMillis) {
        timers = timers.mapValues { $0 + duration }
        pageTimers = pageTimers.mapValues { $0 + duration }
        delayedReplies = delayedReplies.map { ($0.at + duration, $0.work) }
        now += duration
        slept += duration
    }

    /// The power failed: no queued work, timer or held-back reply survives it.
    mutating func powerLost() {
        queue.removeAll()
        delayedReplies = []
        timers = [:]
        pageTimers = [:]
    }

    /// The first queued work that may run now: work of a `isBusy` kind waits (its process is
    /// held at a yield point), and so does work of the `deferring` kind; none when it is of the
    /// `stopBefore` kind (it stays queued).
    mutating func takeWork(deferring: Simulation.WorkKind?, stopBefore: Simulation.WorkKind?,
                           isBusy: (Simulation.WorkKind) -> Bool) -> Work? {
        queue.take({ kind in kind != deferring && !isBusy(kind) }, stopBefore: stopBefore)
    }

    /// The last moment anything pending falls due: a native timeout from now, a held-back
    /// reply or a timer.
    func lastDue(nativeTimeout: EpochMillis) -> EpochMillis {
        ([now + nativeTimeout] + delayedReplies.map(\.at) + timers.values).max()!
    }
}

/// Work waiting for its process, first in first out, kept in one lane per kind so that taking
/// the first work of the kinds that may run costs the same however much of other kinds waits
/// (native replies held back while the user goes on pile up in their lane, unread).
struct WorkQueue {
    /// Work with its place in the queue (smaller: earlier), oldest first from `head`.
    private struct Lane {
        var items: [(order: Int, work: Scheduler.Work)] = []
        var head = 0
        var first: (order: Int, work: Scheduler.Work)? { head < items.count ? items[head] : nil }

        mutating func removeFirst() -> Scheduler.Work {
            defer {
                head += 1
                if head > 64 && head * 2 > items.count {
                    items.removeFirst(head)
                    head = 0
                }
            }
            return items[head].work
        }
    }

    private static let kinds: [Simulation.WorkKind] = [.backgroundInput, .storageCompletion, .nativeRequest, .nativeReply, .appInput]
    /// A lane for each kind, at the kind's place in `kinds`.
    private var lanes = [Lane](repeating: Lane(), count: kinds.count)

    private static func lane(_ kind: Simulation.WorkKind) -> Int {
        switch kind {
        case .backgroundInput: 0
        case .storageCompletion: 1
        case .nativeRequest: 2
        case .nativeReply: 3
        case .appInput: 4
        }
    }
    private var nextOrder = 0
    /// Below every place given so far: for work put back at the front.
    private var frontOrder = -1

    var isEmpty: Bool { lanes.allSatisfy { $0.first == nil } }

    mutating func append(_ work: Scheduler.Work) {
        lanes[Self.lane(work.kind)].items.append((nextOrder, work))
        nextOrder += 1
    }

    static func += (queue: inout WorkQueue, works: [Scheduler.Work]) {
        for work in works { queue.append(work) }
    }

    /// Puts work back before everything queued.
    mutating func pushFront(_ work: Scheduler.Work) {
        let index = Self.lane(work.kind)
        if lanes[index].head > 0 {
            lanes[index].head -= 1
            lanes[index].items[lanes[index].head] = (frontOrder, work)
        } else {
            lanes[index].items.insert((frontOrder, work), at: 0)
        }
        frontOrder -= 1
    }

    /// Drops every queued work of these kinds.
    mutating func removeAll(of kinds: Set<Simulation.WorkKind>) {
        for kind in kinds { lanes[Self.lane(kind)] = Lane() }
    }

    mutating func removeAll() { lanes = [Lane](repeating: Lane(), count: Self.kinds.count) }

    /// The events queued for the background that no incarnation is named for, oldest first.
    var backgroundEvents: [ExtensionWire.Event] {
        let lane = lanes[Self.lane(.backgroundInput)]
        return lane.items[lane.head...].compactMap { if case .backgroundInput(let event, nil) = $0.work { event } else { nil } }
    }

    /// The earliest work among the kinds `eligible` accepts, taken off the queue; nil when there
    /// is none, or when it is of the `stopBefore` kind (it stays).
    mutating func take(_ eligible: (Simulation.WorkKind) -> Bool, stopBefore: Simulation.WorkKind?) -> Scheduler.Work? {
        var best: (kind: Simulation.WorkKind, order: Int)?
        for (index, kind) in Self.kinds.enumerated() where eligible(kind) {
            let lane = lanes[index]
            if lane.head < lane.items.count, lane.items[lane.head].order < best?.order ?? .max { best = (kind, lane.items[lane.head].order) }
        }
        guard let best, best.kind != stopBefore else { return nil }
        return lanes[Self.lane(best.kind)].removeFirst()
    }
}
