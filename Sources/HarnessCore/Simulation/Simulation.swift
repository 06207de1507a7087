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
/// It is the shell of `SafariMachine`, which holds Safari's and the OS's rules: it carries out
/// the machine's effects on the processes and feeds back what came of them. Beside it are
/// virtual time and queued work (`Scheduler`), the processes with their yield points and the
/// container's lock (`ProcessTable`), what they give back (`DirectiveReader`) and fault plans.
/// The checks (the invariants, Safari's rules stated again, the liveness bounds, the user's edits
/// and their answers) are told what happens as typed observations (`observe`, in
/// `Checks/Simulation+Observations.swift`) and carry nothing out.
package final class Simulation: ProcessTable.Owner {
    package typealias Platform = SafariMachine.Platform

    /// How the three processes run: as real OS processes (the default and the truth), or as
    /// the same shells stepped by the harness itself over a simulated disk (for speed). The same
    /// run gives the same trace on both.
    package enum Transport: String, Sendable { case process, inProcess = "in-process" }

    typealias Tab = SafariTab

    /// The kinds of pending work, to stop `settle` before one, or let all but one play out.
    package enum WorkKind: Sendable { case backgroundInput, storageCompletion, nativeRequest, nativeReply, appInput }

    package typealias HandlerBehaviour = HarnessCore.HandlerBehaviour
    /// What a garbage-answering handler sends next.
    var garbage = GarbageReplies()

    static let handlerFrameLimit = ProcessLauncher.handlerFrameLimit
    static let defaultProfile = SafariMachine.defaultProfile

    let platform: Platform
    let transport: Transport
    let seed: UInt64
    /// The in-process transport's disk (container and extension storage).
    let disk = SimulatedDisk()
    /// The container and each profile's extension storage, on the disk the transport uses.
    let files: RunFiles
    package let trace: Trace
    let monitor: InvariantMonitor
    /// Reads what the processes give back, and checks that both transports read it alike.
    let reader: DirectiveReader

    /// Safari and the OS: what they show, and their rules.
    var safari: SafariMachine
    /// The loaded background's storage as it started, and what it has been told since
    /// (invariant 5 reads them).
    var startingCache: LocalStorage?
    var told = BackgroundKnowledge()
    /// The reference reading of decisions over that cache (its own, so that what it keeps of
    /// one document is not thrown away for another).
    let cacheReference = ReferenceCheck()
    /// Invariant 14: Safari's rules, stated a second time, watching what the machine does.
    var safariRules: SafariRules
    /// What the app shows now.
    var appView: AppView?
    var clock: Scheduler
    /// The processes, where each one stands, and the faults planned at their yield points.
    package let processes: ProcessTable
    typealias Role = ProcessTable.Role
    /// The running app and the front profile's loaded background; the arbiter as the checks
    /// read it.
    var app: ProcessDriver? { processes.app }
    var background: ProcessDriver? { processes.background }
    var arbiter: YieldArbiter<(driver: ProcessDriver, role: Role)> { processes.arbiter }

    /// Invariants 6, 7 and 8, checked as time moves.
    private(set) lazy var liveness = LivenessChecks(self)
    /// What the checks learn from the background's native exchanges.
    var exchanges: NativeExchangeWatch
    /// The power cuts planned and not yet carried out.
    var powerCuts: PowerCuts

    var handlerBehaviour = HandlerBehaviour.healthy
    /// The shortest delay this Safari allows an alarm (`alarm-minimum`).
    /// How long a background's load takes before its scripts run (`background-load-time`).
    var backgroundLoadTime: EpochMillis {
        get { safari.backgroundLoadTime }
        set {
            safari.backgroundLoadTime = newValue
            safariRules.backgroundLoadTime = newValue
        }
    }

    /// The extension's keyboard commands, by name.
    var commandNames: Set<String> {
        get { safari.commandNames }
        set { safari.commandNames = newValue }
    }

    /// The extension's background is persistent: loaded with the extension, never unloaded when idle.
    var persistentBackground: Bool {
        get { safari.persistentBackground }
        set {
            safari.persistentBackground = newValue
            safariRules.persistentBackground = newValue
        }
    }

    var alarmMinimum: EpochMillis {
        get { safari.alarmMinimum }
        set {
            safari.alarmMinimum = newValue
            safariRules.alarmMinimum = newValue
        }
    }
    /// Known bugs switched on in every process of the run and in the content scripts Safari
    /// starts (`harness run --flaw`).
    var flaws: Set<Flaw> {
        get { processes.flaws }
        set {
            processes.flaws = newValue
            safari.contentScriptFlaws = newValue
        }
    }
    /// A shared document the scenario planted damaged: exempt from the invariant 1 checks
    /// until a process sets it aside, and then its bytes must be kept.
    var plantedDamage: [UInt8]?

    // MARK: Edits and answers

    /// The user's edits and the answers they got.
    var edits = EditLedger()
    /// The last answer the first version's extension got from the handler.
    var lastLegacyAnswer: NativeReply?
    /// How many of the first version's requests a handler was started for, and the answer
    /// each got, by its number: an answer belongs to its own request, whenever it comes.
    var legacyStarted = 0
    var legacyAnswers: [Int: NativeReply] = [:]

    /// The toolbar item's values before the extension sets any, from the installed manifest
    /// (`expect action`, and what a click on it does).
    var actionDefaults: [ExtensionAction.Property: JSONValue] {
        get { safari.actionDefaults }
        set { safari.actionDefaults = newValue }
    }

    /// The installed extension's options page, a path in the extension (`options open`).
    var optionsPage: String?

    // MARK: The extension's own pages

    /// The page host, when the extension's own pages run (`ProcessExecutables.pages`).
    var pages = PagesState.notStarted
    /// The command that runs them, if they run.
    let pagesCommand: ProcessExecutables.Command?
    /// The document a tab's page shows at an address (a scenario's `html=FILE`): while the tab is
    /// at that address, each load of it is of that document; elsewhere the page is plain.
    var pageDocuments: [PageKey: (url: String, html: String)] = [:]
    /// The folder of the extension's files an update installed, which the backgrounds started
    /// and the pages loaded from then on run (nil: the run's); the launcher keeps it.
    var installedFolder: String? { processes.installedExtension }
    /// What each tab's page shows now, as its scripts left it (`expect tab ... page ...`).
    var pageStates: [PageKey: PageState] = [:]
    /// What each profile's background logged in the run (every incarnation), and each tab's page
    /// since it last loaded (by `pageKey`), as `LEVEL TEXT` (`expect console ...`).
    var backgroundConsole: [String: [String]] = [:]
    /// Each tab's number (`tabs.Tab.id`), by `pageKey`: the run's tabs in the order they opened.
    var tabNumbers: [PageKey: Int] = [:]
    var tabsOpened = 0
    /// The tabs the extension opened (`tabs.create`), named `x1`, `x2`, … in that order.
    var extensionTabsOpened = 0
    /// The injections a page has not answered yet (`scripting.executeScript` and kin), by the
    /// number the page host knows them by: who asked, and its own number for the call.
    var injections: [Int: InjectionAsker] = [:]
    var injectionsSent = 0
    var pageConsole: [PageKey: [String]] = [:]
    /// What the popup logged since it last opened.
    var popupConsole: [String] = []
    /// The tabs the extension's pages' `tabs.query` reads, as last handed to the page host
    /// (`pageTabs`); nil before any.
    var pageTabsShown: [PageHost.PopupTab]?
    /// The front window and the focused one (-1: none) the pages were last handed; nil before any.
    var pageWindowsShown: [Int]?
    /// Inputs for the page host that wait until it is done with the one it has (`toPages`).
    var pageInputsWaiting: [PageHost.Input] = []
    var handingToPages = false

    /// `executables` play the roles on the process transport;
    /// `directory` an empty folder for the container and the extension storage.
    /// `profile` is the Safari profile in front at the start.
    package init(platform: Platform, transport: Transport = .process, seed: UInt64, epoch: EpochMillis, executables: ProcessExecutables, directory: String,
                profile: String = Simulation.defaultProfile) {
        self.platform = platform
        self.transport = transport
        self.seed = seed
        files = RunFiles(transport: transport, disk: disk, directory: directory)
        safari = SafariMachine(platform: platform, profile: profile)
        safariRules = SafariRules(platform: platform, epoch: epoch, profile: profile)
        clock = Scheduler(now: epoch)
        trace = Trace(epoch: epoch)
        monitor = InvariantMonitor(trace: trace)
        reader = DirectiveReader(monitor: monitor)
        exchanges = NativeExchangeWatch(trace: trace, monitor: monitor)
        processes = ProcessTable(files: files, executables: executables, seed: seed, trace: trace, monitor: monitor)
        pagesCommand = transport == .process ? executables.pages : nil
        safari.runsOwnPages = pagesCommand != nil
        powerCuts = PowerCuts(disk: disk, processes: processes)
        files.makeFolders(profile: profile)
        processes.owner = self
    }

    deinit { teardown() }

    // MARK: - What can be read

    var now: EpochMillis { clock.now }

    func uptime(at now: EpochMillis) -> EpochMillis { clock.uptime(at: now) }
    var tabs: [TabID: Tab] { safari.tabs }
    var activeTabs: [Int: TabID] { safari.activeTabs }
    var frontWindow: Int { safari.frontWindow }
    var activeTab: TabID? { safari.activeTab }
    var visibleTabs: [TabID] { safari.visibleTabs }
    var popup: PopupView? { safari.popup }
    var popupTab: TabID? { safari.popupTab }
    var appearance: Appearance { safari.appearance }
    var profile: String { safari.profile }
    var safariInForeground: Bool { safari.safariInForeground }
    var appInForeground: Bool { safari.appInForeground }
    /// The app runs and is not suspended: in front, or on macOS anywhere (a Mac app behind
    /// Safari goes on running and hears Darwin notifications; an iOS app out of sight is
    /// suspended and hears nothing until it returns, when it reads the document again).
    var appIsAwake: Bool { app != nil && (platform == .macOS || safari.appInForeground) }
    /// Whether the app is running (launched and not killed).
    var appIsRunning: Bool { app != nil }
    /// Problems caught as they happened (see `InvariantMonitor`).
    var violations: [Violation] { monitor.violations }
    /// When the front profile's alarm falls due, if one is set.
    var alarm: EpochMillis? { safari.nextAlarm?.at }

    /// Where the front profile's background is: running, frozen, or how it last stopped.
    var backgroundState: BackgroundState {
        guard background != nil else { return safari.lastStop }
        return safari.isBackgroundFrozen ? .frozen : .running
    }

    /// The number of the background's latest incarnation (`background#N` in the trace; 0 before the first).
    var backgroundIncarnation: Int { processes.incarnation(of: .background) }

    // MARK: - Files

    /// Puts a file in the App Group container (before the run: the starting shared document).
    /// A run that cannot set up its files has failed: the monitor reports it.
    func writeContainerFile(_ name: String, _ bytes: [UInt8]) {
        do { try files.writeContainerFile(name, bytes) } catch { monitor.record("cannot write \(name): \(error)") }
    }

    /// Puts a file in the front profile's extension storage (before the run: the starting cache).
    func writeStorageFile(_ name: String, _ bytes: [UInt8]) {
        do { try files.writeStorageFile(name, bytes, profile: profile) } catch { monitor.record("cannot write \(name): \(error)") }
    }

    /// The front profile's `storage.local` (cache and outbox), if it is there and parses.
    var storedLocal: LocalStorage? { LocalStorage.read(files.storageFile(RunFiles.localStorageName, profile: profile)) }

    /// The front profile's `storage.session` (the pause), if it is there and parses.
    var storedSession: SessionStorage? {
        files.storageFile(ExtensionStore<ExtensionFolder, RecordingGate>.sessionName, profile: profile)
            .flatMap { try? JSONParser.parse($0) }.flatMap(SessionStorage.decode)
    }

    /// Kills every process still running. Safe to call more than once.
    package func teardown() {
        processes.teardown(now: now)
        // A page host that still answers waits for the next run; one that died is replaced now,
        // so that the next run finds one ready.
        switch pages {
        case .running(let host): PageHostPool.shared.give(host)
        case .failed: if let pagesCommand { PageHostPool.shared.prepare(pagesCommand) }
        case .notStarted: break
        }
        pages = .failed
    }

    // MARK: - Power cuts

    /// Carries out a cut planned for the end of the run (after the last step, before healing).
    func cutPowerAtTheEnd() {
        if powerCuts.cutAtTheEnd() { reboot(also: nil) }
    }

    // MARK: - Time and settling

    /// Lets everything pending play out, at the current virtual time; with `stopBefore`, stops
    /// when the next piece of work is of that kind (to unload the background while a native
    /// request waits, for example); with `deferring`, work of that kind stays queued while
    /// everything else plays out (native replies that are slower than the user).
    package func settle(stopBefore: WorkKind? = nil, deferring: WorkKind? = nil) {
        // Work for a process held at a yield point waits; everything else goes on.
        while let work = clock.takeWork(deferring: deferring, stopBefore: stopBefore, isBusy: processes.isBusy) {
            switch work {
            case .backgroundInput(let input, let incarnation):
                handle(.eventDue(input, for: incarnation))
            case .portMessage(let incarnation, let message):
                handle(.portMessageDue(incarnation: incarnation, message: message))
            case .storageCompletion(let incarnation, let token):
                handle(.storageCompleted(incarnation: incarnation, token: token))
            case .nativeRequest(let incarnation, let request, let message, let profile):
                handle(.nativeRequestDue(Scheduler.NativeRequestID(incarnation: incarnation, request: request), message, profile: profile))
            case .nativeReply(let incarnation, let request, let outcome):
                handle(.replyArrived(Scheduler.NativeRequestID(incarnation: incarnation, request: request), outcome))
            case .appInput(let input, let edit):
                deliverToApp(input, edit: edit)
            }
        }
    }

    /// Moves virtual time forward, firing what falls due in order.
    package func advance(by duration: EpochMillis) {
        let end = now + duration
        settle()
        while true {
            let due = clock.nextDue(before: end, background: background?.incarnation, frozen: safari.isBackgroundFrozen, safari: safari)
            // What time changes on its own before the next event starts its watch; a page's
            // deadline or a bound is checked the moment it passes, before what falls due later.
            liveness.timeMoved(from: now, to: due?.at ?? end)
            if liveness.checkDue(by: end, before: due?.at) { continue }
            guard let (at, what) = due else { break }
            clock.now = at
            liveness.restartExcusedWaits()
            fire(what)
            settle()
        }
        clock.now = end
        liveness.restartExcusedWaits()
        safariRulesBroken(safariRules.check(now: now))
    }

    /// Safari returns from an iOS suspension: its unload timer, the alarms and the background's
    /// own timers did not run while it was suspended, so every overdue one fires at once, each
    /// once, and so do replies a slow handler held back. The unload check may unload the background before the events that
    /// waited reach it, and an alarm missed for an hour fires once, late (WebKit has no iOS
    /// app-state handling: `WebExtensionContextCocoa.mm`, `scheduleBackgroundContentToUnload`;
    /// `WebExtensionAlarm.cpp`).
    func fireOverdue() {
        while let (_, due) = clock.nextDue(before: now, background: background?.incarnation, frozen: safari.frozenByUser, safari: safari) {
            trace.record(now, "safari", "overdue on return: \(due)")
            fire(due)
        }
    }

    private func fire(_ due: Scheduler.Due) {
        if let due = clock.fire(due) { handle(.timeReached(due)) }
        // After the scheduler let go of it: an interval sets itself again as it runs.
        if case .pageTimer(let timer) = due { firePageTimer(timer) }
    }
}
