import Glibc
import Synchronization

/// A queue of work for one soak thread that other threads post to. The owner sleeps in `poll`
/// on a pipe until something arrives or its next timer is due, so an idle part costs no CPU.
final class Mailbox<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() {
        guard case .success(let ends) = Spawn.makePipe() else { fatalError("soak: no pipe for a mailbox") }
        (wakeRead, wakeWrite) = ends
        Spawn.setNonBlocking(wakeRead)
        Spawn.setNonBlocking(wakeWrite)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    func post(_ element: Element) {
        items.withLock { $0.append(element) }
        // A full pipe already holds a wake-up: a failed write loses nothing.
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// The oldest element, waiting up to `milliseconds` for one; nil when none came.
    func take(waitingUpTo milliseconds: Int) -> Element? {
        let deadline = Spawn.Deadline(after: max(0, milliseconds))
        while true {
            if let element = items.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return element }
            let left = deadline.remainingMilliseconds
            if left == 0 { return nil }
            var watch = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            _ = poll(&watch, 1, left)
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &drain, drain.count) > 0 {}
        }
    }

    var isEmpty: Bool { items.withLock { $0.isEmpty } }
}
