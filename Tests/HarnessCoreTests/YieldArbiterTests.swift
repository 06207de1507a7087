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

/// Virtual time on its own: what falls due, when, and in which order.
struct SchedulerTests {
    @Test func theIdleUnloadFallsDue30SecondsAfterTheLastInput() throws {
        var clock = Scheduler(now: 1_000_000)
        clock.lastWake = 1_000_000
        #expect(clock.nextDue(before: 1_029_999, background: 1, frozen: false) == nil)
        let due = try #require(clock.nextDue(before: 1_100_000, background: 1, frozen: false))
        #expect(due.at == 1_030_000 && due.due == .idleUnload)
        #expect(clock.nextDue(before: 1_100_000, background: nil, frozen: false) == nil, "nothing to unload")
    }

    @Test func aFrozenBackgroundsIdleUnloadTimersAndAlarmWaitButAHeldBackReplyDoesNot() throws {
        var clock = Scheduler(now: 0)
        clock.timers[.init(incarnation: 1, request: 1)] = 5_000
        clock.alarm = 1_000
        clock.delayedReplies = [(at: 2_000, work: .appInput(.launched))]
        let due = try #require(clock.nextDue(before: 60_000, background: 1, frozen: true))
        #expect(due.at == 2_000 && due.due == .delayedReply(index: 0))
    }

    @Test func atOneInstantTheIdleUnloadThenTimersByRequestThenRepliesThenTheAlarm() throws {
        var clock = Scheduler(now: 0)
        clock.lastWake = -30_000 + 10_000
        clock.timers[.init(incarnation: 1, request: 10)] = 10_000
        clock.timers[.init(incarnation: 1, request: 9)] = 10_000
        clock.delayedReplies = [(at: 10_000, work: .appInput(.launched))]
        clock.alarm = 10_000
        var order: [Scheduler.Due] = []
        while let (at, due) = clock.nextDue(before: 20_000, background: 1, frozen: false) {
            #expect(at == 10_000)
            order.append(due)
            switch due {
            case .idleUnload: clock.lastWake = 100_000
            case .nativeTimeout(let timer): clock.timers[timer] = nil
            case .delayedReply(let index): clock.delayedReplies.remove(at: index)
            case .alarm: clock.alarm = nil
            }
        }
        #expect(order == [.idleUnload, .nativeTimeout(.init(incarnation: 1, request: 9)), .nativeTimeout(.init(incarnation: 1, request: 10)),
                          .delayedReply(index: 0), .alarm])
    }

    @Test func aRecentlyUsedPortPostponesTheUnloadTo30SecondChecksUntil2MinutesHavePassed() {
        var clock = Scheduler(now: 0)
        clock.lastWake = 10_000
        #expect(clock.unloadTime(of: 1) == 40_000)
        clock.nativePort = .init(incarnation: 1, lastActivity: 0)
        // Checks at 40, 70 and 100 s find the port used less than 120 s ago; 130 s does not.
        #expect(clock.unloadTime(of: 1) == 130_000)
        #expect(clock.unloadTime(of: 2) == 40_000, "another incarnation's port holds nothing")
        clock.lastWake = 200_000
        #expect(clock.unloadTime(of: 1) == 230_000, "an old port holds nothing")
    }

    @Test func onlyTheLoadedIncarnationsTimersFire() {
        var clock = Scheduler(now: 0)
        clock.lastWake = 0
        clock.timers[.init(incarnation: 1, request: 1)] = 5_000
        #expect(clock.nextDue(before: 10_000, background: 2, frozen: false) == nil)
    }

    @Test func somethingOverdueFallsDueNowAndTimeNeverRunsBackwards() throws {
        var clock = Scheduler(now: 50_000)
        clock.alarm = 10_000
        let due = try #require(clock.nextDue(before: 60_000, background: nil, frozen: false))
        #expect(due.at == 50_000 && due.due == .alarm)
    }

    @Test func workForABusyProcessOrOfADeferredKindWaitsAndStopBeforeLeavesItQueued() {
        var clock = Scheduler(now: 0)
        clock.queue += [.nativeReply(incarnation: 1, request: 1, message: .null), .appInput(.launched), .backgroundInput(.alarmFired)]
        let first = clock.takeWork(deferring: .nativeReply, stopBefore: nil, isBusy: { $0 == .appInput })
        #expect(first?.kind == .backgroundInput)
        let stopped = clock.takeWork(deferring: nil, stopBefore: .nativeReply, isBusy: { _ in false })
        #expect(stopped == nil)
        let next = clock.takeWork(deferring: .nativeReply, stopBefore: nil, isBusy: { _ in false })
        #expect(next?.kind == .appInput)
    }

    @Test func workPutBackAtTheFrontComesBeforeEverythingQueued() {
        var queue = WorkQueue()
        for request in 1...100 { queue.append(.nativeRequest(incarnation: 1, request: request, message: .getEnabled)) }
        queue.append(.backgroundInput(.alarmFired))
        for _ in 1...80 { _ = queue.take({ $0 == .nativeRequest }, stopBefore: nil) }
        queue.pushFront(.backgroundInput(.safariForeground))
        queue.pushFront(.nativeRequest(incarnation: 1, request: 0, message: .getEnabled))
        var order: [String] = []
        while let work = queue.take({ _ in true }, stopBefore: nil) {
            switch work {
            case .nativeRequest(_, let request, _): order.append("request \(request)")
            case .backgroundInput(let event): order.append("\(event)")
            default: order.append("other")
            }
        }
        #expect(order == ["request 0", "safariForeground"] + (81...100).map { "request \($0)" } + ["alarmFired"])
        #expect(queue.isEmpty)
    }
}

