import Glibc

/// A thread of the soak: each part of the simulated Safari, OS and user runs on its own, as the
/// real ones do. Blocking reads of children's pipes and waits belong on dedicated threads, not
/// on Swift's cooperative pool, which has two threads on these machines (PLATFORM.md).
final class SoakThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let handle: pthread_t

    /// Starts `body` at once; a machine that cannot make a thread cannot soak, so that stops the run.
    init(_ body: @escaping @Sendable () -> Void) {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let created = pthread_create(&handle, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else { fatalError("soak: cannot start a thread (errno \(created))") }
        self.handle = handle
    }

    /// Waits for the thread's body to return.
    func join() {
        pthread_join(handle, nil)
    }
}
