import ProcessKit
import SiteSettings

/// Virtual time and everything waiting on it: the work queued for the processes, the
/// background's native-timeout timers, its alarm, the replies a slow handler holds back, and
/// the background's idle unload. It decides what falls due next; the simulation carries it out.
struct Scheduler {
    /// A piece of work for a process, queued until the simulation gets to it.
    enum Work {
        case backgroundInput(ExtensionWire.Event)
        /// The app's message on the native port of one background incarnation: it reaches that
        /// incarnation or nobody.
        case portMessage(incarnation: Int)
        case storageCompletion(incarnation: Int, token: Int)
        /// A request the background sent, with the Safari profile it came from.
        case nativeRequest(incarnation: Int, request: Int, message: NativeRequest, profile: String)
        /// A reply for the background: what the handler answered, or what stood in for it (a
        /// garbage reply, Safari's rejection), as it travels.
        case nativeReply(incarnation: Int, request: Int, message: JSONValue)
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
    struct NativeRequestID: Hashable, Comparable {
        var incarnation: Int
        var request: Int
        static func < (a: NativeRequestID, b: NativeRequestID) -> Bool { (a.incarnation, a.request) < (b.incarnation, b.request) }
    }

    /// Something that falls due at a moment of virtual time.
    enum Due: Equatable {
        /// Safari unloads the background: `idleUnload` after it was last woken.
        case idleUnload
        case nativeTimeout(NativeRequestID)
        /// The reply a slow handler held back, by its place in `delayedReplies`.
        case delayedReply(index: Int)
        case alarm
    }

    /// Safari unloads a non-persistent background this long after it was last woken (WebKit,
    /// `WebExtensionContext::scheduleBackgroundContentToUnload`: `delayBeforeUnloading`, 30 s,
    /// on macOS and iOS alike).
    static let idleUnload: EpochMillis = 30_000

    var now: EpochMillis
    var queue = WorkQueue()
    var timers: [NativeRequestID: EpochMillis] = [:]
    var alarm: EpochMillis?
    /// Replies held back by a slow handler, with when they arrive.
    var delayedReplies: [(at: EpochMillis, work: Work)] = []
    /// When the loaded background was last woken: loaded, or handed an event it listens for.
    /// Safari's unload timer is re-armed only then (WebKit,
    /// `WebExtensionContext::wakeUpBackgroundContentIfNecessary` and
    /// `performTasksAfterBackgroundContentLoads`), never by native replies, storage, its own
    /// timers or messages arriving on a port.
    var lastWake: EpochMillis = 0
    /// The native port the loaded background holds, if any.
    var nativePort: NativePort?

    /// A background's port to the native app, and when it last opened or posted on it.
    struct NativePort: Equatable {
        var incarnation: Int
        var lastActivity: EpochMillis
    }

    /// Safari postpones an unload, 30 s at a time, while the background holds an open port it
    /// opened or posted on less than this long ago (WebKit,
    /// `WebExtensionContext::unloadBackgroundContentIfPossible`: `delayForInactivePorts`;
    /// `m_lastBackgroundPortActivityTime` is set only by the background's own `addPorts` and
    /// `portPostMessage`, never by messages arriving on the port).
    static let portKeepAlive: EpochMillis = 120_000

    /// When Safari unloads the loaded background `incarnation` if nothing wakes it first: at
    /// the first 30 s check after its last wake at which no recently used port holds it.
    func unloadTime(of incarnation: Int) -> EpochMillis {
        var at = lastWake + Self.idleUnload
        if let port = nativePort, port.incarnation == incarnation, at < port.lastActivity + Self.portKeepAlive {
            let checks = (port.lastActivity + Self.portKeepAlive - lastWake + Self.idleUnload - 1) / Self.idleUnload
            at = lastWake + checks * Self.idleUnload
        }
        return at
    }

    init(now: EpochMillis) { self.now = now }

    /// The first thing due no later than `end`, and when. Something overdue (an alarm of a
    /// profile that was out of sight) is due now: time never runs backwards. At one instant the
    /// idle unload comes first, then the loaded background's timers by request, then held-back
    /// replies in the order they were held, then the alarm. A frozen background's idle unload,
    /// timers and alarm wait; `background` is its incarnation when one is loaded.
    func nextDue(before end: EpochMillis, background: Int?, frozen: Bool) -> (at: EpochMillis, due: Due)? {
        var best: (at: EpochMillis, due: Due)?
        func consider(_ due: EpochMillis, _ what: Due) {
            let at = max(now, due)
            if at <= end, best.map({ at < $0.at }) ?? true { best = (at, what) }
        }
        if let background, !frozen {
            consider(unloadTime(of: background), .idleUnload)
            for (timer, at) in timers.sorted(by: { $0.key < $1.key }) where timer.incarnation == background {
                consider(at, .nativeTimeout(timer))
            }
        }
        for (index, delayed) in delayedReplies.enumerated() { consider(delayed.at, .delayedReply(index: index)) }
        if let alarm, !frozen { consider(alarm, .alarm) }
        return best
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
