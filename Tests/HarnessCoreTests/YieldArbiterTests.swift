@testable import HarnessCore
import ProcessKit
import Testing

/// The yield and lock rules on their own: no process is started.
struct YieldArbiterTests {
    typealias Arbiter = YieldArbiter<String>

    @Test func aSecondWriterWaitsAtTheLockUntilTheHolderUnlocks() throws {
        var arbiter = Arbiter()
        #expect(arbiter.arrive(.app, label: "app#1", at: .lock) == .proceed)
        #expect(arbiter.lockHolder == "app#1")
        #expect(arbiter.arrive(.handler, label: "handler#1", at: .lock) == .wait)
        arbiter.wait("handler#1", name: .handler, label: "handler#1", at: .lock)
        #expect(arbiter.nextToResume() == nil, "the lock is still the app's")
        #expect(arbiter.arrive(.app, label: "app#1", at: .unlock) == .proceed)
        #expect(arbiter.lockHolder == nil)
        let resumed = arbiter.nextToResume()
        #expect(resumed?.0.label == "handler#1" && resumed?.1 == .proceed)
        #expect(arbiter.lockHolder == "handler#1", "the lock passes to the one that waited")
        #expect(arbiter.waiting.isEmpty)
    }

    @Test func aDeadHolderReleasesTheLockAsFlockDoes() {
        var arbiter = Arbiter()
        _ = arbiter.arrive(.app, label: "app#1", at: .lock)
        arbiter.forget("app#1")
        #expect(arbiter.lockHolder == nil)
        #expect(arbiter.arrive(.handler, label: "handler#1", at: .lock) == .proceed)
        arbiter.finished("handler#1")
        #expect(arbiter.lockHolder == nil, "no process keeps the lock past its input")
    }

    @Test func aHoldStopsTheProcessUntilReleasedAndCountsAsReached() throws {
        var arbiter = Arbiter()
        arbiter.hold(.handler, at: .rename)
        #expect(arbiter.arrive(.handler, label: "handler#1", at: .read) == .proceed)
        #expect(arbiter.arrive(.handler, label: "handler#1", at: .rename) == .wait)
        arbiter.wait("h", name: .handler, label: "handler#1", at: .rename)
        #expect(arbiter.nextToResume() == nil)
        #expect(arbiter.stuck { _ in false } == ["handler#1 is held at rename by 'hold handler at rename', never released"])
        arbiter.release(.handler)
        let resumed = arbiter.nextToResume()
        #expect(resumed?.1 == .proceed)
        #expect(arbiter.faultsNeverReached.isEmpty)
    }

    @Test func aReleasedProcessThatIsFrozenWaitsUntilItThaws() {
        var arbiter = Arbiter()
        arbiter.hold(.background, at: .storageRename)
        #expect(arbiter.arrive(.background, label: "background#1", at: .storageRename) == .wait)
        arbiter.wait("b", name: .background, label: "background#1", at: .storageRename)
        arbiter.release(.background)
        #expect(arbiter.nextToResume(skipping: "background#1") == nil, "frozen: it cannot go on")
        #expect(arbiter.waiting.count == 1)
        #expect(arbiter.nextToResume()?.1 == .proceed, "thawed, it goes on")
    }

    @Test func aCrashPlannedWhileTheProcessWaitsThereKillsItWhenItWouldGoOn() throws {
        var arbiter = Arbiter()
        arbiter.hold(.app, at: .rename)
        _ = arbiter.arrive(.app, label: "app#1", at: .rename)
        arbiter.wait("a", name: .app, label: "app#1", at: .rename)
        arbiter.crash(.app, at: .rename)
        arbiter.release(.app)
        let resumed = arbiter.nextToResume()
        #expect(resumed?.1 == .kill)
    }

    @Test func aPlannedFailureIsUsedAtTheFirstArrivalOnly() {
        var arbiter = Arbiter()
        arbiter.fail(.app, at: .writeTemp, errno: 28, after: false)
        #expect(arbiter.arrive(.app, label: "app#1", at: .writeTemp) == .fail(errno: 28, after: false))
        #expect(arbiter.arrive(.app, label: "app#1", at: .writeTemp) == .proceed)
    }

    @Test func aCrashingHandlerDiesAtItsFirstYieldPointAndUsesUpAFailurePlannedThere() {
        var arbiter = Arbiter()
        arbiter.fail(.handler, at: .read, errno: 5, after: false)
        #expect(arbiter.arrive(.handler, label: "handler#1", at: .read, crashingHandler: true) == .kill)
        #expect(arbiter.faultsNeverReached.isEmpty)
    }

    @Test func arrivalsAreCountedPerProcessAndPointAndTheSweepsCrashHitsTheNamedOne() {
        var arbiter = Arbiter()
        arbiter.crashAt = YieldArrival(process: .handler, point: .rename, occurrence: 2)
        #expect(arbiter.arrive(.handler, label: "handler#1", at: .rename) == .proceed)
        #expect(arbiter.arrive(.app, label: "app#1", at: .rename) == .proceed)
        #expect(!arbiter.crashAtReached)
        #expect(arbiter.arrive(.handler, label: "handler#2", at: .rename) == .kill)
        #expect(arbiter.crashAtReached)
        #expect(arbiter.arrivals.map(\.description) == ["handler@rename#1", "app@rename#1", "handler@rename#2"])
    }

    @Test func aPowerCutPlannedAtAnArrivalHappensThereOnce() {
        var arbiter = Arbiter()
        let plan = PowerCutPlan(.arrival(YieldArrival(process: .app, point: .writeTemp, occurrence: 1)), kept: .none)
        arbiter.powerCutAt = plan
        #expect(arbiter.arrive(.app, label: "app#1", at: .writeTemp) == .cutPower(plan))
        #expect(arbiter.powerCutAt == nil)
    }

    @Test func aFaultReplacedOrReleasedBeforeItsProcessGotThereIsNeverReached() {
        var arbiter = Arbiter()
        arbiter.hold(.handler, at: .rename)
        arbiter.hold(.handler, at: .lock)
        arbiter.crash(.app, at: .read)
        arbiter.crash(.app, at: .rename)
        arbiter.release(.handler)
        #expect(Set(arbiter.faultsNeverReached) == [PlannedFault(.hold, .handler, at: .rename), PlannedFault(.hold, .handler, at: .lock),
                                                    PlannedFault(.crash, .app, at: .read), PlannedFault(.crash, .app, at: .rename)])
        arbiter.dropFaults()
        #expect(Set(arbiter.faultsNeverReached) == [PlannedFault(.hold, .handler, at: .rename), PlannedFault(.hold, .handler, at: .lock),
                                                    PlannedFault(.crash, .app, at: .read)], "the replaced ones stay on record")
    }

    @Test func stuckNamesTheWaiterAndAFrozenHolder() {
        var arbiter = Arbiter()
        _ = arbiter.arrive(.background, label: "background#1", at: .lock)
        _ = arbiter.arrive(.handler, label: "handler#2", at: .lock)
        arbiter.wait("h", name: .handler, label: "handler#2", at: .lock)
        #expect(arbiter.stuck { $0 == "background#1" } == [
            "handler#2 waits at lock for the lock, which background#1 holds",
            "background#1 holds the lock and is frozen",
        ])
    }
}
