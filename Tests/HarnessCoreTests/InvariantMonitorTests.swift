@testable import HarnessCore
import Testing

/// Invariant 5's watch, fed what happens.
struct InvariantMonitorTests {
    @Test func aBackgroundWithACacheMustAnswerTheTabBeforeANativeReplyReachesIt() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.backgroundStarted(withCache: true)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.nativeReplyArrives(incarnation: 1, now: 0)
        #expect(monitor.violations == ["background#1 started with a cache but took a native reply before answering tab t1 (invariant 5)"])
    }

    @Test func anAnswerFirstOrNoCacheBreaksNothing() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.backgroundStarted(withCache: true)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.decisionSent(to: "t1")
        monitor.nativeReplyArrives(incarnation: 1, now: 0)
        monitor.backgroundStarted(withCache: false)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.nativeReplyArrives(incarnation: 2, now: 0)
        #expect(monitor.violations.isEmpty)
    }
}
