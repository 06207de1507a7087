@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Virtual time on its own: what falls due, when, and in which order.
struct SchedulerTests {
    /// Safari with background `incarnation` loaded at `loadedAt`, and an alarm at `alarm`.
    private func safari(loadedAt: EpochMillis? = nil, incarnation: Int = 1, alarm: EpochMillis? = nil) -> SafariMachine {
        var safari = SafariMachine(platform: .macOS)
        if let loadedAt { _ = safari.handle(.backgroundStarted(incarnation: incarnation), now: loadedAt) }
        if let alarm { _ = safari.handle(.backgroundFinished(incarnation: incarnation, [.setAlarm(at: alarm)]), now: alarm - SafariMachine.alarmMinimum) }
        return safari
    }

    @Test func theIdleUnloadFallsDue30SecondsAfterTheLastWake() throws {
        let clock = Scheduler(now: 1_000_000)
        let safari = safari(loadedAt: 1_000_000)
        #expect(clock.nextDue(before: 1_029_999, background: 1, frozen: false, safari: safari) == nil)
        let due = try #require(clock.nextDue(before: 1_100_000, background: 1, frozen: false, safari: safari))
        #expect(due.at == 1_030_000 && due.due == .safari(.idleUnload))
        #expect(clock.nextDue(before: 1_100_000, background: nil, frozen: false, safari: SafariMachine(platform: .macOS)) == nil, "nothing to unload")
    }

    @Test func aFrozenBackgroundsIdleUnloadTimersAndAlarmWaitButAHeldBackReplyDoesNot() throws {
        var clock = Scheduler(now: 0)
        clock.timers[.init(incarnation: 1, .nativeTimeout(1))] = 5_000
        clock.delayedReplies = [(at: 2_000, work: .appInput(.launched))]
        let due = try #require(clock.nextDue(before: 60_000, background: 1, frozen: true, safari: safari(loadedAt: 0, alarm: 1_000)))
        #expect(due.at == 2_000 && due.due == .delayedReply(index: 0))
    }

    @Test func atOneInstantTheIdleUnloadThenTimersByRequestThenScriptTimersThenPageTimersThenRepliesThenTheAlarm() throws {
        var clock = Scheduler(now: 0)
        var safari = safari(loadedAt: -30_000 + 10_000, alarm: 10_000)
        clock.timers[.init(incarnation: 1, .script(1))] = 10_000
        clock.timers[.init(incarnation: 1, .nativeTimeout(10))] = 10_000
        clock.timers[.init(incarnation: 1, .nativeTimeout(9))] = 10_000
        clock.delayedReplies = [(at: 10_000, work: .appInput(.launched))]
        clock.pageTimers[.init(load: PageLoad(.tab(PageKey(TabID("t1"))), number: 1), number: 2)] = 10_000
        var order: [Scheduler.Due] = []
        while let (at, due) = clock.nextDue(before: 20_000, background: 1, frozen: false, safari: safari) {
            #expect(at == 10_000)
            order.append(due)
            switch due {
            case .safari(let due):
                for case .killBackground(_, let stop) in safari.handle(.timeReached(due), now: at) {
                    _ = safari.handle(.backgroundDied(incarnation: 1, stop: stop), now: at)
                }
            case .backgroundTimer(let timer): clock.timers[timer] = nil
            case .delayedReply(let index): clock.delayedReplies.remove(at: index)
            case .pageTimer(let timer): clock.pageTimers[timer] = nil
            }
        }
        #expect(order == [.safari(.idleUnload), .backgroundTimer(.init(incarnation: 1, .nativeTimeout(9))), .backgroundTimer(.init(incarnation: 1, .nativeTimeout(10))),
                          .backgroundTimer(.init(incarnation: 1, .script(1))), .pageTimer(.init(load: PageLoad(.tab(PageKey(TabID("t1"))), number: 1), number: 2)), .delayedReply(index: 0),
                          .safari(.alarm(SafariMachine.decisionAlarm))])
    }

    @Test func overdueTimersFallDueNowInTheOrderTheyFellDue() throws {
        var clock = Scheduler(now: 3_600_000)
        clock.timers[.init(incarnation: 1, .nativeTimeout(1))] = 20_000
        let safari = safari(loadedAt: 0, alarm: 25_000)
        let first = try #require(clock.nextDue(before: 3_600_000, background: 1, frozen: false, safari: safari))
        #expect(first.at == 3_600_000 && first.due == .backgroundTimer(.init(incarnation: 1, .nativeTimeout(1))), "due at 20 s")
        clock.timers = [:]
        let second = try #require(clock.nextDue(before: 3_600_000, background: 1, frozen: false, safari: safari))
        #expect(second.due == .safari(.alarm(SafariMachine.decisionAlarm)), "due at 25 s, before the unload check's 30 s")
    }

    @Test func onlyTheLoadedIncarnationsTimersFire() {
        var clock = Scheduler(now: 0)
        clock.timers[.init(incarnation: 1, .nativeTimeout(1))] = 5_000
        #expect(clock.nextDue(before: 10_000, background: 2, frozen: false, safari: safari(loadedAt: 0, incarnation: 2)) == nil)
    }

    @Test func somethingOverdueFallsDueNowAndTimeNeverRunsBackwards() throws {
        let clock = Scheduler(now: 50_000)
        let due = try #require(clock.nextDue(before: 60_000, background: nil, frozen: false, safari: safari(alarm: 40_000)))
        #expect(due.at == 50_000 && due.due == .safari(.alarm(SafariMachine.decisionAlarm)))
    }

    @Test func workForABusyProcessOrOfADeferredKindWaitsAndStopBeforeLeavesItQueued() {
        var clock = Scheduler(now: 0)
        clock.queue += [.nativeReply(incarnation: 1, request: 1, outcome: .unreadable(.null)), .appInput(.launched), .backgroundInput(.alarmFired(name: ""))]
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
        queue.append(.backgroundInput(.alarmFired(name: "")))
        for _ in 1...80 { _ = queue.take({ $0 == .nativeRequest }, stopBefore: nil) }
        queue.pushFront(.backgroundInput(.safariCameToForeground))
        queue.pushFront(.nativeRequest(incarnation: 1, request: 0, message: .getEnabled, profile: "default"))
        var order: [String] = []
        while let work = queue.take({ _ in true }, stopBefore: nil) {
            switch work {
            case .nativeRequest(_, let request, _, _): order.append("request \(request)")
            case .backgroundInput(let event, _): order.append("\(event)")
            default: order.append("other")
            }
        }
        #expect(order == ["request 0", "safariCameToForeground"] + (81...100).map { "request \($0)" } + [#"alarmFired(name: "")"#])
        #expect(queue.isEmpty)
    }
}

