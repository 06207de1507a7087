@testable import HarnessCore
import ProcessKit
import Testing

/// Virtual time on its own: what falls due, when, and in which order.
struct SchedulerTests {
    @Test func theIdleUnloadFallsDue30SecondsAfterTheLastWake() throws {
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
        for request in 1...100 { queue.append(.nativeRequest(incarnation: 1, request: request, message: .getEnabled, profile: "default")) }
        queue.append(.backgroundInput(.alarmFired))
        for _ in 1...80 { _ = queue.take({ $0 == .nativeRequest }, stopBefore: nil) }
        queue.pushFront(.backgroundInput(.safariForeground))
        queue.pushFront(.nativeRequest(incarnation: 1, request: 0, message: .getEnabled, profile: "default"))
        var order: [String] = []
        while let work = queue.take({ _ in true }, stopBefore: nil) {
            switch work {
            case .nativeRequest(_, let request, _, _): order.append("request \(request)")
            case .backgroundInput(let event): order.append("\(event)")
            default: order.append("other")
            }
        }
        #expect(order == ["request 0", "safariForeground"] + (81...100).map { "request \($0)" } + ["alarmFired"])
        #expect(queue.isEmpty)
    }
}

