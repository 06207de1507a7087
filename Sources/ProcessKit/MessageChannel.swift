#if canImport(Glibc)
import Glibc
#endif

/// The frames between the harness and a shell on one of its own threads, passed as values: the
/// same messages in the same order as over a pipe, without encoding them to bytes and back or
/// a system call for each. Either side may close it; the other then sees the end, as a pipe's
/// reader sees end of file and its writer a broken pipe.
public final class MessageChannel: @unchecked Sendable {
    // Every field below is read and written only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var toChild: [ToChild] = []
    private var fromChild: [FromChild] = []
    private var inputClosed = false
    private var outputClosed = false

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Waits for `ready` to give a value, up to `milliseconds` (for ever when nil); the
    /// mutex is held while `ready` runs.
    private func wait<T>(upTo milliseconds: Int?, _ ready: () -> T?) -> T? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var deadline = timespec()
        if let milliseconds {
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let nanoseconds = deadline.tv_nsec + (milliseconds % 1000) * 1_000_000
            deadline.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
            deadline.tv_nsec = nanoseconds % 1_000_000_000
        }
        while true {
            if let value = ready() { return value }
            if milliseconds == nil {
                pthread_cond_wait(changed, mutex)
            } else if pthread_cond_timedwait(changed, mutex, &deadline) == ETIMEDOUT {
                return ready()
            }
        }
    }

    private func signal() { pthread_cond_broadcast(changed) }

    // MARK: The harness's end

    /// False when the shell has gone (its input is closed).
    public func send(_ message: ToChild) -> Bool {
        let sent = locked { () -> Bool in
            if !inputClosed { toChild.append(message) }
            return !inputClosed
        }
        signal()
        return sent
    }

    /// What the harness gets from the shell.
    public enum Received: Equatable, Sendable {
        case message(FromChild)
        /// The shell ended (or the channel was closed) and nothing more will come.
        case ended
        case timedOut
    }

    /// The shell's next message, waiting up to `milliseconds` (for ever when nil).
    public func receive(waitingUpTo milliseconds: Int?) -> Received {
        wait(upTo: milliseconds) { () -> Received? in
            if !fromChild.isEmpty { return .message(fromChild.removeFirst()) }
            return outputClosed ? .ended : nil
        } ?? .timedOut
    }

    /// The shell sees the end of its input.
    public func closeInput() {
        locked { inputClosed = true }
        signal()
    }

    /// Both directions end: the shell stops at its next step, and what it sends is dropped.
    public func close() {
        locked {
            inputClosed = true
            outputClosed = true
            toChild = []
            fromChild = []
        }
        signal()
    }

    // MARK: The shell's end

    /// The harness's next message, nil once its input is closed and read.
    func nextForShell() -> ToChild? {
        wait(upTo: nil) { () -> ToChild?? in
            if !toChild.isEmpty { return .some(toChild.removeFirst()) }
            return inputClosed ? .some(nil) : nil
        } ?? nil
    }

    /// False once the harness has closed the channel: the message is dropped.
    func sendFromShell(_ message: FromChild) -> Bool {
        let sent = locked { () -> Bool in
            if !outputClosed { fromChild.append(message) }
            return !outputClosed
        }
        signal()
        return sent
    }

    /// The shell has ended: the harness sees the end of its output.
    public func shellEnded() {
        locked { outputClosed = true }
        signal()
    }
}
