/// The crash sweep's plan for one scenario (`harness sweep`): from a run of it without faults,
/// every fault to try, each rerun on its own. A crash at every arrival of a process at a
/// yield point; in process, a power cut before every flush of the simulated disk, and wherever
/// a process reaches a yield point or the run ends with changes not yet flushed, keeping each
/// subset of those changes (six or fewer; else none, all and seeded samples).
package enum CrashSweep {
    /// One fault to try: what it is, the `harness run` options that reproduce it, and the plan.
    package struct Fault: Sendable {
        package let what: String
        package let options: String
        package let crashAt: YieldArrival?
        package let powerCut: PowerCutPlan?
    }

    /// Every fault to try in runs like `base`, crashes first.
    package static func faults(_ base: ScenarioRunner.Outcome, transport: Simulation.Transport, subsets: Int, seed: UInt64) -> [Fault] {
        let crashes = base.arrivals.map { Fault(what: "a crash at \($0)", options: "--crash \($0) --transport \(transport.rawValue)", crashAt: $0, powerCut: nil) }
        let cuts = transport == .inProcess ? powerCuts(base, subsets: subsets, seed: seed) : []
        return crashes + cuts.map { Fault(what: "a power loss at \($0)", options: "--power-loss \($0) --transport in-process", crashAt: nil, powerCut: $0) }
    }

    /// Where to cut the power in a run like `base`, and what to keep: before every flush, at
    /// every yield arrival and after the last step where changes wait unflushed (each subset
    /// of them when there are few), and before every flush with nothing waiting, once.
    static func powerCuts(_ base: ScenarioRunner.Outcome, subsets: Int, seed: UInt64) -> [PowerCutPlan] {
        var plans: [PowerCutPlan] = []
        for (index, pending) in base.unsyncedAtFlushes.enumerated() {
            plans += PowerCutPlan.plans(at: .flush(index + 1), pending: pending, samples: subsets, seed: seed &+ UInt64(index))
        }
        for (arrival, pending) in zip(base.arrivals, base.unsyncedAtArrivals) where pending > 0 {
            plans += PowerCutPlan.plans(at: .arrival(arrival), pending: pending, samples: subsets, seed: seed)
        }
        if base.unsyncedAtEnd > 0 {
            plans += PowerCutPlan.plans(at: .end, pending: base.unsyncedAtEnd, samples: subsets, seed: seed)
        }
        return plans
    }
}
