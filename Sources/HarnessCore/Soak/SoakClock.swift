import Glibc
import SiteSettings
import Synchronization

/// The soak's clock: wall time since the run began, from a fixed epoch (so documents and
/// traces do not depend on the machine's date), never running backwards. Every frame to a
/// child carries it, as virtual time does in step-by-step runs.
///
/// An edit's time (`unique`) is one no other edit has: the merge and the oracle order edits by
/// time first, and breaking ties between different processes' edits at one millisecond would
/// depend on numbering the oracle cannot see. The few edits per millisecond this costs move the
/// clock ahead of wall time by at most that much.
final class SoakClock: Sendable {
    /// 2026-03-01T09:00:00Z, the scenarios' usual epoch.
    static let epoch: EpochMillis = 1_772_355_600_000

    private let start = SoakClock.monotonicMilliseconds()
    private let last = Mutex<EpochMillis>(0)

    /// The time now; with `unique`, a time no earlier call gave.
    func now(unique: Bool = false) -> EpochMillis {
        let wall = Self.epoch + Self.monotonicMilliseconds() - start
        return last.withLock { last in
            last = max(unique ? last + 1 : last, wall)
            return last
        }
    }

    /// Milliseconds since the run began.
    var elapsed: EpochMillis { now() - Self.epoch }

    static func monotonicMilliseconds() -> EpochMillis {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return EpochMillis(time.tv_sec) * 1000 + EpochMillis(time.tv_nsec) / 1_000_000
    }
}
