@testable import HarnessCore
import Testing

/// Invariant 5's watch, fed what happens.
struct InvariantMonitorTests {
    @Test func aBackgroundWithACacheMustAnswerTheTabBeforeANativeReplyReachesIt() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.backgroundStarted("background#1", profile: "default", withCache: true, now: 0)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.nativeReplyArrives(incarnation: 1, now: 0)
        #expect(monitor.violations.map(\.description) == ["background#1 started with a cache but took a native reply before answering tab t1 (invariant 5)"])
    }

    /// A probe checks only what every extension keeps: with the design's checks off, the
    /// design's invariants are not reported, and invariants 15 to 18 and the run's problems are.
    @Test func withTheDesignsChecksOffOnlyTheInvariantsOfEveryExtensionAreReported() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.checksDesign = false
        monitor.backgroundStarted("background#1", profile: "default", withCache: true, now: 0)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.nativeReplyArrives(incarnation: 1, now: 0)
        for number in [6, 15, 18] { monitor.caught(Violation(.invariant(number), "seen"), now: 0) }
        monitor.record("a process could not start")
        #expect(monitor.violations.map(\.property) == [.invariant(15), .invariant(18), .run])
    }

    @Test func anAnswerFirstOrNoCacheBreaksNothing() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.backgroundStarted("background#1", profile: "default", withCache: true, now: 0)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.decisionSent(to: "t1")
        monitor.nativeReplyArrives(incarnation: 1, now: 0)
        monitor.backgroundStarted("background#2", profile: "default", withCache: false, now: 0)
        monitor.backgroundTook(requestFrom: "t1")
        monitor.nativeReplyArrives(incarnation: 2, now: 0)
        #expect(monitor.violations.isEmpty)
    }

    /// The cache lives in extension storage: a background that saved one after a snapshot
    /// leaves it to the next, unless the store could not be read or the power failed.
    @Test func aCacheSavedAfterASnapshotMustBeThereAtTheNextStart() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.backgroundStarted("background#1", profile: "default", withCache: false, now: 0)
        monitor.localSaved(profile: "default", by: "background#1", at: "+0.000s")
        monitor.backgroundStarted("background#2", profile: "default", withCache: false, now: 0)
        // A save before any snapshot promises no cache.
        #expect(monitor.violations.isEmpty)
        monitor.snapshotTaken("the snapshot of revision 3 it took at +1.000s")
        monitor.localSaved(profile: "default", by: "background#2", at: "+1.000s")
        // Another profile's store is its own.
        monitor.backgroundStarted("background#3", profile: "work", withCache: false, now: 0)
        #expect(monitor.violations.isEmpty)
        monitor.backgroundStarted("background#4", profile: "default", withCache: false, now: 0)
        #expect(monitor.violations.map(\.description) == ["background#4 started with no cache in storage.local, though background#2 saved one at +1.000s, after the snapshot of revision 3 it took at +1.000s (invariant 5)"])
    }

    @Test func aFailedReadOrAPowerCutPromisesNoCache() {
        let monitor = InvariantMonitor(trace: Trace())
        monitor.cacheStored(profile: "default")
        monitor.cacheUnreadable(profile: "default")
        monitor.backgroundStarted("background#1", profile: "default", withCache: false, now: 0)
        monitor.snapshotTaken("the snapshot of revision 1 it took at +0.000s")
        monitor.localSaved(profile: "default", by: "background#1", at: "+0.000s")
        monitor.cachesMayBeLost()
        monitor.backgroundStarted("background#2", profile: "default", withCache: false, now: 0)
        #expect(monitor.violations.isEmpty)
        monitor.cacheStored(profile: "default")
        monitor.backgroundStarted("background#3", profile: "default", withCache: false, now: 0)
        #expect(monitor.violations.map(\.description) == ["background#3 started with no cache in storage.local, though the scenario stored one at the start (invariant 5)"])
    }
}
