import ProcessKit
import SiteSettings

/// Virtual time and everything waiting on it: the work queued for the processes, the
/// background's native-timeout timers, its alarm, the replies a slow handler holds back, and
/// the background's idle unload. It decides what falls due next; the simulation carries it out.
struct Scheduler {
    /// A piece of work for a process, queued until the simulation gets to it.
    enum Work {
        case backgroundInput(ExtensionWire.Event)
        case storageCompletion(incarnation: Int, token: Int)
        case nativeRequest(incarnation: Int, request: Int, message: NativeRequest)
        /// A reply for the background: what the handler answered, or what stood in for it (a
        /// garbage reply, Safari's rejection), as it travels.
        case nativeReply(incarnation: Int, request: Int, message: JSONValue)
        /// `edit`: the number of the user's edit it carries.
        case appInput(AppWire.Event, edit: Int? = nil)

        var kind: Simulation.WorkKind {
            switch self {
            case .backgroundInput: .backgroundInput
            case .storageCompletion: .storageCompletion
            case .nativeRequest: .nativeRequest
            case .nativeReply: .nativeReply
            case .appInput: .appInput
            }
        }
    }

    /// A native-timeout timer: one background incarnation's request.
    struct NativeTimer: Hashable, Comparable {
        var incarnation: Int
        var request: Int
        static func < (a: NativeTimer, b: NativeTimer) -> Bool { (a.incarnation, a.request) < (b.incarnation, b.request) }
    }

    /// Something that falls due at a moment of virtual time.
    enum Due: Equatable {
        /// Safari unloads the background: `idleUnload` after its last input.
        case idleUnload
        case nativeTimeout(NativeTimer)
        /// The reply a slow handler held back, by its place in `delayedReplies`.
        case delayedReply(index: Int)
        case alarm
    }

    /// Safari unloads the background this long after the last input it received.
    static let idleUnload: EpochMillis = 30_000

    var now: EpochMillis
    var queue: [Work] = []
    var timers: [NativeTimer: EpochMillis] = [:]
    var alarm: EpochMillis?
    /// Replies held back by a slow handler, with when they arrive.
    var delayedReplies: [(at: EpochMillis, work: Work)] = []
    /// When the loaded background last received an input.
    var lastBackgroundInput: EpochMillis = 0

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
            consider(lastBackgroundInput + Self.idleUnload, .idleUnload)
            for (timer, at) in timers.sorted(by: { $0.key < $1.key }) where timer.incarnation == background {
                consider(at, .nativeTimeout(timer))
            }
        }
        for (index, delayed) in delayedReplies.enumerated() { consider(delayed.at, .delayedReply(index: index)) }
        if let alarm, !frozen { consider(alarm, .alarm) }
        return best
    }

    /// The first queued work that may run now: `isBusy` work waits (its process is held at a
    /// yield point), and so does work of the `deferring` kind; none when it is of the
    /// `stopBefore` kind (it stays queued).
    mutating func takeWork(deferring: Simulation.WorkKind?, stopBefore: Simulation.WorkKind?, isBusy: (Work) -> Bool) -> Work? {
        guard let index = queue.firstIndex(where: { !isBusy($0) && $0.kind != deferring }), queue[index].kind != stopBefore else { return nil }
        return queue.remove(at: index)
    }

    /// The last moment anything pending falls due: a native timeout from now, a held-back
    /// reply or a timer.
    func lastDue(nativeTimeout: EpochMillis) -> EpochMillis {
        ([now + nativeTimeout] + delayedReplies.map(\.at) + timers.values).max()!
    }
}
