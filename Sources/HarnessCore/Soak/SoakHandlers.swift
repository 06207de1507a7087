import ProcessKit
import SiteSettings
import Synchronization

/// Native handlers, one process per request (as under a scenario's `handler fresh`: the soak
/// loads the container with racing writers, and a kept process would serialise them), up to
/// `limit` of them at once, each on its own thread, so that several race for the container's lock. Requests
/// come from the background and from the first version's extension; a request waits for a free
/// slot as it would for the system to launch the extension.
final class SoakHandlers: Sendable {
    /// One native request and what to do with its answer.
    struct Request: Sendable {
        let message: NativeRequest
        /// An edit's time must be unique (the toggle is stamped with the handler's time).
        let stampsAnEdit: Bool
        /// Called just before the request is written, with the time its frame carries.
        let sending: @Sendable (EpochMillis) -> Void
        /// The reply, or nil when the handler ended without one; and whether it posted the
        /// change notification.
        let answered: @Sendable (NativeReply?, _ notified: Bool) -> Void
    }

    private let queue = Mailbox<Request?>()
    private let busy = Mutex(0)
    private let live = Mutex<[Int: SoakChild]>([:])
    private let started = Mutex(0)
    private let threads = Mutex<[SoakThread]>([])
    private let context: SoakContext

    init(limit: Int, context: SoakContext) {
        self.context = context
        let threads = (0..<limit).map { _ in SoakThread { [self] in serve() } }
        self.threads.withLock { $0 = threads }
    }

    func submit(_ request: Request) {
        busy.withLock { $0 += 1 }
        queue.post(request)
    }

    /// Requests waiting or being served.
    var outstanding: Int { busy.withLock { $0 } }

    /// A handler that is running now, to kill.
    func anyRunning(choosing index: Int) -> SoakChild? {
        live.withLock { live in
            let keys = live.keys.sorted()
            return keys.isEmpty ? nil : live[keys[index % keys.count]]
        }
    }

    /// Ends every thread once the requests already submitted are served.
    func stop() {
        let threads = self.threads.withLock { $0 }
        for _ in threads { queue.post(nil) }
        for thread in threads { thread.join() }
    }

    private func serve() {
        while true {
            guard let request = queue.take(waitingUpTo: 1000) else { continue }
            guard let request else { return }
            run(request)
            busy.withLock { $0 -= 1 }
        }
    }

    private func run(_ request: Request) {
        let number = started.withLock { $0 += 1; return $0 }
        let label = "handler#\(number)"
        let child: SoakChild
        do {
            child = try SoakChild(.handler, of: context.executables, ["--container", context.files.container], container: context.files.container, label: label,
                                  group: context.group, log: context.log, flaws: context.flaws,
                                  replyLimit: ProcessLauncher.handlerFrameLimit)
        } catch {
            context.log.violation("\(label) could not start: \(error)")
            return request.answered(nil, false)
        }
        live.withLock { $0[number] = child }
        let now = context.clock.now(unique: request.stampsAnEdit)
        request.sending(now)
        let kind = request.message.name
        context.log.operation("native \(kind)", "\(label) <- \(kind)")
        let outcome = child.exchange(.handler(.requestArrived(request.message.json)), now: now, seed: context.seed)
        live.withLock { $0[number] = nil }
        switch outcome {
        case .done(let written):
            _ = child.process.wait(timeoutMilliseconds: SoakChild.answerTimeout)
            var reply: NativeReply?
            var notified = false
            guard case .handler(let directives) = written else {
                context.log.violation("\(label) answered with another role's directives")
                request.answered(nil, false)
                return
            }
            for directive in directives {
                switch directive {
                case .reply(let answer): reply = answer
                // The built-in handler answers in the design's replies only.
                case .answer, .cancel, .neverCompleted, .dispatchMessage: break
                case .postChangeNotification: notified = true
                }
            }
            context.log.operation("native reply", "\(label) -> \(reply.map { render($0.json) }.map { String($0.prefix(160)) } ?? "no reply")")
            request.answered(reply, notified)
        case .died(let status):
            context.died(child, status)
            request.answered(nil, false)
        }
    }
}
