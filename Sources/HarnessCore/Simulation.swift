#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// The simulated Safari, operating system and user around the three real processes, with
/// virtual time. Every method is one thing that happens; `settle` lets the consequences play
/// out (storage completing, native requests served by a fresh handler each, replies routed
/// back, notifications delivered) until nothing is left to do. Time moves only with `advance`,
/// which fires timers, alarms and the background's idle unload in order.
///
/// It is a façade over parts that each hold one concern: what Safari shows (`SafariModel`),
/// virtual time and queued work (`Scheduler`), yield points and the container's lock
/// (`YieldArbiter`), starting processes (`ProcessLauncher`) and the invariants
/// (`InvariantMonitor`). What is left here is carrying messages between them and the processes.
public final class Simulation {
    public enum Platform: String, CaseIterable, Sendable { case iOS = "ios", macOS = "macos" }

    /// How the three processes run: as real OS processes (the default and the truth), or as
    /// the same shells on threads of the harness over a simulated disk (for speed). The same
    /// run gives the same trace on both.
    public enum Transport: String, Sendable { case process, inProcess = "in-process" }

    public typealias Tab = SafariModel.Tab

    /// The kinds of pending work, to stop `settle` before one, or let all but one play out.
    public enum WorkKind: Sendable { case backgroundInput, storageCompletion, nativeRequest, nativeReply, appInput }

    /// How the native handler behaves: the harness delays or withholds its real reply.
    public enum HandlerBehaviour: Equatable, Sendable {
        case healthy
        /// Every reply arrives this long (virtual time) after the request.
        case slow(EpochMillis)
        /// No reply ever arrives (Safari puts no timeout on a native request).
        case hung
        /// Every handler dies: at its first yield point, before it reads or writes anything, or
        /// once it has done its work and before its reply leaves. Safari rejects the request.
        case crashing(afterWrite: Bool)
        /// Every reply to the extension is replaced by a snapshot the background must refuse,
        /// of one shape after another (`garbageReplies`).
        case garbage
    }

    /// What a garbage-answering handler sends instead of its replies, in turn; each is refused
    /// by one rule of the document's reading.
    static let garbageReplies: [JSONValue] = [
        // The document is not an object.
        .object(["type": .string("snapshot"), "document": .string("settings")]),
        // Defaults of the wrong type.
        .object(["type": .string("snapshot"), "document": .object(["revision": .integer(3), "defaults": .array([])])]),
        // No document at all.
        .object(["type": .string("snapshot")]),
        // A revision that cannot be one.
        .object(["type": .string("snapshot"), "document": .object(["revision": .integer(-3)])]),
    ]
    private var garbageSent = 0

    /// What Safari answers a request whose native extension ended without a reply: it rejects
    /// the request's promise. (Safari's own message, not one our handler can send: it stays JSON,
    /// as the garbage replies do.)
    private static let rejection = JSONValue.object(["type": .string("error"), "code": .string("nativeFailure"),
                                                     "message": .string("the native extension ended without an answer")])

    public static let handlerFrameLimit = ProcessLauncher.handlerFrameLimit
    public static let idleUnload = Scheduler.idleUnload
    public static let defaultProfile = SafariModel.defaultProfile
    /// Backgrounds that may die in a row without finishing an input before tabs stop asking.
    public static let wakesBeforeGivingUp = 3

    public let platform: Platform
    public let transport: Transport
    public let seed: UInt64
    /// The in-process transport's disk (container and extension storage).
    public let disk = SimulatedDisk()
    public let trace = Trace()
    public let monitor: InvariantMonitor
    public let containerDirectory: String
    /// The run's folder, holding the container and each profile's extension storage.
    private let directory: String

    /// What Safari and the OS show.
    public private(set) var safari: SafariModel
    private var clock: Scheduler
    private var arbiter = YieldArbiter<(driver: ProcessDriver, role: Role)>()
    private var launcher: ProcessLauncher

    /// Why a process is running: its part in the run.
    private enum Role {
        case app, background
        case handler(incarnation: Int, request: Int)
        /// A handler serving the first version's extension.
        case legacy
    }

    private var app: ProcessDriver?
    private var background: ProcessDriver?
    /// How the front profile's background last stopped, while none is loaded.
    private var backgroundStop = BackgroundState.unloaded
    /// Events for a frozen background, delivered when it thaws.
    private var heldForBackground: [ExtensionWire.Event] = []
    /// Native replies delivered to any background so far (to count those before a first decision).
    private var nativeRepliesDelivered = 0
    /// Backgrounds that died in a row without finishing an input.
    private var backgroundDeathsInARow = 0
    /// The disk generation the running processes started in (in-process transport).
    private var bootGeneration = 0
    /// A power cut planned for the end of the run, not yet carried out.
    private var powerCutAtEnd: PowerCutPlan?

    public var handlerBehaviour = HandlerBehaviour.healthy
    /// Known bugs switched on in every process of the run (`harness run --flaw`).
    public var flaws: Set<Flaw> = []
    /// A shared document the scenario planted damaged: exempt from the invariant 1 checks
    /// until a process sets it aside, and then its bytes must be kept.
    public var plantedDamage: [UInt8]?

    // MARK: Edits and answers

    /// The answer to each user edit, by the number `appEdit`, `popupEdit` or `popupForget`
    /// returned: saved (the app wrote it; the popup made it durable in the outbox) or refused.
    /// An edit with no answer was lost with its process or is still under way.
    public private(set) var editAnswers: [Int: Bool] = [:]
    /// What the app answered each of its edits, by edit number (none: no answer yet).
    public private(set) var appAnswers: [Int: AppAnswer] = [:]
    /// The record each answered popup change went to, as the background reports it.
    public private(set) var popupEditScopes: [Int: String] = [:]
    /// When the app took each of its edits (it stamps them then).
    public private(set) var appEditTimes: [Int: EpochMillis] = [:]
    /// The app's answer to its last edit (`editSaved` or `editRefused`).
    public private(set) var lastEditAnswer: AppMachine.Directive?
    /// The last answer the first version's extension got from the handler.
    public private(set) var lastLegacyAnswer: NativeReply?
    /// How many handler processes were started: one per native request.
    public private(set) var handlerSpawns = 0
    private var nextEditNumber = 1
    /// The app's edits delivered to its current incarnation and not yet answered, oldest first
    /// (the app answers its edits in order).
    private var appEditsUnanswered: [Int] = []

    /// `executables` is the folder holding `AppProcess`, `ExtensionProcess` and `NativeHandler`;
    /// `directory` an empty folder for the container and the extension storage.
    /// `profile` is the Safari profile in front at the start.
    public init(platform: Platform, transport: Transport = .process, seed: UInt64, epoch: EpochMillis, executables: String, directory: String,
                profile: String = Simulation.defaultProfile) {
        self.platform = platform
        self.transport = transport
        self.seed = seed
        self.directory = directory
        containerDirectory = directory + "/container"
        safari = SafariModel(platform: platform, profile: profile)
        clock = Scheduler(now: epoch)
        monitor = InvariantMonitor(trace: trace)
        launcher = ProcessLauncher(transport: transport, executables: executables, containerDirectory: containerDirectory,
                                   disk: disk, seed: seed, trace: trace)
        mkdir(containerDirectory, 0o755)
        mkdir(Self.storageDirectory(in: directory, profile: profile), 0o755)
    }

    deinit { teardown() }

    // MARK: - What can be read

    public var now: EpochMillis { clock.now }
    public var tabs: [TabID: Tab] { safari.tabs }
    public var activeTabs: [Int: TabID] { safari.activeTabs }
    public var frontWindow: Int { safari.frontWindow }
    public var activeTab: TabID? { safari.activeTab }
    public var visibleTabs: [TabID] { safari.visibleTabs }
    public var popup: PopupView? { safari.popup }
    public var popupTab: TabID? { safari.popupTab }
    public var appView: AppView? { safari.appView }
    public var appearance: Appearance { safari.appearance }
    public var profile: String { safari.profile }
    public var safariInForeground: Bool { safari.safariInForeground }
    public var appInForeground: Bool { safari.appInForeground }
    /// Whether the app is running (launched and not killed).
    public var appIsRunning: Bool { app != nil }
    /// Problems caught as they happened (see `InvariantMonitor`).
    public var violations: [String] { monitor.violations }
    /// The process past `lock` and not yet at `unlock`.
    public var lockHolder: String? { arbiter.lockHolder }
    /// The yield points where processes wait now, as `name#n@point`.
    public var waiting: [String] { arbiter.waiting.map { "\($0.label)@\($0.point.rawValue)" } }
    /// Every arrival at a yield point so far, in order.
    public var arrivals: [YieldArrival] { arbiter.arrivals }
    /// How many changes were waiting to be flushed at each arrival at a yield point.
    public private(set) var unsyncedAtArrivals: [Int] = []
    /// The faults planned so far that no process ever got to.
    public var faultsNeverReached: [PlannedFault] { arbiter.faultsNeverReached }
    /// Whether the arrival `crashAt` names was reached.
    public var crashAtReached: Bool { arbiter.crashAtReached }
    /// The arrival at which to kill its process (a crash sweep's one crash per run).
    public var crashAt: YieldArrival? {
        get { arbiter.crashAt }
        set { arbiter.crashAt = newValue }
    }
    /// Only for proving the transport-equality check: in-process processes hide this yield point.
    public var inProcessHiddenYield: YieldPoint? {
        get { launcher.hiddenYield }
        set { launcher.hiddenYield = newValue }
    }

    /// Where the front profile's background is: running, frozen, or how it last stopped.
    public var backgroundState: BackgroundState {
        guard background != nil else { return backgroundStop }
        return safari.isBackgroundFrozen ? .frozen : .running
    }

    /// The number of the background's latest incarnation (`background#N` in the trace; 0 before the first).
    public var backgroundIncarnation: Int { launcher.incarnation(of: .background) }

    /// What each waiting process waits for, and who holds the container's lock.
    public var stuck: [String] {
        arbiter.stuck { [safari, background] holder in safari.backgroundFrozenByUser && background?.label == holder }
    }

    // MARK: - Files

    /// The profile's extension storage folder (real files).
    public var storageDirectory: String { Self.storageDirectory(in: directory, profile: profile) }
    private static func storageDirectory(in directory: String, profile: String) -> String {
        directory + (profile == defaultProfile ? "/extension-storage" : "/extension-storage-\(profile)")
    }
    /// The profile's extension storage folder on the simulated disk.
    private static func storageFolder(_ profile: String) -> String {
        profile == defaultProfile ? SimulatedExtensionFolder.folder : "extension-storage-\(profile)/"
    }

    /// Puts a file in the App Group container (before the run: the starting shared document).
    public func writeContainerFile(_ name: String, _ bytes: [UInt8]) {
        writeFile(containerDirectory, SimulatedContainer.folder, name, bytes)
    }

    /// Puts a file in the background's extension storage (before the run: the starting cache).
    public func writeStorageFile(_ name: String, _ bytes: [UInt8]) {
        writeFile(storageDirectory, Self.storageFolder(profile), name, bytes)
    }

    private func writeFile(_ directory: String, _ folder: String, _ name: String, _ bytes: [UInt8]) {
        switch transport {
        case .process:
            try? FileIO.writeSynced(bytes, to: directory + "/" + name, name: name)
        case .inProcess:
            disk.place(folder + name, bytes)
        }
    }

    public func containerFile(_ name: String) -> [UInt8]? { file(containerDirectory, SimulatedContainer.folder, name) }
    public func storageFile(_ name: String) -> [UInt8]? { file(storageDirectory, Self.storageFolder(profile), name) }

    /// Every profile's copy of a file in extension storage, by profile.
    public func storageFiles(_ name: String) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for other in safari.profiles {
            if let bytes = file(Self.storageDirectory(in: directory, profile: other), Self.storageFolder(other), name) { found[other] = bytes }
        }
        return found
    }

    private func file(_ directory: String, _ folder: String, _ name: String) -> [UInt8]? {
        switch transport {
        case .inProcess: return disk.read(folder + name)
        case .process: return (try? FileIO.read(directory + "/" + name, name: name)) ?? nil
        }
    }

    /// Kills every process still running. Safe to call more than once.
    public func teardown() {
        for entry in arbiter.waiting { entry.process.driver.kill(now: now, reason: "teardown") }
        arbiter.powerLost()
        app?.kill(now: now, reason: "teardown")
        background?.kill(now: now, reason: "teardown")
        app = nil
        background = nil
    }

    // MARK: - The app

    public func launchApp() {
        if app == nil {
            guard let started = start(.app) else { return }
            app = started
            clock.queue.append(.appInput(.launched))
        }
        appForeground()
    }

    /// The app comes to the front. On iOS, Safari goes to the background.
    public func appForeground() {
        guard app != nil else { return launchApp() }
        safari.appInForeground = true
        if platform == .iOS && safari.safariInForeground { safariBackground() }
        clock.queue.append(.appInput(.foreground))
    }

    /// The app is suspended: it misses notifications and re-reads when it returns.
    public func appBackground() { safari.appInForeground = false }

    public func killApp() {
        if let app { kill(app) }
        app = nil
        appEditsUnanswered = []
        safari.appInForeground = false
    }

    /// A user edit in the app; the answer is in `lastEditAnswer`, and under the returned number
    /// in `editAnswers` and `appAnswers`.
    @discardableResult
    public func appEdit(_ edit: AppWire.UserEdit) -> Int {
        if app == nil || !safari.appInForeground { appForeground() }
        let number = newEditNumber()
        clock.queue.append(.appInput(.edit(edit), edit: number))
        return number
    }

    private func newEditNumber() -> Int {
        defer { nextEditNumber += 1 }
        return nextEditNumber
    }

    // MARK: - Safari

    public func safariForeground() {
        if platform == .iOS && safari.appInForeground { safari.appInForeground = false }
        if !safari.safariInForeground {
            safari.safariInForeground = true
            background?.child.thaw()
            clock.queue += heldForBackground.map { .backgroundInput($0) }
            heldForBackground = []
        }
        event(.safariForeground)
        for id in visibleTabs { askForDecision(id) }
    }

    /// On iOS, Safari in the background freezes the background and its timers.
    public func safariBackground() {
        safari.safariInForeground = false
        if platform == .iOS { try? background?.child.freeze() }
    }

    /// Quits and reopens Safari: the background is gone and session storage with it.
    public func safariRestart() {
        if let background { kill(background, reason: "safari restart") }
        background = nil
        backgroundStop = .unloaded
        if !heldForBackground.isEmpty { trace.record(now, "safari", "restart drops \(heldForBackground.count) events held for the frozen background") }
        heldForBackground = []
        safari.backgroundFrozenByUser = false
        if platform == .iOS { safari.appInForeground = false }
        forgetSessions()
        safari.safariInForeground = true
        for id in tabs.keys.sorted() { askForDecision(id) }
    }

    /// Session storage lives in Safari's memory: quitting it (or losing power) loses every
    /// profile's.
    private func forgetSessions() {
        for name in safari.profiles {
            unlink(Self.storageDirectory(in: directory, profile: name) + "/session.json")
            disk.place(Self.storageFolder(name) + "session.json", nil)
        }
    }

    /// Brings another Safari profile to the front: the extension instance of the one that was
    /// in front is unloaded and its tabs and popup go out of sight; the other profile's tabs
    /// come back (each page asks, being visible again) over its own extension storage.
    public func switchProfile(_ name: String) {
        guard name != profile else { return }
        if let background { kill(background, reason: "profile \(profile) left the front") }
        background = nil
        backgroundStop = .unloaded
        clock.queue.removeAll { if case .backgroundInput = $0 { true } else if case .storageCompletion = $0 { true } else { false } }
        heldForBackground = []
        safari.backgroundFrozenByUser = false
        clock.timers = [:]
        monitor.noAnswerOwed()
        clock.alarm = safari.switchProfile(to: name, alarm: clock.alarm)
        mkdir(storageDirectory, 0o755)
        trace.record(now, "safari", "profile \(name) in front")
        for id in visibleTabs { askForDecision(id) }
    }

    /// Opens a tab in a window (the front one by default; iOS has one) and makes it active there.
    public func openTab(_ id: TabID, url: String, nativeDark: Bool = false, window: Int? = nil) {
        safari.open(id, url: url, nativeDark: nativeDark, window: window, repliesDelivered: nativeRepliesDelivered)
        askForDecision(id)
    }

    /// The page reloads: its content script starts over and asks for a decision.
    public func reloadTab(_ id: TabID) {
        guard tabs[id] != nil else { return }
        safari.reload(id, repliesDelivered: nativeRepliesDelivered)
        askForDecision(id)
    }

    /// The tab goes to another page: its content script starts over there and asks.
    public func navigateTab(_ id: TabID, to url: String) {
        guard tabs[id] != nil else { return }
        safari.tabs[id]?.url = url
        reloadTab(id)
    }

    public func activateTab(_ id: TabID) {
        guard tabs[id] != nil else { return }
        safari.activate(id)
        event(.tabActivated(id))
        askForDecision(id)
    }

    public func closeTab(_ id: TabID) {
        guard safari.close(id) != nil else { return }
        monitor.noAnswerOwed(by: id.rawValue)
        if background != nil { event(.tabClosed(id)) }
    }

    /// The content script of a tab detects (or stops detecting) a native dark theme after its
    /// first decision.
    public func setNativeDark(_ id: TabID, _ nativeDark: Bool) {
        guard tabs[id] != nil else { return }
        safari.tabs[id]?.nativeDark = nativeDark
        event(.tabNativeDarkChanged(id, nativeDark: nativeDark))
    }

    public func setAppearance(_ value: Appearance) {
        safari.appearance = value
        if background != nil { event(.appearanceChanged(value)) }
    }

    // MARK: - The popup

    public func openPopup(on id: TabID) {
        safari.openPopup(on: id)
        event(.popupOpened(id))
    }

    /// The user picks which record the popup edits: host, domain or page (the key as written).
    public func choosePopupScope(_ key: String) {
        safari.popupScope = key
        event(.popupChoseScope(scope: key))
    }

    /// A change in the popup; its answer is in `editAnswers` under the returned number.
    @discardableResult
    public func popupEdit(set: SiteValues = SiteValues(), reset: [SiteField] = []) -> Int {
        let number = newEditNumber()
        event(.popupEdited(set: set, reset: reset, message: number, at: now))
        return number
    }

    /// "Forget this site": the popup deletes the selected scope's record.
    @discardableResult
    public func popupForget() -> Int {
        let number = newEditNumber()
        event(.popupForgotSite(message: number, at: now))
        return number
    }

    public func closePopup() {
        safari.closePopup()
        event(.popupClosed)
    }

    public func popupPause(for duration: EpochMillis) {
        event(.popupPaused(until: now + duration))
    }

    // MARK: - The background

    /// Safari unloads the background without notice.
    public func unloadBackground() {
        if let background {
            kill(background, reason: "unloaded")
            backgroundStop = .unloaded
        }
        background = nil
    }

    /// Kills the background mid-work (a crash, not an unload: the same to the process).
    public func killBackground() {
        if let background {
            kill(background, reason: "killed")
            backgroundStop = .killed
        }
        background = nil
    }

    /// Freezes the background (SIGSTOP): it takes nothing and its timers stop until `thawBackground`.
    public func freezeBackground() {
        safari.backgroundFrozenByUser = true
        try? background?.child.freeze()
    }

    public func thawBackground() {
        safari.backgroundFrozenByUser = false
        background?.child.thaw()
        clock.queue += heldForBackground.map { .backgroundInput($0) }
        heldForBackground = []
    }

    // MARK: - Faults

    /// Stops the process at the yield point the next time it gets there, until `release`.
    public func hold(_ process: ProcessName, at point: YieldPoint) { arbiter.hold(process, at: point) }

    /// Lets a held process go on (it may still wait for the lock) and plays out what follows.
    public func release(_ process: ProcessName) {
        arbiter.release(process)
        wakeWaiters()
    }

    /// Kills the process when it next reaches `point`: a crash between two steps of a storage
    /// operation.
    public func crash(_ process: ProcessName, at point: YieldPoint) { arbiter.crash(process, at: point) }

    /// Makes the storage step after `point` fail with `errno` the next time the process gets
    /// there (a full disk, an I/O error): the process must report it and keep what it had.
    /// With `after`, the step takes effect first (the data written, the rename done) and then
    /// reports the error, as a failed fsync does.
    public func failStorage(_ process: ProcessName, at point: YieldPoint, errno: Int32, after: Bool = false) {
        arbiter.fail(process, at: point, errno: errno, after: after)
    }

    /// Plans a power cut (in-process transport only: real disks are not ours to cut).
    public func cutPower(_ plan: PowerCutPlan) {
        switch plan.place {
        case .flush(let flush): disk.cutPower(SimulatedDisk.PowerCut(flush: flush, keep: plan.keep))
        case .arrival: arbiter.powerCutAt = plan
        case .end: powerCutAtEnd = plan
        }
    }

    /// Whether a planned power cut has not happened.
    public var powerCutPending: Bool { arbiter.powerCutAt != nil || powerCutAtEnd != nil || disk.powerCutPending }

    /// Carries out a cut planned for the end of the run (after the last step, before healing).
    public func cutPowerAtTheEnd() {
        guard let plan = powerCutAtEnd else { return }
        powerCutAtEnd = nil
        disk.cutPowerNow(keeping: plan.keep)
        reboot(also: nil)
    }

    // MARK: - Time and settling

    /// Lets everything pending play out, at the current virtual time; with `stopBefore`, stops
    /// when the next piece of work is of that kind (to unload the background while a native
    /// request waits, for example); with `deferring`, work of that kind stays queued while
    /// everything else plays out (native replies that are slower than the user).
    public func settle(stopBefore: WorkKind? = nil, deferring: WorkKind? = nil) {
        // Work for a process held at a yield point waits; everything else goes on.
        while let work = clock.takeWork(deferring: deferring, stopBefore: stopBefore, isBusy: isBusy) {
            switch work {
            case .backgroundInput(let input):
                deliverToBackground(input)
            case .storageCompletion(let incarnation, let token):
                guard background?.incarnation == incarnation else { continue }
                deliverToBackground(.storageCompleted(token: token), countsAsEvent: false)
            case .nativeRequest(let incarnation, let request, let message):
                serveNativeRequest(incarnation: incarnation, request: request, message: message)
            case .nativeReply(let incarnation, let request, let message):
                // A reply addressed to an earlier incarnation is dropped.
                guard background?.incarnation == incarnation else {
                    trace.record(now, "safari", "dropped reply for background#\(incarnation)")
                    continue
                }
                nativeRepliesDelivered += 1
                monitor.nativeReplyArrives(incarnation: incarnation, now: now)
                deliverToBackground(.nativeReply(request: request, message: message), countsAsEvent: false)
            case .appInput(let input, let edit):
                deliverToApp(input, edit: edit)
            }
        }
    }

    private func isBusy(_ work: Scheduler.Work) -> Bool {
        switch work {
        case .backgroundInput, .storageCompletion, .nativeReply: background.map { arbiter.isWaiting($0.label) } ?? false
        case .appInput: app.map { arbiter.isWaiting($0.label) } ?? false
        case .nativeRequest: false
        }
    }

    /// Moves virtual time forward, firing what falls due in order.
    public func advance(by duration: EpochMillis) {
        let end = now + duration
        settle()
        while let (at, due) = clock.nextDue(before: end, background: background?.incarnation, frozen: safari.isBackgroundFrozen) {
            clock.now = at
            fire(due)
            settle()
        }
        clock.now = end
    }

    private func fire(_ due: Scheduler.Due) {
        switch due {
        case .idleUnload:
            unloadBackground()
        case .nativeTimeout(let timer):
            clock.timers[timer] = nil
            event(.nativeTimeout(request: timer.request))
        case .delayedReply(let index):
            clock.queue.append(clock.delayedReplies.remove(at: index).work)
        case .alarm:
            clock.alarm = nil
            event(.alarmFired)
        }
    }

    /// Ends the faults and lets everything catch up, as the checks after a run expect: no holds
    /// or planned crashes, a healthy handler, a thawed background, every waiting reply and
    /// timeout played out, Safari in front (a reconciliation point), an open popup shown afresh,
    /// everything settled, and a running app in front.
    public func heal() {
        trace.record(now, "harness", "heal")
        arbiter.dropFaults()
        handlerBehaviour = .healthy
        if safari.backgroundFrozenByUser { thawBackground() }
        wakeWaiters()
        // Every other profile whose outbox still holds patches comes to the front in turn, so its
        // extension sends them; then the one that was in front (whose extension then starts
        // afresh and whose popup has closed: only in runs that need the detour).
        let front = profile
        let local = ExtensionStore<ExtensionFolder, RecordingGate>.localName
        for (other, bytes) in storageFiles(local).sorted(by: { $0.key < $1.key }) where other != front {
            guard let stored = (try? JSONParser.parse(bytes)).flatMap(LocalStorage.decode), !stored.outbox.isEmpty else { continue }
            switchProfile(other)
            catchUp()
        }
        switchProfile(front)
        catchUp()
        // The user looks at an open popup again: it shows what the background holds now (a
        // background that died since it opened knows nothing of it).
        if let tab = popupTab { openPopup(on: tab) }
        settle()
        // The app, if it runs, comes to the front too, so that its view is checked (on iOS
        // Safari then goes to the background, with every tab settled).
        if appIsRunning {
            appForeground()
            settle()
        }
    }

    /// Safari in front (first, so that on iOS the background's timers run while time passes),
    /// every waiting reply and timeout played out, and Safari in front again.
    private func catchUp() {
        safariForeground()
        settle()
        advance(by: clock.lastDue(nativeTimeout: BackgroundMachine.nativeTimeout) - now + 1)
        safariForeground()
    }

    // MARK: - Delivery

    private func askForDecision(_ id: TabID) {
        guard let tab = tabs[id] else { return }
        safari.tabs[id]?.awaitingAnswer = true
        event(.tabRequestedDecision(id, url: tab.url, nativeDark: tab.nativeDark))
    }

    /// An event for the background: Safari starts it if needed and queues the event meanwhile.
    private func event(_ input: ExtensionWire.Event) {
        clock.queue.append(.backgroundInput(input))
    }

    private func deliverToBackground(_ input: ExtensionWire.Event, countsAsEvent: Bool = true) {
        if safari.isBackgroundFrozen {
            // A frozen background takes nothing until it thaws.
            heldForBackground.append(input)
            return
        }
        if background == nil {
            guard countsAsEvent else { return }
            guard let started = start(.background) else { return }
            background = started
            clock.timers = [:]
            let stored = storageFile(ExtensionStore<ExtensionFolder, RecordingGate>.localName).flatMap { try? JSONParser.parse($0) }
            monitor.backgroundStarted(withCache: stored.flatMap(LocalStorage.decode)?.cache != nil)
            complete(begin(started, .started(appearance: appearance, tabs: tabs.mapValues(\.url))), driver: started, role: .background)
        }
        guard let background else {
            trace.record(now, "safari", "background did not start; event dropped", ExtensionWire.encode(input))
            return
        }
        if arbiter.isWaiting(background.label) {
            // The start itself stopped at a yield point: the event waits for it.
            clock.queue.insert(.backgroundInput(input), at: 0)
            return
        }
        clock.lastBackgroundInput = now
        if case .tabRequestedDecision(let tab, _, _) = input { monitor.backgroundTook(requestFrom: tab.rawValue) }
        if input.isFromThePopup {
            if case .popupOpened = input {
                safari.popupKnownTo = background.incarnation
            } else if let tab = popupTab, safari.popupKnownTo != background.incarnation {
                // The popup stays open across an unload; a new background learns of it from the
                // popup's next message, which names its tab.
                var announcements: [ExtensionWire.Event] = [.popupOpened(tab)]
                if let scope = safari.popupScope, !input.isScopeChoice { announcements.append(.popupChoseScope(scope: scope)) }
                for announcement in announcements {
                    complete(begin(background, announcement), driver: background, role: .background)
                    guard let current = self.background, current === background, !arbiter.isWaiting(background.label) else {
                        clock.queue.insert(.backgroundInput(input), at: 0)
                        return
                    }
                }
                safari.popupKnownTo = background.incarnation
            }
        }
        complete(begin(background, input), driver: background, role: .background)
    }

    /// Sends a process one input, as its codec writes it.
    private func begin(_ driver: ProcessDriver, _ event: ExtensionWire.Event) -> ProcessDriver.Step {
        driver.begin(ExtensionWire.encode(event), now: now)
    }

    private func backgroundDirectives(_ directives: [JSONValue], from driver: ProcessDriver) {
        backgroundDeathsInARow = 0
        for json in directives {
            let output: ExtensionWire.Output
            do { output = try ExtensionWire.directive(json) } catch {
                trace.record(now, "safari", "unreadable directive: \(error)", json)
                continue
            }
            switch output {
            case .storagePending(let token):
                clock.queue.append(.storageCompletion(incarnation: driver.incarnation, token: token))
            case .machine(let directive):
                carryOut(directive, from: driver)
            }
        }
    }

    /// What Safari does with a directive of the background's.
    private func carryOut(_ directive: BackgroundMachine.Directive, from driver: ProcessDriver) {
        switch directive {
        case .sendNative(let request, let message):
            clock.queue.append(.nativeRequest(incarnation: driver.incarnation, request: request, message: message))
        case .setTimer(.nativeTimeout(let request), let at):
            clock.timers[Scheduler.NativeTimer(incarnation: driver.incarnation, request: request)] = at
        case .cancelTimer(.nativeTimeout(let request)):
            clock.timers[Scheduler.NativeTimer(incarnation: driver.incarnation, request: request)] = nil
        case .setAlarm(let at):
            clock.alarm = at
        case .sendDecision(let tab, let decision):
            monitor.decisionSent(to: tab.rawValue)
            safari.apply(decision, to: tab, now: now, repliesDelivered: nativeRepliesDelivered)
        case .showPopup(let view):
            safari.popup = view
        case .popupAnswer(let number, let saved, let scope):
            // `saved` nil: the save failed, perhaps after it took effect (no answer).
            if let saved { editAnswers[number] = saved }
            if let scope { popupEditScopes[number] = scope.text }
        case .loadStorage, .saveLocalStorage, .saveSessionStorage:
            // The process does its storage work itself; these never travel.
            trace.record(now, "safari", "unexpected storage directive", ExtensionWire.json(directive))
        }
    }

    /// The first version's extension (not yet updated) sends `getEnabled` or `toggleEnabled`
    /// straight to a native handler, as its background did.
    public func legacyMessage(_ message: NativeRequest) {
        lastLegacyAnswer = nil
        handlerSpawns += 1
        guard let handler = start(.handler) else { return }
        complete(handler.begin(NativeHandlerWire.encode(.nativeRequest(message.json)), now: now), driver: handler, role: .legacy)
    }

    /// Safari starts one handler process per native request.
    private func serveNativeRequest(incarnation: Int, request: Int, message: NativeRequest) {
        handlerSpawns += 1
        guard let handler = start(.handler) else { return }
        complete(handler.begin(NativeHandlerWire.encode(.nativeRequest(message.json)), now: now), driver: handler,
                 role: .handler(incarnation: incarnation, request: request))
    }

    private func handlerDirectives(_ directives: [JSONValue], from handler: ProcessDriver, incarnation: Int, request: Int) {
        if handlerBehaviour == .crashing(afterWrite: true) {
            kill(handler, reason: "crashed before replying")
            clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.rejection))
            return
        }
        handler.finish()
        for directive in decoded(directives, from: handler, NativeHandlerWire.directive) {
            switch directive {
            case .reply(let reply):
                let work = Scheduler.Work.nativeReply(incarnation: incarnation, request: request, message: reply.json)
                switch handlerBehaviour {
                case .healthy, .crashing: clock.queue.append(work)
                case .garbage:
                    trace.record(now, handler.label, "reply replaced by garbage")
                    let garbage = Self.garbageReplies[garbageSent % Self.garbageReplies.count]
                    garbageSent += 1
                    clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: garbage))
                case .slow(let delay): clock.delayedReplies.append((now + delay, work))
                case .hung: trace.record(now, handler.label, "reply withheld (hung)")
                }
            case .postChangeNotification:
                // Darwin notifications reach only a running app that is not suspended.
                if app != nil && safari.appInForeground { clock.queue.append(.appInput(.changeNotification)) }
            case .container:
                trace.record(now, "harness", "unexpected container directive from \(handler.label)")
            }
        }
    }

    private func deliverToApp(_ input: AppWire.Event, edit: Int?) {
        guard let app else { return }
        if let edit {
            appEditsUnanswered.append(edit)
            appEditTimes[edit] = now
        }
        complete(app.begin(AppWire.encode(input), now: now), driver: app, role: .app)
    }

    private func appDirectives(_ directives: [JSONValue], from app: ProcessDriver) {
        for directive in decoded(directives, from: app, AppWire.directive) {
            switch directive {
            case .showView(let view):
                safari.appView = view
            case .editSaved, .editRefused:
                lastEditAnswer = directive
                guard !appEditsUnanswered.isEmpty else { break }
                let edit = appEditsUnanswered.removeFirst()
                switch directive {
                case .editRefused(.storageFailure, _):
                    // A storage failure may have struck after the write took effect: no answer
                    // for the oracle, though the app told the user it failed.
                    appAnswers[edit] = .refused
                case .editRefused:
                    appAnswers[edit] = .refused
                    editAnswers[edit] = false
                default:
                    appAnswers[edit] = .saved
                    editAnswers[edit] = true
                }
            case .messageExtension:
                // Only macOS has a path from the app to the extension.
                if platform == .macOS { event(.appMessage) }
            case .container:
                trace.record(now, "harness", "unexpected container directive from \(app.label)")
            }
        }
    }

    /// A process's directives read with its codec; one that cannot be read is traced and skipped.
    private func decoded<Directive>(_ directives: [JSONValue], from driver: ProcessDriver,
                                    _ read: (JSONValue) throws(NativeMessageError) -> Directive) -> [Directive] {
        directives.compactMap { json in
            do { return try read(json) } catch {
                trace.record(now, "harness", "unreadable directive from \(driver.label): \(error)", json)
                return nil
            }
        }
    }

    // MARK: - Processes

    /// Starts the next incarnation of a process, or records why it could not: a run that cannot
    /// start one of its processes has failed, and the problem names the executable. The trace,
    /// which never holds a path, says only which incarnation did not start.
    private func start(_ name: ProcessName) -> ProcessDriver? {
        do {
            let driver = try launcher.start(name, storageDirectory: storageDirectory, storageFolder: Self.storageFolder(profile))
            driver.policy = { [unowned self, unowned driver] point in self.decide(driver, at: point) }
            driver.flaws = flaws.map(\.rawValue).sorted()
            return driver
        } catch {
            let label = "\(name.rawValue)#\(launcher.incarnation(of: name))"
            trace.record(now, label, "could not start")
            monitor.record(error is ChildProcess.SpawnError ? "\(error)" : "cannot start \(label): \(error)")
            return nil
        }
    }

    /// The arbiter's verdict for a process at a yield point, as the driver carries it out.
    private func decide(_ driver: ProcessDriver, at point: YieldPoint) -> ProcessDriver.YieldChoice {
        unsyncedAtArrivals.append(transport == .inProcess ? disk.unsynced.count : 0)
        let crashingHandler = driver.name == .handler && handlerBehaviour == .crashing(afterWrite: false)
        switch arbiter.arrive(driver.name, label: driver.label, at: point, crashingHandler: crashingHandler) {
        case .proceed: return .proceed
        case .fail(let errno, let after): return after ? .failAfter(errno: errno) : .fail(errno: errno)
        case .kill: return .kill
        case .wait: return .hold
        case .cutPower(let plan):
            // The power fails with this process at this point: it and everyone else stop here.
            disk.cutPowerNow(keeping: plan.keep)
            return .kill
        }
    }

    /// Carries out where an input left a process.
    private func complete(_ step: ProcessDriver.Step, driver: ProcessDriver, role: Role) {
        if transport == .inProcess && disk.generation != bootGeneration {
            // The power failed while this step ran: whatever it produced is lost with it.
            return reboot(also: driver)
        }
        switch step {
        case .finished(let directives):
            arbiter.finished(driver.label)
            switch role {
            case .app: appDirectives(directives, from: driver)
            case .background: backgroundDirectives(directives, from: driver)
            case .handler(let incarnation, let request): handlerDirectives(directives, from: driver, incarnation: incarnation, request: request)
            case .legacy:
                // The first version's extension awaits its answer: a slow one still arrives, a
                // hung or crashed handler leaves it with none.
                if handlerBehaviour == .crashing(afterWrite: true) {
                    kill(driver, reason: "crashed before replying")
                } else {
                    driver.finish()
                    for case .reply(let reply) in decoded(directives, from: driver, NativeHandlerWire.directive) where handlerBehaviour != .hung {
                        lastLegacyAnswer = reply
                    }
                }
            }
        case .held(let point):
            arbiter.wait((driver, role), name: driver.name, label: driver.label, at: point)
        case .died:
            monitor.checkWhatWasLeft("\(driver.label) died", in: self)
            forget(driver)
            if case .handler(let incarnation, let request) = role {
                clock.queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.rejection))
            }
        }
        wakeWaiters()
    }

    /// Resumes the first waiting process that may go on: not held by the user, and not waiting
    /// for a lock someone else holds.
    private func wakeWaiters() {
        guard let (entry, resumption) = arbiter.nextToResume() else { return }
        let (driver, role) = entry.process
        switch resumption {
        case .kill:
            driver.kill(now: now, reason: "killed at \(entry.point.rawValue)")
            complete(.died(.unknown), driver: driver, role: role)
        case .fail(let errno, let after):
            trace.record(now, driver.label, "resumed at \(entry.point.rawValue) to fail")
            complete(driver.resume(after ? .failAfter(errno: errno) : .fail(errno: errno), now: now), driver: driver, role: role)
        case .proceed:
            trace.record(now, driver.label, "resumed at \(entry.point.rawValue)")
            complete(driver.resume(.proceed, now: now), driver: driver, role: role)
        }
    }

    /// After a power cut: every process is gone, with Safari's session and every queued event;
    /// the device starts again, Safari restores its tabs and each page asks afresh.
    private func reboot(also driver: ProcessDriver?) {
        bootGeneration = disk.generation
        let cut = disk.lastCut
        trace.record(now, "harness", "power lost: \(cut?.kept ?? 0) unsynced changes kept, \(cut?.dropped ?? 0) dropped; the device restarts")
        monitor.checkWhatWasLeft("the power failed", in: self)
        for process in [driver, app, background].compactMap({ $0 }) + arbiter.waiting.map(\.process.driver) { process.kill(now: now, reason: "power lost") }
        arbiter.powerLost()
        app = nil
        background = nil
        backgroundStop = .unloaded
        safari.appInForeground = false
        appEditsUnanswered = []
        clock.queue = []
        clock.delayedReplies = []
        clock.timers = [:]
        heldForBackground = []
        safari.backgroundFrozenByUser = false
        backgroundDeathsInARow = 0
        monitor.noAnswerOwed()
        safari.forgetPopup()
        forgetSessions()
        safari.safariInForeground = true
        for id in tabs.keys.sorted() { reloadTab(id) }
    }

    private func kill(_ driver: ProcessDriver, reason: String = "killed") {
        driver.kill(now: now, reason: reason)
        forget(driver)
        wakeWaiters()
    }

    /// A dead process holds nothing: its lock is released and it waits nowhere.
    private func forget(_ driver: ProcessDriver) {
        arbiter.forget(driver.label)
        disk.releaseLock(heldBy: driver.label)
        if app === driver {
            app = nil
            appEditsUnanswered = []
        }
        if background === driver {
            background = nil
            // Unloads say so after this; anything else that ends it is a kill.
            backgroundStop = .killed
            backgroundDeathsInARow += 1
            // A tab whose answer was lost with the background asks again; Safari wakes a new one,
            // unless backgrounds keep dying before they finish anything.
            guard backgroundDeathsInARow <= Self.wakesBeforeGivingUp else {
                trace.record(now, "safari", "background keeps dying; tabs stop asking")
                return
            }
            for id in tabs.keys.sorted() where tabs[id]!.awaitingAnswer && visibleTabs.contains(id) {
                trace.record(now, "safari", "tab \(id.rawValue) asks again")
                askForDecision(id)
            }
        }
    }
}

private extension ExtensionWire.Event {
    /// A message from the popup: a background that does not know the popup is open learns of
    /// it first.
    var isFromThePopup: Bool {
        switch self {
        case .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused: true
        case .started, .storageCompleted, .tabRequestedDecision, .tabNativeDarkChanged, .tabActivated, .tabClosed, .safariForeground,
             .appMessage, .appearanceChanged, .nativeReply, .nativeTimeout, .alarmFired: false
        }
    }

    var isScopeChoice: Bool {
        if case .popupChoseScope = self { return true }
        return false
    }
}
