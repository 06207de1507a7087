import ProcessKit

/// Decides what happens to a process each time it reaches a yield point, and keeps the
/// container's lock: the holds, crashes and storage failures a scenario planned, a crash
/// sweep's one kill at a given arrival, a power cut planned at an arrival, and the rule that no
/// second process gets past `lock` while another holds it. It knows processes only by name and
/// label (`handler`, `handler#3`), so it is tested without any; `Process` is whatever the caller
/// needs back when a waiting process may go on.
struct YieldArbiter<Process> {
    /// What a process arriving at a yield point does now.
    enum Verdict: Equatable {
        case proceed
        /// The step fails with this errno (`after`: once it has taken effect).
        case fail(errno: Int32, after: Bool)
        case kill
        /// It waits here: held by the user, or for the lock.
        case wait
        /// The power fails here, keeping these of the changes not yet flushed.
        case cutPower(PowerCutPlan)
    }

    /// A process waiting at a yield point.
    struct Waiter {
        var process: Process
        var name: ProcessName
        var label: String
        var point: YieldPoint
    }

    /// What a waiting process does when it may go on.
    enum Resumption: Equatable {
        case proceed
        case fail(errno: Int32, after: Bool)
        case kill
    }

    /// Processes waiting, in the order they stopped.
    private(set) var waiting: [Waiter] = []
    /// The process past `lock` and not yet at `unlock`. A frozen holder keeps the others
    /// waiting; a dead one releases it, as `flock` does.
    private(set) var lockHolder: String?
    /// Every arrival so far, in order.
    private(set) var arrivals: [YieldArrival] = []
    private var arrivalCounts: [ArrivalKey: Int] = [:]
    private struct ArrivalKey: Hashable {
        var process: ProcessName
        var point: YieldPoint
    }

    private var holds: [ProcessName: YieldPoint] = [:]
    private var crashes: [ProcessName: YieldPoint] = [:]
    private var failures: [ProcessName: (point: YieldPoint, errno: Int32, after: Bool)] = [:]
    /// Holds whose process got to the point.
    private var holdsReached: Set<ProcessName> = []
    /// Faults replaced or released before their process ever got there.
    private var unreached: [PlannedFault] = []
    /// A crash sweep's kill at one arrival, and whether it happened.
    var crashAt: YieldArrival?
    private(set) var crashAtReached = false
    /// A power cut planned at one arrival, until it happens.
    var powerCutAt: PowerCutPlan?

    // MARK: - Plans

    /// Holds the process at the point the next time it gets there, until `release`.
    mutating func hold(_ process: ProcessName, at point: YieldPoint) {
        if let earlier = holds[process], !holdsReached.contains(process) { unreached.append(PlannedFault(.hold, process, at: earlier)) }
        holdsReached.remove(process)
        // A process already waiting there (for the lock) is held from now on: reached.
        if waiting.contains(where: { $0.name == process && $0.point == point }) { holdsReached.insert(process) }
        holds[process] = point
    }

    mutating func release(_ process: ProcessName) {
        if let point = holds[process], !holdsReached.contains(process) { unreached.append(PlannedFault(.hold, process, at: point)) }
        holds[process] = nil
    }

    /// Kills the process the next time it gets to the point.
    mutating func crash(_ process: ProcessName, at point: YieldPoint) {
        if let earlier = crashes[process] { unreached.append(PlannedFault(.crash, process, at: earlier)) }
        crashes[process] = point
    }

    /// Fails the storage step after the point the next time the process gets there.
    mutating func fail(_ process: ProcessName, at point: YieldPoint, errno: Int32, after: Bool) {
        if let earlier = failures[process] { unreached.append(PlannedFault(.fail, process, at: earlier.point)) }
        failures[process] = (point, errno, after)
    }

    /// The faults planned so far that no process ever got to.
    var faultsNeverReached: [PlannedFault] {
        unreached
            + holds.filter { !holdsReached.contains($0.key) }.map { PlannedFault(.hold, $0.key, at: $0.value) }
            + crashes.map { PlannedFault(.crash, $0.key, at: $0.value) }
            + failures.map { PlannedFault(.fail, $0.key, at: $0.value.point) }
    }

    /// Drops every hold, planned crash and failure (the run is being healed).
    mutating func dropFaults() {
        holds = [:]
        crashes = [:]
        failures = [:]
        crashAt = nil
    }

    // MARK: - Arrivals

    /// A process got to a yield point. `crashingHandler`: every handler dies at its first
    /// yield point (a planned failure there is used up all the same).
    mutating func arrive(_ name: ProcessName, label: String, at point: YieldPoint, crashingHandler: Bool = false) -> Verdict {
        let key = ArrivalKey(process: name, point: point)
        arrivalCounts[key, default: 0] += 1
        let arrival = YieldArrival(process: name, point: point, occurrence: arrivalCounts[key]!)
        arrivals.append(arrival)
        if let plan = powerCutAt, case .arrival(let at) = plan.place, at == arrival {
            powerCutAt = nil
            return .cutPower(plan)
        }
        if arrival == crashAt {
            crashAtReached = true
            faultsUsed += 1
            return .kill
        }
        // A planned crash or failure is used at the first arrival at its point, whatever else
        // happens there.
        if crashes[name] == point {
            crashes[name] = nil
            faultsUsed += 1
            return .kill
        }
        if let failure = failures[name], failure.point == point {
            failures[name] = nil
            faultsUsed += 1
            if !crashingHandler {
                releaseAfterFailedUnlock(label, at: point)
                return .fail(errno: failure.errno, after: failure.after)
            }
        }
        if crashingHandler { return .kill }
        if holds[name] == point {
            holdsReached.insert(name)
            faultsUsed += 1
            return .wait
        }
        if point == .lock {
            if let holder = lockHolder, holder != label { return .wait }
            lockHolder = label
        }
        if point == .unlock && lockHolder == label { lockHolder = nil }
        return .proceed
    }

    /// The process stopped at the point (after a `.wait` verdict).
    mutating func wait(_ process: Process, name: ProcessName, label: String, at point: YieldPoint) {
        waiting.append(Waiter(process: process, name: name, label: label, point: point))
    }

    /// The first waiting process that may go on (not held, and not waiting for a lock someone
    /// else holds), taken off the list with what it does now; the lock changes hands with it.
    /// `frozen` names a process that waits frozen (SIGSTOP): it cannot go on until it thaws,
    /// whatever else was decided for it.
    mutating func nextToResume(skipping frozen: String? = nil) -> (Waiter, Resumption)? {
        guard let index = waiting.firstIndex(where: { entry in
            entry.label != frozen && holds[entry.name] != entry.point
                && !(entry.point == .lock && lockHolder != nil && lockHolder != entry.label)
        }) else { return nil }
        let entry = waiting.remove(at: index)
        // A crash or failure planned for this point while the process waited there applies now.
        if crashes[entry.name] == entry.point {
            crashes[entry.name] = nil
            faultsUsed += 1
            return (entry, .kill)
        }
        if let failure = failures[entry.name], failure.point == entry.point {
            failures[entry.name] = nil
            faultsUsed += 1
            releaseAfterFailedUnlock(entry.label, at: entry.point)
            return (entry, .fail(errno: failure.errno, after: failure.after))
        }
        if entry.point == .lock { lockHolder = entry.label }
        if entry.point == .unlock && lockHolder == entry.label { lockHolder = nil }
        return (entry, .proceed)
    }

    /// A failed unlock still lets the lock go: the process closes the lock's descriptor
    /// (`ContainerStorage.closeLock`). Invariant 9 checks that it does, on the simulated disk.
    private mutating func releaseAfterFailedUnlock(_ label: String, at point: YieldPoint) {
        if point == .unlock && lockHolder == label { lockHolder = nil }
    }

    /// How many planned crashes, failures and holds have taken effect so far.
    private(set) var faultsUsed = 0

    /// Whether a hold, crash or failure is planned and not yet used, or a process waits at a
    /// yield point: the run is not quiet.
    var isDisturbed: Bool { !holds.isEmpty || !crashes.isEmpty || !failures.isEmpty || !waiting.isEmpty }

    /// Whether this process waits at a yield point.
    func isWaiting(_ label: String) -> Bool { waiting.contains { $0.label == label } }

    /// The process finished an input: container operations finish within one, so it keeps no
    /// lock past it (one whose lock step failed never took it).
    mutating func finished(_ label: String) {
        if lockHolder == label { lockHolder = nil }
    }

    /// The process is gone: it waits nowhere and holds no lock.
    mutating func forget(_ label: String) {
        waiting.removeAll { $0.label == label }
        if lockHolder == label { lockHolder = nil }
    }

    /// The power failed: every process is gone.
    mutating func powerLost() {
        waiting = []
        lockHolder = nil
    }

    /// What each waiting process waits for, and who holds the lock (`frozen`: whether a
    /// process is frozen, to say so of the holder).
    func stuck(frozen: (String) -> Bool) -> [String] {
        var lines: [String] = []
        for entry in waiting {
            let point = entry.point.rawValue
            if holds[entry.name] == entry.point {
                lines.append("\(entry.label) is held at \(point) by 'hold \(entry.name.rawValue) at \(point)', never released")
            } else if entry.point == .lock, let holder = lockHolder, holder != entry.label {
                lines.append("\(entry.label) waits at lock for the lock, which \(holder) holds")
            } else {
                lines.append("\(entry.label) waits at \(point)")
            }
        }
        if let holder = lockHolder, !waiting.contains(where: { $0.label == holder }) {
            lines.append("\(holder) holds the lock" + (frozen(holder) ? " and is frozen" : ""))
        }
        return lines
    }
}
