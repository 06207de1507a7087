// Only Glibc: this file is linked into processes started once per request, where loading
// Foundation would cost several milliseconds of start-up.
import Glibc

/// Deadlines on the monotonic clock and `poll` for the timed reads and writes.
enum FrameClock {
    struct Deadline {
        /// The timeout as asked, for the error message.
        let milliseconds: Int
        /// Monotonic nanoseconds, or nil for no deadline.
        let instant: Int?

        static let never = Deadline(milliseconds: -1, instant: nil)

        init(after milliseconds: Int) {
            self.milliseconds = milliseconds
            let delta = milliseconds > Int.max / 1_000_000 ? Int.max : max(milliseconds, 0) * 1_000_000
            let (sum, overflow) = FrameClock.nowNanoseconds().addingReportingOverflow(delta)
            // A deadline past the end of the clock is no deadline.
            instant = overflow ? nil : sum
        }

        private init(milliseconds: Int, instant: Int?) {
            self.milliseconds = milliseconds
            self.instant = instant
        }

        /// Milliseconds left, rounded up so that a poll never returns before the deadline; -1 for none.
        var remaining: Int32 {
            guard let instant else { return -1 }
            let left = instant - FrameClock.nowNanoseconds()
            if left <= 0 { return 0 }
            return Int32(clamping: (left + 999_999) / 1_000_000)
        }
    }

    /// The monotonic clock, read only for wall-time limits on reading and writing frames (and
    /// for a free-running lock's wait, which the soak reports): I/O measuring itself, never an
    /// input to a state machine. Only the harness's side of a pipe asks for a deadline; a
    /// child's `WireGate` reads without one.
    static func nowNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    /// Returns once `descriptor` is ready for `events` (or has an error or hang-up for the next
    /// read or write to report); throws `.timedOut` at the deadline.
    static func waitUntilReady(_ descriptor: Int32, for events: Int16, until deadline: Deadline) throws(FrameError) {
        while true {
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let n = poll(&entry, 1, deadline.remaining)
            if n > 0 {
                if entry.revents & Int16(POLLNVAL) != 0 { throw .io(errno: EBADF) }
                return
            }
            if n == 0 {
                // poll may wake a little early by the kernel's reckoning: only a passed deadline counts.
                if deadline.remaining == 0 { throw .timedOut(milliseconds: deadline.milliseconds) }
                continue
            }
            let code = errno
            if code != EINTR { throw .io(errno: code) }
        }
    }

    /// strerror's text with a lower-case first letter, to fit lower-case messages.
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        let message = String(cString: text)
        guard let first = message.first else { return message }
        return first.lowercased() + message.dropFirst()
    }
}
