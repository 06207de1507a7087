import Glibc
import ProcessKit
import SiteSettings
import Synchronization

/// The containing app and its user: launched when it is not running, saving in bursts of edits
/// to the defaults and to sites (some the popup edits too, some only the app), and re-reading
/// when the handler's change notification reaches it. Killed by the faults at any moment.
final class SoakApp: Sendable {
    private let context: SoakContext
    private let current = Mutex<SoakChild?>(nil)
    private let launches = Mutex(0)
    private let notified = Atomic<Bool>(false)
    private let view = Mutex<AppView?>(nil)

    init(context: SoakContext) { self.context = context }

    /// The running app, to kill.
    var running: SoakChild? { current.withLock { $0 } }

    /// What the app shows now.
    var shown: AppView? { view.withLock { $0 } }

    /// The handler posted its change notification: a running app re-reads.
    func notify() { notified.store(true, ordering: .relaxed) }

    /// The user's bursts until the soak's time is up.
    func run(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        while !context.timeIsUp {
            let burst = 1 + random.below(8)
            for _ in 0..<burst where !context.timeIsUp {
                edit(&random)
            }
            usleep(UInt32(20_000 + random.below(280_000)))
        }
    }

    /// Healing: the app running, in front, showing the document as it is now.
    func bringToFront() {
        guard let app = launched() else { return }
        send(.cameToForeground, to: app)
    }

    private func edit(_ random: inout SeededRandom) {
        guard let app = launched() else { return }
        if notified.exchange(false, ordering: .relaxed) { send(.changeNotificationArrived, to: app) }
        let at = context.clock.now(unique: true)
        let edit: AppWire.UserEdit
        let number: Int
        switch random.below(10) {
        case 0..<3:
            let (values, fields) = SoakWorld.defaultsChange(&random)
            edit = .setDefaults(values)
            number = context.edits.record(.app, at: at, .defaults, values: fields)
        case 3:
            let site = (SoakWorld.sharedSites + SoakWorld.appSites)[random.below(4)]
            edit = .deleteSite(scope: site)
            number = context.edits.record(.app, at: at, .site(site), values: SoakWorld.deletion)
        default:
            let site = (SoakWorld.sharedSites + SoakWorld.appSites)[random.below(4)]
            let change = SoakWorld.siteChange(&random)
            edit = .changeSite(scope: site, set: change.set, reset: change.reset)
            number = context.edits.record(.app, at: at, .site(site), values: change.values)
        }
        context.log.operation("app edit", "\(app.label) <- edit #\(number) \(render(AppWire.encode(.userEdited(edit))))")
        guard let directives = send(.userEdited(edit), to: app, now: at) else { return }
        for directive in directives {
            switch directive {
            case .editSaved(let revision, _):
                context.edits.answer(number, saved: true)
                context.log.operation("app answer", "\(app.label) -> edit #\(number) saved as revision \(revision)")
            case .editRefused(.storageFailure, let message):
                // It may have struck after the write took effect: no answer for the oracle.
                context.log.operation("app answer", "\(app.label) -> edit #\(number) failed: \(message)")
            case .editRefused(_, let message):
                context.edits.answer(number, saved: false)
                context.log.operation("app answer", "\(app.label) -> edit #\(number) refused: \(message)")
            case .showView, .messageExtension:
                break
            }
        }
    }

    /// The app, launched first if it is not running.
    private func launched() -> SoakChild? {
        if let app = running { return app }
        let number = launches.withLock { $0 += 1; return $0 }
        let label = "app#\(number)"
        let app: SoakChild
        do {
            app = try SoakChild(.app, of: context.executables, ["--container", context.files.container], container: context.files.container, label: label,
                                group: context.group, log: context.log, flaws: context.flaws)
        } catch {
            context.log.violation("\(label) could not start: \(error)")
            return nil
        }
        current.withLock { $0 = app }
        context.log.operation("app launch", "\(label) launched")
        return send(.launched, to: app) == nil ? nil : app
    }

    /// One input; its directives, or nil when the app died. What it shows is kept.
    @discardableResult
    private func send(_ event: AppWire.Event, to app: SoakChild, now: EpochMillis? = nil) -> [AppWire.Output]? {
        switch app.exchange(.app(event), now: now ?? context.clock.now(), seed: context.seed) {
        case .done(let written):
            guard case .app(let directives) = written else {
                context.log.violation("\(app.label) answered with another role's directives")
                return []
            }
            for case .showView(let shown) in directives { view.withLock { $0 = shown } }
            return directives
        case .died(let status):
            current.withLock { if $0 === app { $0 = nil } }
            view.withLock { $0 = nil }
            context.died(app, status)
            return nil
        }
    }
}
