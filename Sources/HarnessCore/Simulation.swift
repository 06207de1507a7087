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
public final class Simulation {
    public enum Platform: String, CaseIterable, Sendable { case iOS = "ios", macOS = "macos" }

    /// How the three processes run: as real OS processes (the default and the truth), or as
    /// the same shells on threads of the harness over a simulated disk (for speed). The same
    /// run gives the same trace on both.
    public enum Transport: String, Sendable { case process, inProcess = "in-process" }

    /// A tab and the decision its content script last applied.
    public struct Tab: Sendable {
        /// The window it is in (macOS has several, all visible at once; iOS shows one).
        public var window: Int
        public var url: String
        public var nativeDark: Bool
        public var applied: JSONValue?
        /// It asked for a decision and has had no answer since.
        public var awaitingAnswer = false
        /// When it applied its first decision, and how many native replies the background had
        /// received by then (invariant 5: a background with a cache answers before any).
        public var firstDecisionAt: EpochMillis?
        /// The first decision it applied since it (re)loaded: a flash of the wrong look shows here.
        public var firstDecision: JSONValue?
        public var nativeRepliesBeforeFirstDecision: Int?
        /// Native replies delivered when the page (re)loaded, to count those before its first decision.
        var repliesAtLoad = 0
    }

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

    /// The largest frame read from a handler: a 1 MiB reply and its envelope.
    public static let handlerFrameLimit = Framing.replyLimit + 4096

    /// Safari unloads the background this long after the last input it received.
    public static let idleUnload: EpochMillis = 30_000

    public let platform: Platform
    public let transport: Transport
    public let seed: UInt64
    /// The in-process transport's disk (container and extension storage).
    public let disk = SimulatedDisk()
    /// Only for proving the transport-equality check: in-process processes hide this yield point.
    public var inProcessHiddenYield: YieldPoint?
    public let trace = Trace()
    public private(set) var now: EpochMillis
    public private(set) var tabs: [TabID: Tab] = [:]
    /// The active tab of each window.
    public private(set) var activeTabs: [Int: TabID] = [:]
    /// The window in front.
    public private(set) var frontWindow = 1
    public private(set) var popup: JSONValue?
    public private(set) var appView: JSONValue?
    public private(set) var lastEditAnswer: JSONValue?
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
    private var nextEditNumber = 1
    /// The app's edits delivered to its current incarnation and not yet answered, oldest first
    /// (the app answers its edits in order).
    private var appEditsUnanswered: [Int] = []
    /// Problems found as the run went: invariant 5 broken (a background that started with a
    /// cache let a native reply in before answering a tab that asked), invariant 1 broken at a
    /// death or a power cut, and processes that could not be started. Each says which.
    public private(set) var violations: [String] = []
    /// The last answer the first version's extension got from the handler.
    public private(set) var lastLegacyAnswer: JSONValue?
    /// How many handler processes were started: one per native request.
    public private(set) var handlerSpawns = 0
    public private(set) var safariInForeground = true
    public var handlerBehaviour = HandlerBehaviour.healthy
    /// Known bugs switched on in every process of the run (`harness run --flaw`).
    public var flaws: Set<Flaw> = []
    /// Replies held back by a slow handler, with when they arrive.
    private var delayedReplies: [(at: EpochMillis, work: Work)] = []
    public private(set) var appInForeground = false

    public let containerDirectory: String
    /// The run's folder, holding the container and each profile's extension storage.
    private let directory: String
    private let executables: String

    /// The Safari profile in front. Each profile runs its own instance of the extension, with
    /// its own extension storage (cache, outbox, pause), tabs and popup; the app and the App
    /// Group container are shared. Profiles are shown one at a time, as on iOS.
    public private(set) var profile = Simulation.defaultProfile
    public static let defaultProfile = "default"
    /// Every profile shown so far, and the tabs of those not in front.
    private var profiles: Set<String>
    private var stashedTabs: [String: (tabs: [TabID: Tab], activeTabs: [Int: TabID], frontWindow: Int, alarm: EpochMillis?)] = [:]

    /// The profile's extension storage folder (real files).
    public var storageDirectory: String { Self.storageDirectory(in: directory, profile: profile) }
    private static func storageDirectory(in directory: String, profile: String) -> String {
        directory + (profile == defaultProfile ? "/extension-storage" : "/extension-storage-\(profile)")
    }
    /// The profile's extension storage folder on the simulated disk.
    private static func storageFolder(_ profile: String) -> String {
        profile == defaultProfile ? SimulatedExtensionFolder.folder : "extension-storage-\(profile)/"
    }
    private var app: ProcessDriver?
    /// Whether the app is running (launched and not killed).
    public var appIsRunning: Bool { app != nil }
    private var background: ProcessDriver?
    private var incarnations: [String: Int] = [:]
    /// How the front profile's background last stopped, while none is loaded.
    private var backgroundStop = BackgroundState.unloaded

    /// Where the front profile's background is: running, frozen, or how it last stopped.
    public var backgroundState: BackgroundState {
        guard background != nil else { return backgroundStop }
        return isBackgroundFrozen ? .frozen : .running
    }

    /// The number of the background's latest incarnation (`background#N` in the trace; 0 before the first).
    public var backgroundIncarnation: Int { incarnations["background"] ?? 0 }
    public private(set) var appearance = Appearance.light
    private var queue: [Work] = []
    /// Events for a frozen background (iOS, Safari in the background), delivered when it thaws.
    private var heldForBackground: [JSONValue] = []
    private var timers: [String: EpochMillis] = [:]
    private var alarm: EpochMillis?
    private var lastBackgroundInput: EpochMillis = 0
    private var nativeRepliesDelivered = 0

    private enum Work {
        case backgroundInput(JSONValue)
        case storageCompletion(incarnation: Int, token: Int64)
        case nativeRequest(incarnation: Int, request: Int64, message: JSONValue)
        case nativeReply(incarnation: Int, request: Int64, message: JSONValue)
        case appInput(JSONValue, edit: Int? = nil)
    }

    /// `executables` is the folder holding `AppProcess`, `ExtensionProcess` and `NativeHandler`;
    /// `directory` an empty folder for the container and the extension storage.
    /// `profile` is the Safari profile in front at the start.
    public init(platform: Platform, transport: Transport = .process, seed: UInt64, epoch: EpochMillis, executables: String, directory: String,
                profile: String = Simulation.defaultProfile) {
        self.profile = profile
        profiles = [profile]
        self.platform = platform
        self.transport = transport
        self.seed = seed
        self.now = epoch
        self.executables = executables
        self.directory = directory
        containerDirectory = directory + "/container"
        mkdir(containerDirectory, 0o755)
        mkdir(Self.storageDirectory(in: directory, profile: profile), 0o755)
    }

    deinit { teardown() }

    // MARK: - Files

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

    private func file(_ directory: String, _ folder: String, _ name: String) -> [UInt8]? {
        switch transport {
        case .inProcess: return disk.read(folder + name)
        case .process: return (try? FileIO.read(directory + "/" + name, name: name)) ?? nil
        }
    }

    /// Kills every process still running. Safe to call more than once.
    public func teardown() {
        for entry in held { entry.driver.kill(now: now, reason: "teardown") }
        held = []
        app?.kill(now: now, reason: "teardown")
        background?.kill(now: now, reason: "teardown")
        app = nil
        background = nil
    }

    // MARK: - The app

    public func launchApp() {
        if app == nil {
            guard let started = start("app") else { return }
            app = started
            queue.append(.appInput(.object(["type": .string("launched")])))
        }
        appForeground()
    }

    /// The app comes to the front. On iOS, Safari goes to the background.
    public func appForeground() {
        guard app != nil else { return launchApp() }
        appInForeground = true
        if platform == .iOS && safariInForeground { safariBackground() }
        queue.append(.appInput(.object(["type": .string("foreground")])))
    }

    /// The app is suspended: it misses notifications and re-reads when it returns.
    public func appBackground() { appInForeground = false }

    public func killApp() {
        if let app { kill(app) }
        app = nil
        appEditsUnanswered = []
        appInForeground = false
    }

    /// A user edit in the app, as `AppWire` writes it; the answer is in `lastEditAnswer`, and
    /// under the returned number in `editAnswers`.
    @discardableResult
    public func appEdit(_ edit: JSONValue) -> Int {
        if app == nil || !appInForeground { appForeground() }
        let number = newEditNumber()
        queue.append(.appInput(.object(["type": .string("edit"), "edit": edit]), edit: number))
        return number
    }

    private func newEditNumber() -> Int {
        defer { nextEditNumber += 1 }
        return nextEditNumber
    }

    // MARK: - Safari

    public func safariForeground() {
        if platform == .iOS && appInForeground { appInForeground = false }
        if !safariInForeground {
            safariInForeground = true
            background?.child.thaw()
            queue += heldForBackground.map(Work.backgroundInput)
            heldForBackground = []
        }
        event(.object(["type": .string("safariForeground")]))
        for id in visibleTabs { askForDecision(id) }
    }

    /// On iOS, Safari in the background freezes the background and its timers.
    public func safariBackground() {
        safariInForeground = false
        if platform == .iOS { try? background?.child.freeze() }
    }

    /// Quits and reopens Safari: the background is gone and session storage with it.
    public func safariRestart() {
        if let background { kill(background, reason: "safari restart") }
        background = nil
        backgroundStop = .unloaded
        if !heldForBackground.isEmpty { trace.record(now, "safari", "restart drops \(heldForBackground.count) events held for the frozen background") }
        heldForBackground = []
        backgroundFrozen = false
        if platform == .iOS { appInForeground = false }
        forgetSessions()
        safariInForeground = true
        for id in tabs.keys.sorted() { askForDecision(id) }
    }

    /// Session storage lives in Safari's memory: quitting it (or losing power) loses every
    /// profile's.
    private func forgetSessions() {
        for name in profiles {
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
        queue.removeAll { if case .backgroundInput = $0 { true } else if case .storageCompletion = $0 { true } else { false } }
        heldForBackground = []
        backgroundFrozen = false
        timers = [:]
        popupTab = nil
        popup = nil
        popupScope = nil
        owedFromCache = nil
        stashedTabs[profile] = (tabs, activeTabs, frontWindow, alarm)
        let restored = stashedTabs.removeValue(forKey: name)
        (tabs, activeTabs, frontWindow, alarm) = restored ?? ([:], [:], 1, nil)
        profile = name
        profiles.insert(name)
        mkdir(storageDirectory, 0o755)
        trace.record(now, "safari", "profile \(name) in front")
        for id in visibleTabs { askForDecision(id) }
    }

    /// The active tab of the window in front.
    public var activeTab: TabID? { activeTabs[frontWindow] }

    /// The tabs a user sees: on macOS the active tab of every window, on iOS the one in front.
    public var visibleTabs: [TabID] {
        switch platform {
        case .macOS: activeTabs.keys.sorted().compactMap { activeTabs[$0] }
        case .iOS: activeTab.map { [$0] } ?? []
        }
    }

    /// Opens a tab in a window (the front one by default; iOS has one) and makes it active there.
    public func openTab(_ id: TabID, url: String, nativeDark: Bool = false, window: Int? = nil) {
        let window = platform == .iOS ? 1 : (window ?? frontWindow)
        tabs[id] = Tab(window: window, url: url, nativeDark: nativeDark, repliesAtLoad: nativeRepliesDelivered)
        activeTabs[window] = id
        frontWindow = window
        askForDecision(id)
    }

    /// The page reloads: its content script starts over and asks for a decision.
    public func reloadTab(_ id: TabID) {
        guard tabs[id] != nil else { return }
        tabs[id]?.applied = nil
        tabs[id]?.firstDecisionAt = nil
        tabs[id]?.firstDecision = nil
        tabs[id]?.nativeRepliesBeforeFirstDecision = nil
        tabs[id]?.repliesAtLoad = nativeRepliesDelivered
        askForDecision(id)
    }

    /// The tab goes to another page: its content script starts over there and asks.
    public func navigateTab(_ id: TabID, to url: String) {
        guard tabs[id] != nil else { return }
        tabs[id]?.url = url
        reloadTab(id)
    }

    public func activateTab(_ id: TabID) {
        guard let tab = tabs[id] else { return }
        activeTabs[tab.window] = id
        frontWindow = tab.window
        event(.object(["type": .string("tabActivated"), "tab": .string(id.rawValue)]))
        askForDecision(id)
    }

    public func closeTab(_ id: TabID) {
        guard let tab = tabs.removeValue(forKey: id) else { return }
        if owedFromCache == id.rawValue { owedFromCache = nil }
        if activeTabs[tab.window] == id {
            activeTabs[tab.window] = tabs.filter { $0.value.window == tab.window }.keys.sorted().first
        }
        if background != nil { event(.object(["type": .string("tabClosed"), "tab": .string(id.rawValue)])) }
    }

    /// The tab the open popup belongs to, and the background incarnation that was told.
    public private(set) var popupTab: TabID?
    private var popupKnownTo: Int?

    /// The scope the user chose in the open popup, if any.
    private var popupScope: String?

    public func openPopup(on id: TabID) {
        popupTab = id
        popupScope = nil
        event(.object(["type": .string("popupOpened"), "tab": .string(id.rawValue)]))
    }

    /// The user picks which record the popup edits: host, domain or page.
    public func choosePopupScope(_ key: String) {
        popupScope = key
        event(.object(["type": .string("popupChoseScope"), "scope": .string(key)]))
    }

    /// A change in the popup; its answer is in `editAnswers` under the returned number.
    @discardableResult
    public func popupEdit(set: JSONValue = .object([:]), reset: [String] = []) -> Int {
        let number = newEditNumber()
        event(.object(["type": .string("popupEdited"), "set": set, "reset": .array(reset.map(JSONValue.string)),
                       "message": .integer(Int64(number)), "at": .integer(now)]))
        return number
    }

    /// "Forget this site": the popup deletes the selected scope's record.
    @discardableResult
    public func popupForget() -> Int {
        let number = newEditNumber()
        event(.object(["type": .string("popupForgotSite"), "message": .integer(Int64(number)), "at": .integer(now)]))
        return number
    }

    public func closePopup() {
        popupTab = nil
        popupScope = nil
        event(.object(["type": .string("popupClosed")]))
    }

    public func popupPause(for duration: EpochMillis) {
        event(.object(["type": .string("popupPaused"), "until": .integer(now + duration)]))
    }

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
        backgroundFrozen = true
        try? background?.child.freeze()
    }

    public func thawBackground() {
        backgroundFrozen = false
        background?.child.thaw()
        queue += heldForBackground.map(Work.backgroundInput)
        heldForBackground = []
    }

    /// The content script of a tab detects (or stops detecting) a native dark theme after its
    /// first decision.
    public func setNativeDark(_ id: TabID, _ nativeDark: Bool) {
        guard tabs[id] != nil else { return }
        tabs[id]?.nativeDark = nativeDark
        event(.object(["type": .string("tabNativeDarkChanged"), "tab": .string(id.rawValue), "nativeDark": .bool(nativeDark)]))
    }

    /// Kills the named process (`app`, `background`, `handler`) when it next reaches `point`:
    /// a crash between two steps of a storage operation.
    public func crash(_ process: String, at point: YieldPoint) {
        if let earlier = crashes[process] { unreached.append(Fault(kind: "crash", process: process, point: earlier)) }
        crashes[process] = point
    }

    /// Makes the storage step after `point` fail with `errno` the next time the named process
    /// gets there (a full disk, an I/O error): the process must report it and keep what it had.
    /// With `after`, the step takes effect first (the data written, the rename done) and then
    /// reports the error, as a failed fsync does.
    public func failStorage(_ process: String, at point: YieldPoint, errno: Int32, after: Bool = false) {
        if let earlier = plannedFailures[process] { unreached.append(Fault(kind: "fail", process: process, point: earlier.point)) }
        plannedFailures[process] = (point, errno, after)
    }

    /// One arrival of a process at a yield point: the `occurrence`-th time (from 1) a process of
    /// that name got there in the run. A crash sweep kills the process at each in turn.
    public struct YieldArrival: Hashable, Sendable, CustomStringConvertible {
        public var process: String
        public var point: YieldPoint
        public var occurrence: Int

        public init(process: String, point: YieldPoint, occurrence: Int) {
            self.process = process
            self.point = point
            self.occurrence = occurrence
        }

        /// `handler@rename#2`.
        public var description: String { "\(process)@\(point.rawValue)#\(occurrence)" }

        public init?(_ text: String) {
            let parts = text.split(separator: "@", maxSplits: 1)
            guard parts.count == 2, ["app", "background", "handler"].contains(parts[0]) else { return nil }
            let rest = parts[1].split(separator: "#", maxSplits: 1)
            guard rest.count == 2, let point = YieldPoint(rawValue: String(rest[0])), let occurrence = Int(rest[1]), occurrence > 0 else { return nil }
            self.init(process: String(parts[0]), point: point, occurrence: occurrence)
        }
    }

    /// A power cut for an in-process run, and which of the changes not yet flushed survive it.
    /// Where: before the Nth flush of the simulated disk (`12`), when a process reaches a yield
    /// point (`handler@rename#2`), or after the last step (`end`). Kept: `none`, `all`,
    /// `mask-5` (bit i keeps the i-th pending change) or `sample-7` (a seeded coin per change).
    /// Written `12:none`, `handler@rename#2:mask-1`, `end:all`.
    public struct PowerCutPlan: Hashable, Sendable, CustomStringConvertible {
        public enum Place: Hashable, Sendable {
            case flush(Int)
            case arrival(YieldArrival)
            case end
        }
        public enum Kept: Hashable, Sendable { case none, all, mask(UInt64), sample(UInt64) }
        public var place: Place
        public var kept: Kept

        public init(_ place: Place, kept: Kept) {
            self.place = place
            self.kept = kept
        }

        public var description: String {
            let at = switch place {
            case .flush(let n): "\(n)"
            case .arrival(let arrival): arrival.description
            case .end: "end"
            }
            let what = switch kept {
            case .none: "none"
            case .all: "all"
            case .mask(let bits): "mask-\(bits)"
            case .sample(let seed): "sample-\(seed)"
            }
            return at + ":" + what
        }

        public init?(_ text: String) {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            let at = String(text[..<colon]), what = String(text[text.index(after: colon)...])
            let place: Place
            if at == "end" {
                place = .end
            } else if let flush = Int(at), flush > 0 {
                place = .flush(flush)
            } else if let arrival = YieldArrival(at) {
                place = .arrival(arrival)
            } else {
                return nil
            }
            let kept: Kept
            switch what {
            case "none": kept = .none
            case "all": kept = .all
            case let other where other.hasPrefix("mask-"):
                guard let bits = UInt64(other.dropFirst(5)) else { return nil }
                kept = .mask(bits)
            case let other where other.hasPrefix("sample-"):
                guard let seed = UInt64(other.dropFirst(7)) else { return nil }
                kept = .sample(seed)
            default: return nil
            }
            self.init(place, kept: kept)
        }

        /// Which pending changes, by position, survive.
        var keep: @Sendable (Int) -> Bool {
            switch kept {
            case .none: { _ in false }
            case .all: { _ in true }
            case .mask(let bits): { index in index < 64 && bits & (1 << UInt64(index)) != 0 }
            case .sample(let seed):
                { index in
                    var random = SeededRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
                    return random.next() & 1 == 1
                }
            }
        }

        /// Every plan worth trying at a place where `pending` changes are unflushed: each subset
        /// when there are at most six, else none, all and `samples` seeded samples.
        public static func plans(at place: Place, pending: Int, samples: Int, seed: UInt64) -> [PowerCutPlan] {
            if pending <= 6 { return (0..<(UInt64(1) << UInt64(pending))).map { PowerCutPlan(place, kept: .mask($0)) } }
            var random = SeededRandom(seed: seed)
            return [PowerCutPlan(place, kept: .none), PowerCutPlan(place, kept: .all)]
                + (0..<samples).map { _ in PowerCutPlan(place, kept: .sample(random.next())) }
        }
    }

    /// Plans a power cut (in-process transport only: real disks are not ours to cut).
    public func cutPower(_ plan: PowerCutPlan) {
        switch plan.place {
        case .flush(let flush): disk.cutPower(SimulatedDisk.PowerCut(flush: flush, keep: plan.keep))
        case .arrival, .end: powerCutPlan = plan
        }
    }

    /// A power cut planned for a yield arrival or the end of the run, not yet carried out.
    private var powerCutPlan: PowerCutPlan?

    /// Whether a planned power cut has not happened.
    public var powerCutPending: Bool { powerCutPlan != nil || disk.powerCutPending }

    /// Carries out a cut planned for the end of the run (after the last step, before healing).
    public func cutPowerAtTheEnd() {
        guard let plan = powerCutPlan, plan.place == .end else { return }
        powerCutPlan = nil
        disk.cutPowerNow(keeping: plan.keep)
        reboot(also: nil)
    }

    /// How many changes were waiting to be flushed at each arrival at a yield point.
    public private(set) var unsyncedAtArrivals: [Int] = []

    /// Every arrival at a yield point so far, in order.
    public private(set) var arrivals: [YieldArrival] = []
    private var arrivalCounts: [String: Int] = [:]
    /// The arrival at which to kill its process (a crash sweep's one crash per run).
    public var crashAt: YieldArrival?

    public func setAppearance(_ value: Appearance) {
        appearance = value
        if background != nil { event(.object(["type": .string("appearanceChanged"), "appearance": .string(value.rawValue)])) }
    }

    // MARK: - Time and settling

    /// The kinds of pending work, to stop `settle` before one.
    public enum WorkKind: Sendable { case backgroundInput, storageCompletion, nativeRequest, nativeReply, appInput }

    /// Lets everything pending play out, at the current virtual time; with `stopBefore`, stops
    /// when the next piece of work is of that kind (to unload the background while a native
    /// request waits, for example); with `deferring`, work of that kind stays queued while
    /// everything else plays out (native replies that are slower than the user).
    public func settle(stopBefore: WorkKind? = nil, deferring: WorkKind? = nil) {
        // Work for a process held at a yield point waits; everything else goes on.
        while let index = queue.firstIndex(where: { !isBusy($0) && (deferring == nil || Self.kind(of: $0) != deferring) }) {
            let work = queue[index]
            if let stopBefore, Self.kind(of: work) == stopBefore { return }
            queue.remove(at: index)
            switch work {
            case .backgroundInput(let input):
                deliverToBackground(input)
            case .storageCompletion(let incarnation, let token):
                guard background?.incarnation == incarnation else { continue }
                deliverToBackground(.object(["type": .string("storageCompleted"), "token": .integer(token)]), countsAsEvent: false)
            case .nativeRequest(let incarnation, let request, let message):
                serveNativeRequest(incarnation: incarnation, request: request, message: message)
            case .nativeReply(let incarnation, let request, let message):
                // A reply addressed to an earlier incarnation is dropped.
                guard background?.incarnation == incarnation else {
                    trace.record(now, "safari", "dropped reply for background#\(incarnation)")
                    continue
                }
                nativeRepliesDelivered += 1
                if let tab = owedFromCache {
                    let problem = "background#\(incarnation) started with a cache but took a native reply before answering tab \(tab) (invariant 5)"
                    violations.append(problem)
                    trace.record(now, "check", problem)
                    owedFromCache = nil
                }
                deliverToBackground(.object(["type": .string("nativeReply"), "request": .integer(request), "message": message]), countsAsEvent: false)
            case .appInput(let input, let edit):
                deliverToApp(input, edit: edit)
            }
        }
    }

    private func isBusy(_ work: Work) -> Bool {
        switch work {
        case .backgroundInput, .storageCompletion, .nativeReply: background.map(isHeld) ?? false
        case .appInput: app.map(isHeld) ?? false
        case .nativeRequest: false
        }
    }

    private static func kind(of work: Work) -> WorkKind {
        switch work {
        case .backgroundInput: .backgroundInput
        case .storageCompletion: .storageCompletion
        case .nativeRequest: .nativeRequest
        case .nativeReply: .nativeReply
        case .appInput: .appInput
        }
    }

    /// Ends the faults and lets everything catch up, as the checks after a run expect: no holds
    /// or planned crashes, a healthy handler, a thawed background, every waiting reply and
    /// timeout played out, Safari in front (a reconciliation point), an open popup shown afresh,
    /// everything settled, and a running app in front.
    public func heal() {
        trace.record(now, "harness", "heal")
        holds = [:]
        crashes = [:]
        plannedFailures = [:]
        crashAt = nil
        handlerBehaviour = .healthy
        if backgroundFrozen { thawBackground() }
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
        let lastDue = ([now + BackgroundMachine.nativeTimeout] + delayedReplies.map(\.at) + timers.values).max()!
        advance(by: lastDue - now + 1)
        safariForeground()
    }

    /// Every profile's copy of a file in extension storage, by profile.
    public func storageFiles(_ name: String) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for other in profiles {
            if let bytes = file(Self.storageDirectory(in: directory, profile: other), Self.storageFolder(other), name) { found[other] = bytes }
        }
        return found
    }

    /// Moves virtual time forward, firing what falls due in order.
    public func advance(by duration: EpochMillis) {
        let end = now + duration
        settle()
        while let (at, fire) = nextDue(before: end) {
            now = at
            fire()
            settle()
        }
        now = end
    }

    private func nextDue(before end: EpochMillis) -> (EpochMillis, () -> Void)? {
        var best: (EpochMillis, () -> Void)?
        func consider(_ due: EpochMillis, _ action: @escaping () -> Void) {
            // Something overdue (an alarm of a profile that was out of sight) fires now: time
            // never runs backwards.
            let at = max(now, due)
            if at <= end, best.map({ at < $0.0 }) ?? true { best = (at, action) }
        }
        let frozen = isBackgroundFrozen
        if let background, !frozen {
            consider(max(now, lastBackgroundInput + Self.idleUnload)) { [weak self] in self?.unloadBackground() }
            for (key, at) in timers.sorted(by: { $0.key < $1.key }) where key.hasPrefix("\(background.incarnation):") {
                let request = Int64(key.split(separator: ":").last!)!
                consider(at) { [weak self] in
                    self?.timers[key] = nil
                    self?.event(.object(["type": .string("nativeTimeout"), "request": .integer(request)]))
                }
            }
        }
        for (index, delayed) in delayedReplies.enumerated() {
            consider(delayed.at) { [weak self] in
                guard let self else { return }
                let work = self.delayedReplies.remove(at: index).work
                self.queue.append(work)
            }
        }
        if let at = alarm, !frozen {
            consider(at) { [weak self] in
                self?.alarm = nil
                self?.event(.object(["type": .string("alarmFired")]))
            }
        }
        return best
    }

    // MARK: - Delivery

    /// Frozen by Safari being away on iOS, or by the user's `freezeBackground`.
    private var isBackgroundFrozen: Bool { backgroundFrozen || (platform == .iOS && !safariInForeground) }

    private func askForDecision(_ id: TabID) {
        guard let tab = tabs[id] else { return }
        tabs[id]?.awaitingAnswer = true
        event(.object(["type": .string("tabRequestedDecision"), "tab": .string(id.rawValue), "url": .string(tab.url),
                       "nativeDark": .bool(tab.nativeDark)]))
    }

    /// An event for the background: Safari starts it if needed and queues the event meanwhile.
    private func event(_ input: JSONValue) {
        queue.append(.backgroundInput(input))
    }

    private func deliverToBackground(_ input: JSONValue, countsAsEvent: Bool = true) {
        if isBackgroundFrozen {
            // A frozen background takes nothing until it thaws.
            heldForBackground.append(input)
            return
        }
        if background == nil {
            guard countsAsEvent else { return }
            guard let started = start("background") else { return }
            background = started
            timers = [:]
            let stored = storageFile(ExtensionStore<ExtensionFolder, RecordingGate>.localName).flatMap { try? JSONParser.parse($0) }
            startedWithCache = stored.flatMap(LocalStorage.decode)?.cache != nil
            answeredSinceStart = false
            owedFromCache = nil
            var open: [String: JSONValue] = [:]
            for (id, tab) in tabs { open[id.rawValue] = .string(tab.url) }
            complete(started.begin(.object(["type": .string("started"), "appearance": .string(appearance.rawValue),
                                             "tabs": .object(open)]), now: now), driver: started, role: .background)
        }
        guard let background else {
            trace.record(now, "safari", "background did not start; event dropped", input)
            return
        }
        if isHeld(background) {
            // The start itself stopped at a yield point: the event waits for it.
            queue.insert(.backgroundInput(input), at: 0)
            return
        }
        lastBackgroundInput = now
        if startedWithCache, !answeredSinceStart, owedFromCache == nil, input.objectValue?["type"] == .string("tabRequestedDecision"),
           case .string(let tab)? = input.objectValue?["tab"] {
            owedFromCache = tab
        }
        if case .string(let type)? = input.objectValue?["type"], type.hasPrefix("popup") {
            if type == "popupOpened" {
                popupKnownTo = background.incarnation
            } else if let tab = popupTab, popupKnownTo != background.incarnation {
                // The popup stays open across an unload; a new background learns of it from the
                // popup's next message, which names its tab.
                var announcements: [JSONValue] = [.object(["type": .string("popupOpened"), "tab": .string(tab.rawValue)])]
                if let scope = popupScope, type != "popupChoseScope" {
                    announcements.append(.object(["type": .string("popupChoseScope"), "scope": .string(scope)]))
                }
                for announcement in announcements {
                    complete(background.begin(announcement, now: now), driver: background, role: .background)
                    guard let current = self.background, current === background, !isHeld(background) else {
                        queue.insert(.backgroundInput(input), at: 0)
                        return
                    }
                }
                popupKnownTo = background.incarnation
            }
        }
        complete(background.begin(input, now: now), driver: background, role: .background)
    }

    /// Invariant 5's watch: whether the current background found a cache in storage when it
    /// started, whether it has sent any decision, and the tab it owes an answer from the cache.
    private var startedWithCache = false
    private var answeredSinceStart = false
    private var owedFromCache: String?

    /// Backgrounds that died in a row without finishing an input, and how many Safari tolerates.
    private var backgroundDeathsInARow = 0
    public static let wakesBeforeGivingUp = 3

    private func backgroundDirectives(_ directives: [JSONValue], from driver: ProcessDriver) {
        backgroundDeathsInARow = 0
        for case .object(let directive) in directives {
            switch directive["type"] {
            case .string("storagePending")?:
                if case .integer(let token)? = directive["token"] {
                    queue.append(.storageCompletion(incarnation: driver.incarnation, token: token))
                }
            case .string("sendNative")?:
                if case .integer(let request)? = directive["request"], let message = directive["message"] {
                    queue.append(.nativeRequest(incarnation: driver.incarnation, request: request, message: message))
                }
            case .string("setTimer")?:
                if case .object(let timer)? = directive["timer"], case .integer(let request)? = timer["nativeTimeout"],
                   case .integer(let at)? = directive["at"] {
                    timers["\(driver.incarnation):\(request)"] = at
                }
            case .string("cancelTimer")?:
                if case .object(let timer)? = directive["timer"], case .integer(let request)? = timer["nativeTimeout"] {
                    timers["\(driver.incarnation):\(request)"] = nil
                }
            case .string("setAlarm")?:
                if case .integer(let at)? = directive["at"] { alarm = at }
            case .string("decision")?:
                answeredSinceStart = true
                if directive["tab"] == owedFromCache.map(JSONValue.string) { owedFromCache = nil }
                if case .string(let name)? = directive["tab"], tabs[TabID(name)] != nil {
                    let id = TabID(name)
                    tabs[id]?.applied = directive["decision"]
                    tabs[id]?.awaitingAnswer = false
                    if tabs[id]?.firstDecisionAt == nil {
                        tabs[id]?.firstDecisionAt = now
                        tabs[id]?.firstDecision = directive["decision"]
                        let atLoad = tabs[id]?.repliesAtLoad ?? 0
                        tabs[id]?.nativeRepliesBeforeFirstDecision = nativeRepliesDelivered - atLoad
                    }
                }
            case .string("popup")?:
                popup = directive["view"]
            case .string("popupAnswer")?:
                if case .integer(let number)? = directive["message"] {
                    // `saved` null: the save failed, perhaps after it took effect (no answer).
                    if case .bool(let saved)? = directive["saved"] { editAnswers[Int(number)] = saved }
                    if case .string(let scope)? = directive["scope"] { popupEditScopes[Int(number)] = scope }
                }
            default:
                trace.record(now, "safari", "unknown directive", .object(directive))
            }
        }
    }

    /// The first version's extension (not yet updated) sends `getEnabled` or `toggleEnabled`
    /// straight to a native handler, as its background did.
    public func legacyMessage(_ type: String) {
        lastLegacyAnswer = nil
        handlerSpawns += 1
        guard let handler = start("handler") else { return }
        complete(handler.begin(NativeHandlerWire.input(.object(["type": .string(type)])), now: now), driver: handler, role: .legacy)
    }

    /// Safari starts one handler process per native request.
    private func serveNativeRequest(incarnation: Int, request: Int64, message: JSONValue) {
        handlerSpawns += 1
        guard let handler = start("handler") else { return }
        complete(handler.begin(NativeHandlerWire.input(message), now: now), driver: handler,
                 role: .handler(incarnation: incarnation, request: request))
    }

    private func handlerDirectives(_ directives: [JSONValue], from handler: ProcessDriver, incarnation: Int, request: Int64) {
        if handlerBehaviour == .crashing(afterWrite: true) {
            kill(handler, reason: "crashed before replying")
            queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.rejection))
            return
        }
        handler.finish()
        for case .object(let directive) in directives {
            if directive["type"] == .string("reply"), let reply = directive["message"] {
                let work = Work.nativeReply(incarnation: incarnation, request: request, message: reply)
                switch handlerBehaviour {
                case .healthy, .crashing: queue.append(work)
                case .garbage:
                    trace.record(now, handler.label, "reply replaced by garbage")
                    let garbage = Self.garbageReplies[garbageSent % Self.garbageReplies.count]
                    garbageSent += 1
                    queue.append(.nativeReply(incarnation: incarnation, request: request, message: garbage))
                case .slow(let delay): delayedReplies.append((now + delay, work))
                case .hung: trace.record(now, handler.label, "reply withheld (hung)")
                }
            }
            if directive["type"] == .string("notify") {
                // Darwin notifications reach only a running app that is not suspended.
                if app != nil && appInForeground { queue.append(.appInput(.object(["type": .string("changeNotification")]))) }
            }
        }
    }

    private func deliverToApp(_ input: JSONValue, edit: Int?) {
        guard let app else { return }
        if let edit {
            appEditsUnanswered.append(edit)
            appEditTimes[edit] = now
        }
        complete(app.begin(input, now: now), driver: app, role: .app)
    }

    private func appDirectives(_ directives: [JSONValue]) {
        for case .object(let directive) in directives {
            switch directive["type"] {
            case .string("view")?: appView = directive["view"]
            case .string("editSaved")?, .string("editRefused")?:
                lastEditAnswer = .object(directive)
                guard !appEditsUnanswered.isEmpty else { break }
                let edit = appEditsUnanswered.removeFirst()
                appAnswers[edit] = directive["type"] == .string("editSaved") ? .saved : .refused
                // A storage failure may have struck after the write took effect: no answer.
                if directive["code"] != .string(NativeErrorCode.storageFailure.rawValue) {
                    editAnswers[edit] = directive["type"] == .string("editSaved")
                }
            case .string("messageExtension")?:
                // Only macOS has a path from the app to the extension.
                if platform == .macOS { event(.object(["type": .string("appMessage")])) }
            default: break
            }
        }
    }

    /// Starts the next incarnation of a process, or records why it could not: a run that cannot
    /// start one of its processes has failed, and the problem names the executable. The trace,
    /// which never holds a path, says only which incarnation did not start.
    private func start(_ name: String) -> ProcessDriver? {
        do {
            return try spawn(name)
        } catch {
            let label = "\(name)#\(incarnations[name] ?? 0)"
            trace.record(now, label, "could not start")
            violations.append(error is ChildProcess.SpawnError ? "\(error)" : "cannot start \(label): \(error)")
            return nil
        }
    }

    /// Starts the next incarnation of `app`, `background` or `handler` on this run's transport.
    private func spawn(_ name: String) throws -> ProcessDriver {
        let incarnation = (incarnations[name] ?? 0) + 1
        incarnations[name] = incarnation
        let endpoint: FrameEndpoint
        // Browsers cap a native reply at 1 MiB; the frame around it adds a small envelope. The
        // app's and the background's frames are capped like frames to a child.
        let limit = name == "handler" ? Self.handlerFrameLimit : Framing.requestLimit
        switch (transport, name) {
        case (.process, "app"):
            endpoint = try ChildProcess(executable: executables + "/AppProcess", arguments: ["--container", containerDirectory], replyLimit: limit)
        case (.process, "background"):
            endpoint = try ChildProcess(executable: executables + "/ExtensionProcess", arguments: ["--storage", storageDirectory], replyLimit: limit)
        case (.process, _):
            endpoint = try ChildProcess(executable: executables + "/NativeHandler", arguments: ["--container", containerDirectory], replyLimit: limit)
        case (.inProcess, "app"):
            let storage = SimulatedContainer(disk: disk, owner: "\(name)#\(incarnation)")
            endpoint = try InProcessChild(limit: limit, hidingYield: inProcessHiddenYield) { gate in AppShell.serve(gate: gate, storage: storage) }
        case (.inProcess, "background"):
            let files = SimulatedExtensionFolder(disk: disk, location: Self.storageFolder(profile))
            endpoint = try InProcessChild(limit: limit, hidingYield: inProcessHiddenYield) { gate in ExtensionShell.serve(gate: gate, files: files) }
        case (.inProcess, _):
            let storage = SimulatedContainer(disk: disk, owner: "\(name)#\(incarnation)")
            endpoint = try InProcessChild(limit: limit, hidingYield: inProcessHiddenYield) { gate in NativeHandlerShell.serve(gate: gate, storage: storage) }
        }
        let driver = ProcessDriver(name: name, incarnation: incarnation, endpoint: endpoint, seed: seed, trace: trace)
        driver.policy = { [unowned self, unowned driver] point in self.decide(driver, at: point) }
        driver.flaws = flaws.map(\.rawValue).sorted()
        return driver
    }

    // MARK: - Yield points, holds and the container's lock

    private enum Role {
        case app, background
        case handler(incarnation: Int, request: Int64)
        /// A handler serving the first version's extension.
        case legacy
    }

    /// Processes waiting at a yield point: held by the user, or waiting for the lock.
    private var held: [(driver: ProcessDriver, role: Role, point: YieldPoint)] = []
    /// `hold PROCESS at POINT`: by logical name (`app`, `background`, `handler`).
    private var holds: [String: YieldPoint] = [:]
    /// `crash PROCESS at POINT`, once.
    private var crashes: [String: YieldPoint] = [:]
    /// Holds whose process got to the point.
    private var holdsReached: Set<String> = []
    /// Holds released before their process ever got there.
    private var unreached: [Fault] = []
    /// Whether `crashAt` happened.
    public private(set) var crashAtReached = false

    /// A hold, crash or storage failure a scenario planned for a process at a yield point.
    public struct Fault: Hashable, Sendable, CustomStringConvertible {
        public var kind: String
        public var process: String
        public var point: YieldPoint
        public var description: String { "\(kind) \(process) at \(point.rawValue)" }
    }

    /// The holds, crashes and storage failures planned so far that no process ever got to: a
    /// scenario that plans one is wrong (the process never does that work there).
    public var faultsNeverReached: [Fault] {
        unreached
            + holds.filter { !holdsReached.contains($0.key) }.map { Fault(kind: "hold", process: $0.key, point: $0.value) }
            + crashes.map { Fault(kind: "crash", process: $0.key, point: $0.value) }
            + plannedFailures.map { Fault(kind: "fail", process: $0.key, point: $0.value.point) }
    }
    /// `fail PROCESS at POINT with ERRNO`, once.
    private var plannedFailures: [String: (point: YieldPoint, errno: Int32, after: Bool)] = [:]
    private var backgroundFrozen = false
    /// The process past `lock` and not yet at `unlock`. The harness never lets a second one past
    /// `lock`; a frozen holder keeps the others waiting; a killed one releases it, as flock does.
    public private(set) var lockHolder: String?

    /// Stops the named process at the yield point the next time it gets there, until `release`.
    public func hold(_ process: String, at point: YieldPoint) {
        if let earlier = holds[process], !holdsReached.contains(process) { unreached.append(Fault(kind: "hold", process: process, point: earlier)) }
        holdsReached.remove(process)
        // A process already waiting there (for the lock) is held from now on: reached.
        if held.contains(where: { $0.driver.name == process && $0.point == point }) { holdsReached.insert(process) }
        holds[process] = point
    }

    /// Lets a held process go on (it may still wait for the lock) and plays out what follows.
    public func release(_ process: String) {
        if let point = holds[process], !holdsReached.contains(process) { unreached.append(Fault(kind: "hold", process: process, point: point)) }
        holds[process] = nil
        wakeWaiters()
    }

    /// The yield points where processes wait now, as `name#n@point`.
    public var waiting: [String] { held.map { "\($0.driver.label)@\($0.point.rawValue)" } }

    /// What each waiting process waits for, and who holds the container's lock: how a run
    /// that stopped short explains itself (`app#1 is held at rename by 'hold app at rename'`,
    /// `handler#2 waits at lock for the lock, which app#1 holds`).
    public var stuck: [String] {
        var lines: [String] = []
        for entry in held {
            let label = entry.driver.label, point = entry.point.rawValue
            if holds[entry.driver.name] == entry.point {
                lines.append("\(label) is held at \(point) by 'hold \(entry.driver.name) at \(point)', never released")
            } else if entry.point == .lock, let holder = lockHolder, holder != label {
                lines.append("\(label) waits at lock for the lock, which \(holder) holds")
            } else {
                lines.append("\(label) waits at \(point)")
            }
        }
        if let holder = lockHolder, !held.contains(where: { $0.driver.label == holder }) {
            lines.append("\(holder) holds the lock" + (backgroundFrozen && background?.label == holder ? " and is frozen" : ""))
        }
        return lines
    }

    private func isHeld(_ driver: ProcessDriver) -> Bool { held.contains { $0.driver === driver } }

    /// What Safari answers a request whose native extension ended without a reply: it rejects
    /// the request's promise.
    private static let rejection = JSONValue.object(["type": .string("error"), "code": .string("nativeFailure"),
                                                     "message": .string("the native extension ended without an answer")])

    private func decide(_ driver: ProcessDriver, at point: YieldPoint) -> ProcessDriver.YieldChoice {
        let key = "\(driver.name)@\(point.rawValue)"
        arrivalCounts[key, default: 0] += 1
        let arrival = YieldArrival(process: driver.name, point: point, occurrence: arrivalCounts[key]!)
        arrivals.append(arrival)
        unsyncedAtArrivals.append(transport == .inProcess ? disk.unsynced.count : 0)
        if let plan = powerCutPlan, case .arrival(let at) = plan.place, at == arrival {
            // The power fails with this process at this point: it and everyone else stop here.
            powerCutPlan = nil
            disk.cutPowerNow(keeping: plan.keep)
            return .kill
        }
        if arrival == crashAt {
            crashAtReached = true
            return .kill
        }
        // A planned crash or failure is used at the first arrival at its point, whatever else
        // happens there.
        if crashes[driver.name] == point {
            crashes[driver.name] = nil
            return .kill
        }
        let crashingHandler = driver.name == "handler" && handlerBehaviour == .crashing(afterWrite: false)
        if let failure = plannedFailures[driver.name], failure.point == point {
            plannedFailures[driver.name] = nil
            if !crashingHandler { return failure.after ? .failAfter(errno: failure.errno) : .fail(errno: failure.errno) }
        }
        if crashingHandler { return .kill }
        if holds[driver.name] == point {
            holdsReached.insert(driver.name)
            return .hold
        }
        if point == .lock {
            if let holder = lockHolder, holder != driver.label { return .hold }
            lockHolder = driver.label
        }
        if point == .unlock && lockHolder == driver.label { lockHolder = nil }
        return .proceed
    }

    /// Carries out where an input left a process.
    private func complete(_ step: ProcessDriver.Step, driver: ProcessDriver, role: Role) {
        if transport == .inProcess && disk.generation != bootGeneration {
            // The power failed while this step ran: whatever it produced is lost with it.
            return reboot(also: driver)
        }
        switch step {
        case .finished(let directives):
            // Container operations finish within one input: no process keeps the lock past it
            // (one whose lock step failed never took it).
            if lockHolder == driver.label { lockHolder = nil }
            switch role {
            case .app: appDirectives(directives)
            case .background: backgroundDirectives(directives, from: driver)
            case .handler(let incarnation, let request): handlerDirectives(directives, from: driver, incarnation: incarnation, request: request)
            case .legacy:
                // The first version's extension awaits its answer: a slow one still arrives, a
                // hung or crashed handler leaves it with none.
                if handlerBehaviour == .crashing(afterWrite: true) {
                    kill(driver, reason: "crashed before replying")
                } else {
                    driver.finish()
                    for case .object(let directive) in directives where directive["type"] == .string("reply") && handlerBehaviour != .hung {
                        lastLegacyAnswer = directive["message"]
                    }
                }
            }
        case .held(let point):
            held.append((driver, role, point))
        case .died:
            checkWhatWasLeft("\(driver.label) died")
            forget(driver)
            if case .handler(let incarnation, let request) = role {
                queue.append(.nativeReply(incarnation: incarnation, request: request, message: Self.rejection))
            }
        }
        wakeWaiters()
    }

    /// Resumes the first waiting process that may go on: not held by the user, and not waiting
    /// for a lock someone else holds.
    private func wakeWaiters() {
        guard let index = held.firstIndex(where: { entry in
            holds[entry.driver.name] != entry.point
                && !(entry.point == .lock && lockHolder != nil && lockHolder != entry.driver.label)
        }) else { return }
        let entry = held.remove(at: index)
        let name = entry.driver.name
        // A crash or failure planned for this point while the process waited there applies now.
        if crashes[name] == entry.point {
            crashes[name] = nil
            entry.driver.kill(now: now, reason: "killed at \(entry.point.rawValue)")
            return complete(.died(.unknown), driver: entry.driver, role: entry.role)
        }
        if let failure = plannedFailures[name], failure.point == entry.point {
            plannedFailures[name] = nil
            trace.record(now, entry.driver.label, "resumed at \(entry.point.rawValue) to fail")
            let answer: YieldAnswer = failure.after ? .failAfter(errno: failure.errno) : .fail(errno: failure.errno)
            return complete(entry.driver.resume(answer, now: now), driver: entry.driver, role: entry.role)
        }
        if entry.point == .lock { lockHolder = entry.driver.label }
        if entry.point == .unlock && lockHolder == entry.driver.label { lockHolder = nil }
        trace.record(now, entry.driver.label, "resumed at \(entry.point.rawValue)")
        complete(entry.driver.resume(.proceed, now: now), driver: entry.driver, role: entry.role)
    }

    /// A shared document the scenario planted damaged: exempt from the invariant 1 checks
    /// until a process sets it aside, and then its bytes must be kept.
    public var plantedDamage: [UInt8]?

    /// Invariant 1 at the moment a process dies or the power fails, before another process can
    /// repair anything: the shared document and the stored cache our processes left must parse.
    private func checkWhatWasLeft(_ event: String) {
        var problems: [String] = []
        if let bytes = containerFile(FileContainer.documentName), bytes != plantedDamage, (try? DocumentCodec.decode(bytes)) == nil {
            problems.append("the shared document is torn")
        }
        if let bytes = containerFile(FileContainer.previousName), bytes != plantedDamage, (try? DocumentCodec.decode(bytes)) == nil {
            problems.append("the last good copy is torn")
        }
        let local = ExtensionStore<ExtensionFolder, RecordingGate>.localName
        for (profile, bytes) in storageFiles(local).sorted(by: { $0.key < $1.key })
            where (try? JSONParser.parse(bytes)).flatMap(LocalStorage.decode) == nil {
            problems.append("profile \(profile)'s \(local) is torn")
        }
        for problem in problems {
            let text = "\(problem) when \(event) (invariant 1)"
            violations.append(text)
            trace.record(now, "check", text)
        }
    }

    /// The disk generation the running processes started in (in-process transport).
    private var bootGeneration = 0

    /// After a power cut: every process is gone, with Safari's session and every queued event;
    /// the device starts again, Safari restores its tabs and each page asks afresh.
    private func reboot(also driver: ProcessDriver?) {
        bootGeneration = disk.generation
        let cut = disk.lastCut
        trace.record(now, "harness", "power lost: \(cut?.kept ?? 0) unsynced changes kept, \(cut?.dropped ?? 0) dropped; the device restarts")
        checkWhatWasLeft("the power failed")
        for process in [driver, app, background].compactMap({ $0 }) + held.map(\.driver) { process.kill(now: now, reason: "power lost") }
        held = []
        app = nil
        background = nil
        backgroundStop = .unloaded
        appInForeground = false
        appEditsUnanswered = []
        lockHolder = nil
        queue = []
        delayedReplies = []
        timers = [:]
        heldForBackground = []
        backgroundFrozen = false
        backgroundDeathsInARow = 0
        owedFromCache = nil
        popupTab = nil
        popup = nil
        popupScope = nil
        forgetSessions()
        safariInForeground = true
        for id in tabs.keys.sorted() { reloadTab(id) }
    }

    private func kill(_ driver: ProcessDriver, reason: String = "killed") {
        driver.kill(now: now, reason: reason)
        forget(driver)
        wakeWaiters()
    }

    /// A dead process holds nothing: its lock is released and it waits nowhere.
    private func forget(_ driver: ProcessDriver) {
        held.removeAll { $0.driver === driver }
        disk.releaseLock(heldBy: driver.label)
        if lockHolder == driver.label { lockHolder = nil }
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
