import Glibc
import ProcessKit
import SiteSettings

/// The faults of a soak, at moments drawn from the seed on the wall clock: SIGKILL to the app,
/// the background or a running handler, whatever it is doing, the background's unload, and
/// Safari's restart. Right after a kill, before anyone can repair anything, the files must
/// parse (invariant 1).
struct SoakFaults {
    let context: SoakContext
    let safari: SoakShell
    let app: SoakApp
    let handlers: SoakHandlers

    func run(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        while !context.timeIsUp {
            usleep(UInt32(50_000 + random.below(950_000)))
            guard !context.timeIsUp else { return }
            switch random.below(100) {
            case 0..<30: kill(runningHandler(choosing: random.below(1 << 20)), "kill handler")
            case 30..<50: kill(safari.running, "kill background")
            case 50..<70: kill(app.running, "kill app")
            case 70..<88: safari.mailbox.post(.unload)
            default:
                context.log.fault("restart safari", "Safari restarts")
                kill(safari.running, "kill background")
                safari.mailbox.post(.restart)
            }
        }
    }

    /// A handler lives a few milliseconds: the kill lands on the first one running from the
    /// chosen moment on, within half a second.
    private func runningHandler(choosing index: Int) -> SoakChild? {
        for _ in 0..<500 {
            if let handler = handlers.anyRunning(choosing: index) { return handler }
            usleep(1_000)
        }
        return nil
    }

    private func kill(_ child: SoakChild?, _ kind: String) {
        guard let child else { return }
        context.log.fault(kind, "SIGKILL \(child.label)")
        child.kill()
        context.checkFiles(when: "\(child.label) was killed")
    }
}
