import ProcessKit
import SiteSettings

/// The power cuts planned for an in-process run (real disks are not ours to cut), each kept
/// where it happens: before a flush of the simulated disk by the disk, when a process reaches a
/// yield point by the yield arbiter, and after the last step here, until the run gets there.
struct PowerCuts {
    let disk: SimulatedDisk
    let processes: ProcessTable
    /// A power cut planned for the end of the run, not yet carried out.
    private var atEnd: PowerCutPlan?

    init(disk: SimulatedDisk, processes: ProcessTable) {
        self.disk = disk
        self.processes = processes
    }

    /// Plans a power cut.
    mutating func plan(_ plan: PowerCutPlan) {
        switch plan.place {
        case .flush(let flush): disk.cutPower(SimulatedDisk.PowerCut(flush: flush, keep: plan.keep))
        case .arrival: processes.powerCutAt = plan
        case .end: atEnd = plan
        }
    }

    /// Gives up a planned power cut that has not happened (an explored run that ended before it).
    mutating func drop() {
        disk.cutPower(nil)
        processes.powerCutAt = nil
        atEnd = nil
    }

    /// Whether a planned power cut has not happened.
    var pending: Bool { processes.powerCutAt != nil || atEnd != nil || disk.powerCutPending }

    /// Cuts the power if that was planned for the end of the run (after the last step, before
    /// healing); true when it did.
    mutating func cutAtTheEnd() -> Bool {
        guard let plan = atEnd else { return false }
        atEnd = nil
        disk.cutPowerNow(keeping: plan.keep)
        return true
    }
}
