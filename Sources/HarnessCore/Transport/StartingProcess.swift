import Dispatch
import ProcessKit
import Synchronization

/// A process being started on another thread, so that the thread that will speak to it does
/// not wait for `posix_spawn` (a millisecond or two with the pipes and the stderr thread).
/// Taking it waits for the start to finish.
final class StartingProcess: Sendable {
    private let started = DispatchSemaphore(value: 0)
    private let result = Mutex<ChildProcess?>(nil)

    init(_ start: @escaping @Sendable () -> ChildProcess?) {
        DispatchQueue.global().async { [self] in
            let child = start()
            result.withLock { $0 = child }
            started.signal()
        }
    }

    /// The process, once started; nil when it could not start.
    var child: ChildProcess? {
        started.wait()
        started.signal()
        return result.withLock { $0 }
    }
}
