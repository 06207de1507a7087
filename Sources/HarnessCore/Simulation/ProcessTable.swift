import Foundation
import ProcessKit
import SiteSettings

/// The run's processes and where each one stands: the app, the front profile's background and
/// the handlers the system keeps for the next request (`handler reuse`). It starts each
/// incarnation (`ProcessLauncher`), gives the yield arbiter's verdict when one reaches a yield
/// point (`YieldArbiter`, which keeps the container's lock and the faults planned there),
/// keeps the books when an input leaves a process finished, waiting or dead, and resumes the
/// waiting ones as they may go on. What a process's directives and its death mean belongs to
/// the run it serves, its `Owner`.
package final class ProcessTable {
    /// Why a process is running: its part in the run.
    enum Role {
        case app, background
        case handler(incarnation: Int, request: Int)
        /// A handler serving the first version's extension: its request, numbered from 1.
        case legacy(Int)
    }

    /// The run a table serves: the time, the front profile, Safari and the handlers' fault as
    /// the processes meet them, and what a process's directives, its death and a power failure
    /// mean to it.
    protocol Owner: AnyObject {
        var now: EpochMillis { get }
        /// Safari's monotonic time at `now`, which every input carries.
        func uptime(at now: EpochMillis) -> EpochMillis
        /// The front profile: a background starts over its extension storage.
        var profile: String { get }
        var safari: SafariMachine { get }
        var handlerBehaviour: HandlerBehaviour { get }
        /// A process finished its input with these directives.
        func finished(_ directives: ProcessDriver.Directives, from driver: ProcessDriver, as role: Role)
        /// A process died during its input, or was killed where it waited.
        func died(_ driver: ProcessDriver, as role: Role)
        /// The app is gone.
        func appGone()
        /// The background is gone, and stopped so (`stop`) for Safari.
        func backgroundGone(_ driver: ProcessDriver, stop: BackgroundState)
        /// The power failed while a process ran its input: what it produced is lost with it.
        func powerFailed(during driver: ProcessDriver)
        /// Whether the background's stored cache is what it holds (a storage step failed, or it
        /// saved again).
        func backgroundCache(isStored: Bool)
        /// A profile's background logged this line (`LEVEL TEXT`).
        func backgroundLogged(_ line: String, profile: String)
        /// The numbers of the front profile's tabs (`tabs.Tab.id`), by name.
        var tabIds: [String: Int] { get }
        /// The name of the front window's active tab of the front profile, if it has one.
        var activeTabName: String? { get }
        /// The front profile's windows.
        var safariWindows: SafariWindows { get }
    }

    /// Set once the owner is made; the table lives only as long as its owner.
    unowned var owner: (any Owner)!
    private(set) var app: ProcessDriver?
    private(set) var background: ProcessDriver?
    /// Handler processes that answered and wait for the next request (`handler reuse`).
    private var idleHandlers: [ProcessDriver] = []
    private(set) var arbiter = YieldArbiter<(driver: ProcessDriver, role: Role)>()
    private var launcher: ProcessLauncher
    private let files: RunFiles
    private let trace: Trace
    private let monitor: InvariantMonitor
    /// The roles a process of which died of itself (invariant 18), each failing the run once.
    private var diedOfThemselves: Set<ProcessName> = []
    /// Roles not started again in this run, and why: one never said hello (the run has failed
    /// already, and is not played on as if it crashed), or one hung until it was ended (each
    /// incarnation after it would cost the watchdog's or the frame timeout's wall time).
    private var notStartedAgain: [ProcessName: String] = [:]
    /// The disk generation the running processes started in (in-process transport).
    private var bootGeneration = 0

    /// Known bugs switched on in every process of the run (`harness run --flaw`).
    var flaws: Set<Flaw> = []
    /// How many handler processes were started: one per native request the system kept no
    /// handler for.
    private(set) var handlerSpawns = 0
    /// How many changes were waiting to be flushed at each arrival at a yield point.
    private(set) var unsyncedAtArrivals: [Int] = []

    /// `executables` play the roles on the process transport.
    init(files: RunFiles, executables: ProcessExecutables, seed: UInt64, trace: Trace, monitor: InvariantMonitor) {
        self.files = files
        self.trace = trace
        self.monitor = monitor
        launcher = ProcessLauncher(transport: files.transport, executables: executables, containerDirectory: files.containerDirectory,
                                   disk: files.disk, seed: seed, trace: trace)
    }

    private var transport: Simulation.Transport { files.transport }
    private var disk: SimulatedDisk { files.disk }

    // MARK: - What can be read and planned

    /// The process past `lock` and not yet at `unlock`.
    var lockHolder: String? { arbiter.lockHolder }
    /// The yield points where processes wait now, as `name#n@point`.
    var waiting: [String] { arbiter.waiting.map { "\($0.label)@\($0.point.rawValue)" } }
    /// Every arrival at a yield point so far, in order.
    var arrivals: [YieldArrival] { arbiter.arrivals }
    /// The faults planned so far that no process ever got to.
    var faultsNeverReached: [PlannedFault] { arbiter.faultsNeverReached }
    /// Whether the arrival `crashAt` names was reached.
    var crashAtReached: Bool { arbiter.crashAtReached }
    /// The arrival at which to kill its process (a crash sweep's one crash per run).
    var crashAt: YieldArrival? {
        get { arbiter.crashAt }
        set { arbiter.crashAt = newValue }
    }
    /// A power cut planned at one arrival, until it happens.
    var powerCutAt: PowerCutPlan? {
        get { arbiter.powerCutAt }
        set { arbiter.powerCutAt = newValue }
    }
    /// The system reuses the handler's process (`handler reuse`): a handler that answered waits
    /// for the next request, keeping its statics; one that is busy does not take it.
    var handlerReuse: Bool {
        get { launcher.handlerReuse }
        set { launcher.handlerReuse = newValue }
    }
    /// The folder of the extension's files an update installed, which backgrounds started from
    /// then on run (nil: the run's).
    var installedExtension: String? {
        get { launcher.installedExtension }
        set { launcher.installedExtension = newValue }
    }
    /// Only for proving the transport-equality check: in-process processes hide this yield point.
    var hiddenYield: YieldPoint? {
        get { launcher.hiddenYield }
        set { launcher.hiddenYield = newValue }
    }

    /// The number of a process's latest incarnation (0 before the first).
    func incarnation(of name: ProcessName) -> Int { launcher.incarnation(of: name) }

    /// What each waiting process waits for, and who holds the container's lock.
    var stuck: [String] {
        let frozen = owner.safari.frozenByUser
        return arbiter.stuck { [background] holder in frozen && background?.label == holder }
    }

    /// Whether work of this kind must wait: its process is held at a yield point.
    func isBusy(_ kind: Simulation.WorkKind) -> Bool {
        switch kind {
        case .backgroundInput, .storageCompletion, .nativeReply: background.map { arbiter.isWaiting($0.label) } ?? false
        case .appInput: app.map { arbiter.isWaiting($0.label) } ?? false
        case .nativeRequest: false
        }
    }

    /// Stops the process at the yield point the next time it gets there, until `release`.
    package func hold(_ process: ProcessName, at point: YieldPoint) { arbiter.hold(process, at: point) }

    /// Lets a held process go on (it may still wait for the lock) and plays out what follows.
    package func release(_ process: ProcessName) {
        arbiter.release(process)
        wakeWaiters()
    }

    /// Kills the process when it next reaches `point`: a crash between two steps of a storage
    /// operation.
    func crash(_ process: ProcessName, at point: YieldPoint) { arbiter.crash(process, at: point) }

    /// Makes the storage step after `point` fail with `errno` the next time the process gets
    /// there (a full disk, an I/O error): the process must report it and keep what it had.
    /// With `after`, the step takes effect first (the data written, the rename done) and then
    /// reports the error, as a failed fsync does.
    func failStorage(_ process: ProcessName, at point: YieldPoint, errno: Int32, after: Bool = false) {
        arbiter.fail(process, at: point, errno: errno, after: after)
    }

    /// Gives up every hold, crash and failure planned and not yet used.
    func dropFaults() { arbiter.dropFaults() }

    // MARK: - Starting and serving

    /// Starts the next incarnation of a process, which becomes the app or the background, or
    /// records why it could not: a run that cannot start one of its processes has failed, and
    /// the problem names the executable. The trace, which never holds a path, says only which
    /// incarnation did not start.
    func start(_ name: ProcessName) -> ProcessDriver? {
        if let why = notStartedAgain[name] {
            trace.record(owner.now, "harness", "no \(name.rawValue) is started again: \(why)")
            return nil
        }
        do {
            let driver = try launcher.start(name, storageDirectory: files.storageDirectory(owner.profile),
                                            storageFolder: RunFiles.storageFolder(owner.profile))
            guard greeted(driver) else { return nil }
            driver.policy = { [unowned self, unowned driver] point in self.decide(driver, at: point) }
            driver.flaws = flaws.map(\.rawValue).sorted()
            driver.protocolBroken = { [monitor] problem in monitor.record(problem) }
            driver.logged = { [monitor, unowned owner, profile = owner.profile, label = driver.label] level, text, at, now in
                if name == .background { owner!.backgroundLogged("\(level.rawValue) \(text)", profile: profile) }
                if level == .error && text.hasPrefix("Uncaught") {
                    monitor.caught(Violation(.invariant(15), "\(label)\(at.map { " at \($0)" } ?? ""): \(text)"), now: now)
                }
            }
            driver.diedOfItself = { [unowned self, label = driver.label] death, now in
                // The first such death of each role fails the run; those after it say the same again.
                switch death {
                case .scriptDidNotYield, .unresponsive: notStartedAgain[name] = "\(label) hung"
                case .status, .outOfMemory: break
                }
                guard diedOfThemselves.insert(name).inserted else { return }
                monitor.caught(Violation(.invariant(18), "\(label) died without a cause: \(death)"), now: now)
            }
            driver.uptime = { [unowned owner] now in owner!.uptime(at: now) }
            driver.tabIds = { [unowned owner] in owner!.tabIds }
            driver.activeTab = { [unowned owner] in owner!.activeTabName }
            driver.windows = { [unowned owner] in owner!.safariWindows }
            switch name {
            case .app: app = driver
            case .background: background = driver
            case .handler: break
            }
            return driver
        } catch {
            let label = "\(name.rawValue)#\(launcher.incarnation(of: name))"
            trace.record(owner.now, label, "could not start")
            monitor.record(error is ChildProcess.SpawnError ? "\(error)" : "cannot start \(label): \(error)")
            return nil
        }
    }

    /// Whether a process just started said its `hello`. One that ends first, says something
    /// else or nothing in time fails the run, naming it and how it ended, and its role is not
    /// started again: it could not play its part, which is no crash of the product's.
    private func greeted(_ driver: ProcessDriver) -> Bool {
        let problem: String
        do {
            if try driver.child.awaitHello(timeoutMilliseconds: ProcessDriver.frameTimeout) { return true }
            let death = ProcessDriver.Death(driver.child.reap().status, stderr: driver.child.stderrTail, limits: driver.limits)
            let stderr = driver.child.stderrTail.suffix(300).trimmingCharacters(in: .whitespacesAndNewlines)
            problem = "\(driver.label) never said hello: \(death)" + (stderr.isEmpty ? "" : "; its stderr ends: \(stderr)")
        } catch .timedOut {
            problem = "\(driver.label) never said hello: it sent nothing for \(ProcessDriver.frameTimeout / 1000) s, and the harness killed it"
        } catch {
            problem = "\(driver.label): \(error)"
        }
        driver.kill(now: owner.now, reason: "never said hello")
        notStartedAgain[driver.name] = "\(driver.label) never said hello"
        monitor.record(problem)
        return false
    }

    /// Hands a native request to a handler process: one the system keeps, waiting since it
    /// last answered (`handler reuse`), or a new one.
    func serve(_ message: NativeRequest, profile: String, role: Role) {
        let handler: ProcessDriver
        if let reused = idleHandlers.popLast() {
            trace.record(owner.now, "harness", "\(reused.label) serves this request too: the system kept its process", rule: .handlerReused)
            handler = reused
        } else {
            handlerSpawns += 1
            guard let started = start(.handler) else { return }
            handler = started
        }
        let now = owner.now
        if launcher.executables.teamHandler && owner.handlerBehaviour == .crashing(afterWrite: false) {
            // A team's handler has no yield points: it crashes before its write as the request arrives.
            handler.kill(now: now, reason: "crashed as its request arrived")
            return complete(.died(.signaled(SIGKILL)), driver: handler, role: role)
        }
        complete(handler.begin(.handler(.requestArrived(message.json, profile: profile)), now: now), driver: handler, role: role)
    }

    /// A handler that answered: it ends, or, reused, waits for the next request.
    func answered(_ handler: ProcessDriver) {
        if handlerReuse { idleHandlers.append(handler) } else { handler.letEnd() }
    }

    // MARK: - Yield points

    /// The arbiter's verdict for a process at a yield point, as the driver carries it out.
    private func decide(_ driver: ProcessDriver, at point: YieldPoint) -> ProcessDriver.YieldChoice {
        unsyncedAtArrivals.append(transport == .inProcess ? disk.unsynced.count : 0)
        let crashingHandler = driver.name == .handler && owner.handlerBehaviour == .crashing(afterWrite: false)
        switch arbiter.arrive(driver.name, label: driver.label, at: point, crashingHandler: crashingHandler) {
        case .proceed:
            passed(driver, point, failing: false, after: false)
            return .proceed
        case .fail(let errno, let after):
            passed(driver, point, failing: true, after: after)
            return after ? .failAfter(errno: errno) : .fail(errno: errno)
        case .kill: return .kill
        case .wait: return .hold
        case .cutPower(let plan):
            // The power fails with this process at this point: it and everyone else stop here.
            disk.cutPowerNow(keeping: plan.keep)
            return .kill
        }
    }

    /// What invariants 5 and 10 learn from a process going on past a yield point of its storage:
    /// a read that fails leaves it with no cache; a rename that takes effect saves `storage.local`.
    private func passed(_ driver: ProcessDriver, _ point: YieldPoint, failing: Bool, after: Bool) {
        // An app whose storage step fails may not show the document until it reads it again
        // (invariant 10), and a handler's failure may come after its write.
        if failing && driver.name != .background { monitor.appMayMissAChange() }
        guard driver === background else { return }
        if point == .storageRead && failing { monitor.cacheUnreadable(profile: owner.profile) }
        // A failed storage step leaves the stored cache behind what the background holds
        // (invariant 11 reads the stored one), until it saves again.
        if failing && !(point == .storageRename && after) { owner.backgroundCache(isStored: false) }
        if point == .storageRename && (!failing || after) {
            monitor.localSaved(profile: owner.profile, by: driver.label, at: trace.time(owner.now))
            owner.backgroundCache(isStored: true)
        }
    }

    /// Carries out where an input left a process, then resumes whoever may go on.
    func complete(_ step: ProcessDriver.Step, driver: ProcessDriver, role: Role) {
        if transport == .inProcess && disk.generation != bootGeneration {
            // The power failed while this step ran: whatever it produced is lost with it.
            return owner.powerFailed(during: driver)
        }
        switch step {
        case .finished(let directives):
            // Invariant 9: no process keeps the container's lock while it waits for its next
            // input (the lock is released for it, as the next writer would otherwise wait for ever).
            if arbiter.lockHolder == driver.label || transport == .inProcess && disk.lockHolder == driver.label {
                monitor.caught(Violation(.invariant(9), "\(driver.label) finished its input still holding the container's lock"), now: owner.now)
            }
            arbiter.finished(driver.label)
            owner.finished(directives, from: driver, as: role)
        case .held(let point):
            arbiter.wait((driver, role), name: driver.name, label: driver.label, at: point)
        case .died:
            owner.died(driver, as: role)
        }
        wakeWaiters()
    }

    /// Resumes the first waiting process that may go on: not held by the user, and not waiting
    /// for a lock someone else holds.
    func wakeWaiters() {
        // A frozen background waits where it is, released or not, until it thaws.
        let frozen = owner.safari.isBackgroundFrozen ? background?.label : nil
        guard let (entry, resumption) = arbiter.nextToResume(skipping: frozen) else { return }
        let (driver, role) = entry.process
        let now = owner.now
        switch resumption {
        case .kill:
            driver.kill(now: now, reason: "killed at \(entry.point.rawValue)")
            complete(.died(.unknown), driver: driver, role: role)
        case .fail(let errno, let after):
            passed(driver, entry.point, failing: true, after: after)
            trace.record(now, driver.label, "resumed at \(entry.point.rawValue) to fail")
            complete(driver.resume(after ? .failAfter(errno: errno) : .fail(errno: errno), now: now), driver: driver, role: role)
        case .proceed:
            passed(driver, entry.point, failing: false, after: false)
            trace.record(now, driver.label, "resumed at \(entry.point.rawValue)")
            complete(driver.resume(.proceed, now: now), driver: driver, role: role)
        }
    }

    // MARK: - Ends

    /// Kills a process and forgets it, then resumes whoever may go on; a background is
    /// reported as stopping so (`stop`).
    func kill(_ driver: ProcessDriver, reason: String = "killed", stop: BackgroundState = .killed) {
        driver.kill(now: owner.now, reason: reason)
        forget(driver, stop: stop)
        wakeWaiters()
    }

    /// A dead process holds nothing: its lock is released and it waits nowhere. The owner
    /// learns that the app or the background it was is gone.
    func forget(_ driver: ProcessDriver, stop: BackgroundState = .killed) {
        idleHandlers.removeAll { $0 === driver }
        arbiter.forget(driver.label)
        disk.releaseLock(heldBy: driver.label)
        if app === driver {
            app = nil
            owner.appGone()
        }
        if background === driver {
            background = nil
            owner.backgroundGone(driver, stop: stop)
        }
    }

    /// The power failed: every process is gone, killed where it was (`also`: the one whose
    /// input was under way), and those started next start in the disk's new generation.
    func powerLost(also driver: ProcessDriver?) {
        bootGeneration = disk.generation
        for process in [driver, app, background].compactMap({ $0 }) + idleHandlers + arbiter.waiting.map(\.process.driver) {
            process.kill(now: owner.now, reason: "power lost")
        }
        idleHandlers = []
        arbiter.powerLost()
        app = nil
        background = nil
    }

    /// Kills every process still running. Safe to call more than once.
    func teardown(now: EpochMillis) {
        // The run is over and its trace taken: adding to it now would only copy it.
        for entry in arbiter.waiting { entry.process.driver.kill(now: now, reason: nil) }
        arbiter.powerLost()
        app?.kill(now: now, reason: nil)
        background?.kill(now: now, reason: nil)
        for handler in idleHandlers { handler.kill(now: now, reason: nil) }
        app = nil
        background = nil
        idleHandlers = []
        launcher.stopSpares()
    }
}
