@testable import HarnessCore
import SiteSettings
import Testing

/// What the explorer's schedules are made of, beyond being valid scenarios (`ExplorerTests`).
struct ScheduleGeneratorTests {
    /// A stale cache is often a record of the first page's own keys, so that an answer that does
    /// not come from the cache can be told from one that does.
    @Test func aStaleCacheIsOftenARecordTheFirstPageReads() {
        var stale = 0, read = 0
        for seed in 1...400 as ClosedRange<UInt64> {
            let steps = ScheduleGenerator.schedule(seed: seed, count: 30).steps
            guard let cached = steps.lazy.compactMap({ step -> String? in
                if case .cache(.site(let scope, _)) = step { return scope.text } else { return nil }
            }).first else { continue }
            guard let first = steps.lazy.compactMap({ step -> String? in
                if case .tab(.open(_, let url, _, _, _)) = step { return url } else { return nil }
            }).first else {
                Issue.record("seed \(seed) opens no tab")
                continue
            }
            stale += 1
            let keys = ReferenceAddress.read(first).map { ReferenceDecision.keys(of: $0, suffixes: .embedded) } ?? []
            if keys.contains(cached) { read += 1 }
        }
        #expect(stale > 150 && read * 3 > stale, "\(read) of \(stale) stale caches are read by the first page")
    }

    /// With `loadTimes` (`harness explore --load-times`) about a quarter of the seeds give the
    /// background's load a time the explorer knows; without, none does, and every schedule is
    /// the one a run that could not draw one makes.
    @Test func loadTimesAreDrawnOnlyWhenAsked() {
        var drawn: [EpochMillis] = []
        for seed in 1...400 as ClosedRange<UInt64> {
            let plain = ScheduleGenerator.schedule(seed: seed, count: 30)
            #expect(plain.options.backgroundLoadTime == 0 && !plain.steps.contains { if case .backgroundLoadTime = $0 { true } else { false } })
            let timed = ScheduleGenerator.schedule(seed: seed, count: 30, loadTimes: true)
            let steps = timed.steps.compactMap { step -> EpochMillis? in if case .backgroundLoadTime(let time) = step { time } else { nil } }
            #expect(steps == (timed.options.backgroundLoadTime > 0 ? [timed.options.backgroundLoadTime] : []))
            drawn += steps
        }
        #expect(Set(drawn) == Set(ScheduleGenerator.loadTimes) && (60...140).contains(drawn.count), "\(drawn.count) of 400 seeds")
    }
}
