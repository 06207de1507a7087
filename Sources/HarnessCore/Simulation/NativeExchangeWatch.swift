import ProcessKit
import SiteSettings

/// The background's native exchanges as the checks follow them. A valid snapshot that arrives
/// in time becomes the cache, which the background's next save of `storage.local` must keep
/// (invariant 5). A request that timed out unanswered leaves its background owing a recovery:
/// the first event after it that is not itself a native exchange (`BackgroundMachine.NativeExchange.recoveryDue`),
/// a reconciliation point (invariant 7).
struct NativeExchangeWatch {
    let trace: Trace
    let monitor: InvariantMonitor
    /// The native requests whose answers reached the current background, and those whose
    /// timeouts did.
    private var answered: Set<Int> = []
    private var timedOut: Set<Int> = []
    /// When each request went out, and the requests the background gave a `nativeTimeout`
    /// timer. A background that keeps its timeouts as script timers (an extension's
    /// JavaScript) says nothing of which request a timer is for: its reply is late when it
    /// comes the design's timeout or more after its request.
    private var sentAt: [Int: EpochMillis] = [:]
    private var timed: Set<Int> = []
    /// The incarnation of the background whose native request last timed out, until its next
    /// event (its recovery).
    private var recoveryOwedBy: Int?

    init(trace: Trace, monitor: InvariantMonitor) {
        self.trace = trace
        self.monitor = monitor
    }

    /// A background started: it has exchanged nothing yet.
    mutating func backgroundStarted() {
        answered = []
        timedOut = []
        sentAt = [:]
        timed = []
    }

    /// What the current background sent at `now`: its native requests and their timers.
    mutating func sent(_ outputs: [ExtensionWire.Output], now: EpochMillis) {
        for output in outputs {
            switch output {
            case .sendNative(let request, _): sentAt[request] = now
            case .setTimer(.nativeTimeout(let request), _): timed.insert(request)
            default: break
            }
        }
    }

    /// Whether a reply to `request` arriving at `now` comes after its timeout.
    private func late(_ request: Int, now: EpochMillis) -> Bool {
        if timed.contains(request) { return timedOut.contains(request) }
        return sentAt[request].map { now - $0 >= BackgroundMachine.nativeTimeout } ?? false
    }

    /// A reply to one of its requests is about to reach the background.
    mutating func replyArrives(_ request: Int, _ outcome: NativeOutcome, incarnation: Int, now: EpochMillis) {
        monitor.nativeReplyArrives(incarnation: incarnation, now: now)
        answered.insert(request)
        // A late snapshot is dropped.
        if !late(request, now: now), case .replied(.snapshot(let snapshot)) = outcome {
            monitor.snapshotTaken("the snapshot of revision \(snapshot.revision) it took at \(trace.time(now))")
        }
    }

    /// The background took an event; true when that was the recovery it owed.
    mutating func took(_ input: ExtensionWire.Event, incarnation: Int) -> Bool {
        if case .timerFired(.nativeTimeout(let request)) = input {
            timedOut.insert(request)
            // A timeout for a request already answered (its timer fired while the answer was
            // still being handled, held at a yield point) ends nothing: no recovery follows.
            if !answered.contains(request) { recoveryOwedBy = incarnation }
        } else if recoveryOwedBy == incarnation, !input.isNativeExchange {
            recoveryOwedBy = nil
            return true
        }
        return false
    }
}
