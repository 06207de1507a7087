import ProcessKit
import SiteSettings

/// Invariant 14: Safari's rules for the background, stated a second time. It watches what
/// `SafariMachine` is told and what it does (each input with the effects it returned), keeps its
/// own account of the background (loaded, woken, its listeners, ports and inspector, its alarms,
/// the native requests in flight) on its own monotonic clock, and says where the machine, or the
/// shell that fires its timers, departs from WebKit (`SAFARI.md`):
///
/// - the unload timer runs 30 s after the last wake, and 30 s after each check that found the
///   background held (by Web Inspector, a pending permission prompt, or an open port it used
///   less than 2 minutes before),
///   and never for a persistent background;
///   a check unloads it exactly when nothing holds it, and none is missed or early; every other
///   kill has a cause the user or the system gave (an unload or kill asked for, a restart, an
///   update, a profile switch);
/// - an alarm fires no earlier than the later of its time and the minimum after it was set, and
///   not late while Safari runs; a one-shot alarm fires once (Safari keeps it after, with no
///   timer, and the alarms a background is told of are the ones Safari holds); alarms do not
///   survive a restart, a power cut or an update, in any profile;
/// - an install loads the background at once (with a load time, its scripts run only at the
///   load's end, and no background's scripts run at any other moment); an update's load names the version it replaced,
///   another than the one it installs: the one installed before the last update (each update
///   loads the extension anew, so two before a background loads name the second's);
/// - a background's own storage change wakes it (its unload timer starts again) when it
///   listens for storage changes;
/// - on macOS, Safari leaving the front tells the extension that no window has focus
///   (`windows.onFocusChanged`), once each time it leaves; iOS, which suspends it, tells nothing;
/// - a native request is accepted only below the cap, and refused only at it;
/// - a permission prompt lasts until the user answers it or 2 minutes pass, and no longer;
/// - the timers that fell due while iOS Safari was suspended fire on its return, once each, in
///   the order they fell due;
/// - an event reaches a background only through a listener it has, and wakes an unloaded one
///   (or starts a loaded one's unload timer again) only if a background of the session had a
///   listener for it, or Safari's launch read one from what it saved at a load's end.
///
/// It shares no state with the machine and reads none of its properties: only inputs, effects
/// and the run's settings. `lateness` is how late a timer may fire on the clock that drives the
/// run (none on virtual time; a wall clock's scheduling delay in a soak).
struct SafariRules: Sendable {
    let platform: SafariMachine.Platform
    var alarmMinimum: EpochMillis
    /// How long a background's load takes before its scripts run (`background-load-time`).
    var backgroundLoadTime: EpochMillis = 0
    /// The extension's background is persistent (Manifest V2's, on macOS): no unload check ever
    /// runs for it (`unloadBackgroundContentIfPossible` returns at once), and it is loaded as the
    /// run begins.
    var persistentBackground = false
    var nativeRequestCap: Int
    let lateness: EpochMillis

    /// WebKit's constants, as `SAFARI.md` gives them.
    static let unloadCheck: EpochMillis = 30_000
    static let portKeepAlive: EpochMillis = 120_000
    static let permissionPromptTimeout: EpochMillis = 120_000

    /// The run's start, and how long the device slept since: Safari's clock counts from the
    /// start and stops while the device sleeps.
    private let epoch: EpochMillis
    private var slept: EpochMillis = 0
    private var profile: String
    /// The loaded background: its incarnation, when its unload timer fires, its listeners,
    /// ports and inspector.
    private var loaded: Int?
    private var unloadCheck: EpochMillis = 0
    private var listeners: Set<BackgroundListener> = []
    /// The loaded background reported its listeners once: its load ended.
    private var loadEnded = false
    /// Each profile's listeners as Safari saved them at a load's end, and those it holds for
    /// the session: read at its launch, with every type a background that ended had.
    private var savedListeners: [String: Set<BackgroundListener>] = [:]
    private var sessionListeners: [String: Set<BackgroundListener>] = [:]
    private var ports: Set<SafariMachine.Port> = []
    /// The tab the popup is open over: closing that tab closes the popup and its port.
    private var popupTab: TabID?
    private var portUsed: EpochMillis = 0
    private var inspected = false
    /// Safari's timers stop: the user froze the background, or iOS suspended Safari; when they
    /// last ran again.
    private var frozen = false
    private var suspended = false
    /// The version installed (once an update's load named it), and the one the last update
    /// replaced (once known).
    private var installedVersion: String?
    private var updatedFrom: String?
    /// Safari is in front (it went to the background since, or not).
    private var inFront = true
    private var resumed: EpochMillis = 0
    /// Each profile's alarms: when each falls due (monotonic) and its period.
    private var alarms: [String: [String: (due: EpochMillis, period: EpochMillis?)]] = [:]
    /// Each profile's one-shot alarms that fired: Safari keeps them, with no timer, until they
    /// are cleared or made again (`WebExtensionAlarm::fire`).
    private var firedAlarms: [String: Set<String>] = [:]
    private var requests: Set<SafariMachine.NativeRequestID> = []
    /// When each pending permission prompt times out, oldest first.
    private var prompts: [EpochMillis] = []
    private var hungLegacy = 0
    /// On iOS Safari's return, the timers that fell due while it was suspended and have not
    /// fired yet, by name, with when each fell due.
    private var overdue: [String: EpochMillis]?
    private var reported: Set<String> = []
    /// What the input being watched broke so far.
    private var found: [String] = []

    init(platform: SafariMachine.Platform, epoch: EpochMillis, profile: String = SafariMachine.defaultProfile,
                 alarmMinimum: EpochMillis = SafariMachine.alarmMinimum,
                 nativeRequestCap: Int = SafariMachine.maximumActiveNativeRequests, lateness: EpochMillis = 0) {
        self.platform = platform
        self.epoch = epoch
        self.profile = profile
        self.alarmMinimum = alarmMinimum
        self.nativeRequestCap = nativeRequestCap
        self.lateness = lateness
    }

    /// Safari's clock, which stops while the device sleeps.
    private func monotonic(_ now: EpochMillis) -> EpochMillis { now - epoch - slept }

    // MARK: - Watching

    /// What the machine was told at `now` and what it did; returns the rules it broke.
    mutating func observe(_ input: SafariMachine.Input, _ effects: [SafariMachine.Effect], now: EpochMillis) -> [String] {
        found = check(now: now)
        defer { found = [] }
        let time = monotonic(now)
        // (A content script's pause is the page's own timer, not Safari's; a permission prompt's
        // is Safari's UI process's, which a frozen background does not stop.)
        if case .timeReached(let due) = input, !due.isPages, (frozen && due != .permissionPrompt) || (suspended && overdue == nil) {
            note("stopped \(time)", "\(due == .idleUnload ? "Safari's unload check" : "an alarm") ran at \(seconds(time)) while Safari's timers were stopped (\(frozen ? "the background frozen" : "iOS Safari suspended"))")
        }
        switch input {
        case .timeReached(.idleUnload):
            unloadChecked(killed: effects.contains(where: \.isKill), at: time)
        case .timeReached(.alarm(let name)):
            // The background hears the alarm by the name it gave it (the unnamed one as "").
            if effects.contains(.dispatch(.alarmFired(name: name == SafariMachine.decisionAlarm ? "" : name))) { alarmFired(name, at: time) }
        case .backgroundUnloadRequested, .backgroundKillRequested, .extensionUpdating, .safariQuit, .profileLeftFront:
            break
        case .extensionInstalled where loaded == nil && backgroundLoadTime == 0:
            // An install loads the background at once (`loadBackgroundWebViewDuringLoad`).
            if !effects.contains(where: { if case .startBackground = $0 { true } else { false } }) {
                note("install \(now)", "the extension was installed and Safari did not load its background")
            }
        default:
            if effects.contains(where: \.isKill) { note("kill \(now)", "Safari ended background#\(loaded.map(String.init) ?? "?") on \(SafariRules.name(input)), which ends no background") }
        }
        checkLoadTime(input, effects, at: time)
        checkRequests(input, effects)
        checkEvents(effects)
        checkFocusLoss(input, effects)
        checkUpdateVersions(input, effects)
        take(input, at: time)
        take(effects, at: time)
        checkAlarmLists(effects, at: time)
        if case .overdueTimersFired = input { found += overdueReturned(at: time) }
        return found
    }

    /// A broken rule, said once.
    private mutating func note(_ key: String, _ message: String) {
        if reported.insert(key).inserted { found.append(message) }
    }

    /// What should have happened by `now` and did not: an unload, an alarm.
    mutating func check(now: EpochMillis) -> [String] {
        guard !frozen, !suspended else { return [] }
        var broken: [String] = []
        let time = monotonic(now)
        if let loaded, !persistentBackground, time > max(unloadCheck, resumed) + lateness, reported.insert("missing check \(loaded) \(unloadCheck)").inserted {
            broken.append("Safari's unload check of background#\(loaded), due at \(seconds(unloadCheck)), had not run by \(seconds(time))")
        }
        for (name, alarm) in alarms[profile, default: [:]].sorted(by: { $0.key < $1.key })
        where time > max(alarm.due, resumed) + lateness && reported.insert("missing alarm \(name) \(alarm.due)").inserted {
            broken.append("alarm \(name), due at \(seconds(alarm.due)), had not fired by \(seconds(time))")
        }
        if let expiry = prompts.first, time > max(expiry, resumed) + lateness, reported.insert("missing prompt expiry \(expiry)").inserted {
            broken.append("the permission prompt due to go at \(seconds(expiry)) was still pending at \(seconds(time))")
        }
        return broken
    }

    /// What Safari holds the front profile's background listens for: the loaded one's
    /// listeners with the session's; nil while it knows none.
    private var knownListeners: Set<BackgroundListener>? {
        guard loaded != nil else { return sessionListeners[profile] }
        return listeners.union(sessionListeners[profile] ?? [])
    }

    /// What holds the loaded background at an unload check, if anything.
    private func holder(at time: EpochMillis) -> String? {
        if inspected { return "Web Inspector was attached to it" }
        if !prompts.isEmpty { return "a permission prompt was pending" }
        if !ports.isEmpty, time - portUsed < Self.portKeepAlive {
            return "it held a port it used \(ScenarioPrinter.duration(time - portUsed)) before"
        }
        return nil
    }

    /// Safari's unload timer fired: it unloads the background exactly when nothing holds it,
    /// and otherwise runs again 30 s later.
    private mutating func unloadChecked(killed: Bool, at time: EpochMillis) {
        guard let loaded else { return }
        guard !persistentBackground else {
            note("persistent check \(time)", "Safari ran an unload check at \(seconds(time)) for background#\(loaded), a persistent background, which it never unloads when idle")
            return
        }
        if time < unloadCheck {
            if killed { note("early unload \(loaded)", "Safari unloaded background#\(loaded) at \(seconds(time)), before its unload check at \(seconds(unloadCheck))") }
            return
        }
        firedOverdue("the unload check", due: unloadCheck)
        switch (holder(at: time), killed) {
        case (let holder?, true): note("held unload \(loaded)", "Safari unloaded background#\(loaded) at \(seconds(time)) though \(holder)")
        case (nil, false): note("kept \(loaded) \(time)", "Safari's unload check at \(seconds(time)) kept background#\(loaded), though nothing held it")
        case (_?, false): unloadCheck = time + Self.unloadCheck
        case (nil, true): break
        }
    }

    private mutating func alarmFired(_ name: String, at time: EpochMillis) {
        guard let alarm = alarms[profile]?[name] else {
            return note("unknown alarm \(time)", "alarm \(name) fired in profile \(profile), which has no such alarm (none was set, or a restart or an update cleared it)")
        }
        if time < alarm.due { note("early alarm \(alarm.due)", "alarm \(name) fired at \(seconds(time)), before \(seconds(alarm.due))") }
        firedOverdue("alarm \(name)", due: alarm.due)
        // It woke the background first, if Safari holds that it listens for alarms.
        if loaded != nil, knownListeners?.contains(.alarm) == true { unloadCheck = time + Self.unloadCheck }
        alarms[profile]?[name] = alarm.period.map { (time + $0, $0) }
        if alarm.period == nil { firedAlarms[profile, default: []].insert(name) }
    }

    /// On iOS Safari's return, an overdue timer fired: none that fell due before it may still wait.
    private mutating func firedOverdue(_ timer: String, due: EpochMillis) {
        guard var waiting = overdue else { return }
        waiting[timer] = nil
        for (earlier, at) in waiting.sorted(by: { $0.value < $1.value }) where at < due && isStillDue(earlier, at) {
            note("overdue order \(timer)", "on return, \(timer) (due \(seconds(due))) fired before \(earlier), due earlier (\(seconds(at)))")
        }
        overdue = waiting
    }

    /// Whether an overdue timer is still set as it was when Safari returned.
    private func isStillDue(_ timer: String, _ due: EpochMillis) -> Bool {
        if timer == "the unload check" { return loaded != nil && unloadCheck == due }
        return alarms[profile]?[String(timer.dropFirst("alarm ".count))]?.due == due
    }

    private mutating func checkRequests(_ input: SafariMachine.Input, _ effects: [SafariMachine.Effect]) {
        let inFlight = requests.count + hungLegacy
        for effect in effects {
            switch effect {
            case .startHandler(let id, _, _) where inFlight >= nativeRequestCap:
                note("over cap \(id.incarnation).\(id.request)", "Safari accepted native request \(id.request) of background#\(id.incarnation) with \(inFlight) in flight, the cap being \(nativeRequestCap)")
            case .startLegacyHandler where inFlight >= nativeRequestCap:
                note("over cap legacy \(inFlight)", "Safari accepted the first version's native message with \(inFlight) in flight, the cap being \(nativeRequestCap)")
            case .queueReply(let id, .rejected(.tooManyRequests)) where inFlight < nativeRequestCap:
                note("under cap \(id.incarnation).\(id.request)", "Safari refused native request \(id.request) of background#\(id.incarnation) with \(inFlight) in flight, below the cap of \(nativeRequestCap)")
            default: break
            }
        }
        if case .legacyRequestSent = input, !effects.contains(where: \.startsLegacyHandler), inFlight < nativeRequestCap {
            note("under cap legacy \(inFlight)", "Safari refused the first version's native message with \(inFlight) in flight, below the cap of \(nativeRequestCap)")
        }
    }

    private mutating func checkEvents(_ effects: [SafariMachine.Effect]) {
        var starts = false
        for effect in effects {
            switch effect {
            case .startBackground: starts = true
            case .redispatch(let event) where starts:
                guard let listener = SafariRules.listener(of: event) else {
                    note("wake \(event.name)", "Safari started a background for \(event.name), which wakes nothing")
                    continue
                }
                if let known = knownListeners, !known.contains(listener) {
                    note("wake \(event.name) \(profile)", "Safari woke a background for \(event.name), though its extension does not listen for \(listener.rawValue)")
                }
            case .deliver(let event):
                if let listener = SafariRules.listener(of: event), !listeners.contains(listener) {
                    note("deliver \(event.name) \(loaded ?? 0)", "Safari handed \(event.name) to background#\(loaded.map(String.init) ?? "?"), which has no \(listener.rawValue) listener")
                }
            default: break
            }
        }
    }

    /// With a load time, a background's scripts run only when a load ends, never at the moment
    /// Safari begins one.
    private mutating func checkLoadTime(_ input: SafariMachine.Input, _ effects: [SafariMachine.Effect], at time: EpochMillis) {
        guard backgroundLoadTime > 0 else { return }
        let starts = effects.contains { if case .startBackground = $0 { true } else { false } }
        if case .timeReached(.backgroundLoad) = input { return }
        if starts { note("load time \(time)", "Safari ran a background's scripts at \(seconds(time)) on \(SafariRules.name(input)), not at the end of a load of \(ScenarioPrinter.duration(backgroundLoadTime))") }
    }

    /// An update's load names the version it replaced, another than the version it installs
    /// (WebKit sees no update when the version stays): the one installed before the last
    /// update, since each update loads the extension anew (`determineInstallReasonDuringLoad`
    /// compares with the last version seen; `unload` clears `m_previousVersion`).
    private mutating func checkUpdateVersions(_ input: SafariMachine.Input, _ effects: [SafariMachine.Effect]) {
        if case .extensionUpdated(let version) = input {
            updatedFrom = installedVersion
            installedVersion = version ?? installedVersion.map(ExtensionVersion.following)
        }
        for case .startBackground(.started(_, _, _, _, _, .update?, let version, let previous, _, _)) in effects {
            if previous == nil || previous == version {
                note("update version \(previous ?? "none")", "Safari loaded an update's background naming previous version \(previous ?? "none") for version \(version ?? "the manifest's")")
            } else if let from = updatedFrom, previous != from {
                note("update chain \(from)", "Safari loaded an update's background naming previous version \(previous!), though the last update replaced \(from)")
            }
            if installedVersion == nil { installedVersion = version }
        }
    }

    /// Safari leaving the front on macOS fires `windows.onFocusChanged` with no window
    /// (`didFocusWindow(nullptr)`), once; on iOS, or when it was not in front, nothing fires.
    private mutating func checkFocusLoss(_ input: SafariMachine.Input, _ effects: [SafariMachine.Effect]) {
        let told = effects.contains(.dispatch(.safariWentToBackground))
        let leaves: Bool
        if case .safariWentToBackground = input { leaves = true } else { leaves = false }
        let owed = leaves && inFront && platform == .macOS
        if told && !owed {
            note("focus loss told \(SafariRules.name(input))", "Safari told the extension that no window has focus on \(SafariRules.name(input))\(platform == .iOS ? " on iOS" : ", though Safari was not leaving the front")")
        } else if owed && !told {
            note("focus loss untold", "Safari left the front on macOS and did not tell the extension that no window has focus (windows.onFocusChanged)")
        }
        if leaves { inFront = false }
        if effects.contains(.dispatch(.safariCameToForeground)) { inFront = true }
        switch input {
        case .safariCameToForeground, .safariLaunched, .powerLost, .overdueTimersFired: inFront = true
        default: break
        }
    }

    /// The alarms a background is told Safari holds (`started`, `alarmsChanged`) are the front
    /// profile's: those still to fire and the one-shot ones that fired.
    private mutating func checkAlarmLists(_ effects: [SafariMachine.Effect], at time: EpochMillis) {
        let held = Set(alarms[profile, default: [:]].keys).union(firedAlarms[profile, default: []])
            .map { $0 == SafariMachine.decisionAlarm ? "" : $0 }.sorted()
        for effect in effects {
            let told: [String: ExtensionWire.Alarm], whom: String
            switch effect {
            case .startBackground(.started(_, _, _, _, let alarms, _, _, _, _, _)), .dispatch(.alarmsChanged(let alarms)): (told, whom) = (alarms, "a background")
            // The extension's own pages read the same list.
            case .pagesAlarmsChanged(let alarms, _): (told, whom) = (alarms, "the extension's pages")
            default: continue
            }
            if told.keys.sorted() != held {
                note("alarm list \(time)", "Safari told \(whom) it holds the alarms [\(told.keys.sorted().joined(separator: ", "))] at \(seconds(time)), "
                    + "though it holds [\(held.joined(separator: ", "))] (a one-shot alarm that fired stays until it is cleared or made again)")
            }
        }
    }

    /// On iOS Safari's return, every timer that fell due while it was suspended has fired.
    private mutating func overdueReturned(at time: EpochMillis) -> [String] {
        defer { overdue = nil }
        guard !frozen else { return [] }
        var broken: [String] = []
        if let loaded, !persistentBackground, unloadCheck <= time {
            broken.append("on return, the unload check of background#\(loaded), due at \(seconds(unloadCheck)), did not run")
        }
        for (name, alarm) in alarms[profile, default: [:]].sorted(by: { $0.key < $1.key }) where alarm.due <= time {
            broken.append("on return, alarm \(name), due at \(seconds(alarm.due)), did not fire")
        }
        return broken
    }

    // MARK: - Keeping account

    /// An alarm made, by the background or one of its pages: no sooner than the minimum, and no
    /// period shorter than it.
    private mutating func alarmMade(at: EpochMillis, name: String, period: EpochMillis?, time: EpochMillis) {
        let key = SafariMachine.alarmKey(name)
        firedAlarms[profile]?.remove(key)
        alarms[profile, default: [:]][key] = (time + max(at - (epoch + slept + time), alarmMinimum), period.map { max($0, alarmMinimum) })
    }

    private mutating func alarmCleared(_ name: String) {
        let key = SafariMachine.alarmKey(name)
        alarms[profile]?[key] = nil
        firedAlarms[profile]?.remove(key)
    }

    private mutating func take(_ input: SafariMachine.Input, at time: EpochMillis) {
        switch input {
        case .deviceSlept(let duration): slept += duration
        // An extension page's alarms are Safari's as the background's are.
        case .pageAlarmSet(let at, let name, let period): alarmMade(at: at, name: name, period: period, time: time)
        case .pageAlarmCleared(let name): alarmCleared(name)
        case .backgroundStarted(let incarnation):
            loaded = incarnation
            unloadCheck = time + Self.unloadCheck
            listeners = []
            loadEnded = false
        case .eventDue(let event, _) where loaded != nil && !frozen && !suspended:
            // An event it has no listener for is lost, and still starts the unload timer again
            // when Safari holds that the extension listens for it.
            if let listener = SafariRules.listener(of: event), !listeners.contains(listener), knownListeners?.contains(listener) == true {
                unloadCheck = time + Self.unloadCheck
            }
        case .backgroundFinished(let incarnation, let outputs) where incarnation == loaded:
            for output in outputs {
                switch output {
                case .listen(let events): listeners = Set(events)
                case .connectNative:
                    ports.insert(.native)
                    portUsed = time
                case .showPopup where ports.contains(.popup): portUsed = time
                // Its own post on a page's port is its port activity; closing one drops it.
                case .postOnPort(let port, _) where ports.contains(.page(port)): portUsed = time
                case .closePort(let port): ports.remove(.page(port))
                case .tabsCall(_, .requestPermissions): prompts.append(time + Self.permissionPromptTimeout)
                // Its own storage change wakes it when it listens for changes.
                case .storageChanged where knownListeners?.contains(.storageChanged) == true: unloadCheck = time + Self.unloadCheck
                case .setAlarm(let at, let name, let period): alarmMade(at: at, name: name, period: period, time: time)
                case .clearAlarm(let name): alarmCleared(name)
                default: break
                }
            }
            // Its first turn is its load: at its end Safari saves the listener types it holds.
            if !loadEnded { savedListeners[profile] = knownListeners }
            loadEnded = true
        case .backgroundDied(let incarnation, _) where incarnation == loaded: backgroundGone(at: time)
        case .popupOpened(let tab): popupTab = tab
        case .popupClosed:
            ports.remove(.popup)
            popupTab = nil
        case .tabClosed(let tab) where tab == popupTab:
            ports.remove(.popup)
            popupTab = nil
        case .popupAnnouncementInterrupted: ports.remove(.popup)
        case .inspectorOpened: inspected = loaded != nil
        case .inspectorClosed: inspected = false
        case .permissionPromptAnswered: if !prompts.isEmpty { prompts.removeFirst() }
        // A page's prompt holds the background as the background's own does.
        case .pagePermissionsRequested: prompts.append(time + Self.permissionPromptTimeout)
        case .timeReached(.permissionPrompt):
            guard let expiry = prompts.first else {
                note("no prompt \(time)", "a permission prompt timed out at \(seconds(time)), with none pending")
                break
            }
            if time < expiry { note("early prompt \(expiry)", "a permission prompt timed out at \(seconds(time)), before its 2 minutes (\(seconds(expiry)))") }
            prompts.removeFirst()
        case .backgroundFrozenByUser: frozen = true
        case .backgroundThawedByUser: resume(frozen: false, suspended: suspended, at: time)
        case .safariWentToBackground: suspended = suspended || platform == .iOS
        case .appCameToForeground: suspended = suspended || platform == .iOS
        case .overdueTimersFired: resume(frozen: frozen, suspended: false, at: time)
        case .safariLaunched, .powerLost:
            backgroundGone(at: time)
            restarted(at: time)
        case .extensionUpdated:
            backgroundGone(at: time)
            prompts = []
            savedListeners = [:]
            sessionListeners = [:]
            alarms = [:]
            firedAlarms = [:]
        case .profileCameToFront(let name, _):
            backgroundGone(at: time)
            prompts = []
            profile = name
            resume(frozen: false, suspended: suspended, at: time)
        case .replyArrived(let id, _): requests.remove(id)
        case .legacyRequestHung: hungLegacy += 1
        default: break
        }
    }

    private mutating func take(_ effects: [SafariMachine.Effect], at time: EpochMillis) {
        for effect in effects {
            switch effect {
            case .deliver(let event):
                if SafariRules.listener(of: event) != nil { unloadCheck = time + Self.unloadCheck }
                switch event {
                case .popupOpened: popupPortOpened(at: time)
                // Its runtime.onConnect took a page's port (`addPorts`); the page's end closed.
                case .portOpened(let port, _, _):
                    ports.insert(.page(port))
                    portUsed = time
                case .portClosed(let port, _): ports.remove(.page(port))
                default: break
                }
            case .announcePopup: popupPortOpened(at: time)
            // Safari handed a port the background opened to a tab's page (`tabsConnect`'s
            // `addPorts`): the background holds it by its own number. (To a tab not open, it
            // added none.)
            case .connectPage(_, _, _, let number):
                ports.insert(.page(number))
                portUsed = time
            case .startHandler(let id, _, _): requests.insert(id)
            case .fireOverdueTimers:
                var due: [String: EpochMillis] = [:]
                if loaded != nil, !frozen, !persistentBackground, unloadCheck <= time { due["the unload check"] = unloadCheck }
                for (name, alarm) in alarms[profile, default: [:]] where !frozen && alarm.due <= time { due["alarm \(name)"] = alarm.due }
                overdue = due
            default: break
            }
        }
    }

    private mutating func popupPortOpened(at time: EpochMillis) {
        ports.insert(.popup)
        portUsed = time
    }

    /// No background is loaded: a freeze of the last one ends with it.
    private mutating func backgroundGone(at time: EpochMillis) {
        if loaded != nil, loadEnded { sessionListeners[profile, default: []].formUnion(listeners) }
        loaded = nil
        listeners = []
        ports = []
        inspected = false
        resume(frozen: false, suspended: suspended, at: time)
    }

    /// Safari started afresh: what it kept in memory (alarms in every profile, requests in
    /// flight) is gone, and it is in front.
    private mutating func restarted(at time: EpochMillis) {
        prompts = []
        alarms = [:]
        firedAlarms = [:]
        sessionListeners = savedListeners
        requests = []
        hungLegacy = 0
        resume(frozen: false, suspended: false, at: time)
    }

    private mutating func resume(frozen: Bool, suspended: Bool, at time: EpochMillis) {
        let wasStopped = self.frozen || self.suspended
        (self.frozen, self.suspended) = (frozen, suspended)
        if wasStopped || !(frozen || suspended) { resumed = max(resumed, time) }
    }

    /// A moment on Safari's clock: as the trace gives times while the device has not slept;
    /// after a sleep, on Safari's clock, which the sleep did not move.
    private func seconds(_ time: EpochMillis) -> String {
        slept == 0 ? Trace.relative(time) : "\(Trace.relative(time)) on Safari's clock"
    }

    // MARK: - WebKit's reading of events

    /// The listener an event is fired to (`runtime.onMessage` for what pages and the popup
    /// send, `tabs.onActivated`, `tabs.onRemoved`, `windows.onFocusChanged`,
    /// `alarms.onAlarm`); nil for what is not an event: the load, a storage completion, a native
    /// reply, the background's own timer, a message on its port.
    static func listener(of event: ExtensionWire.Event) -> BackgroundListener? {
        switch event {
        case .tabRequestedDecision, .tabNativeDarkChanged, .appearanceChanged, .pageMessage: .message
        case .popupOpened, .popupClosed, .popupChoseScope, .popupEdited, .popupForgotSite, .popupPaused: .message
        case .tabActivated: .tabActivated
        case .tabClosed: .tabRemoved
        case .safariCameToForeground, .safariWentToBackground: .windowFocus
        case .alarmFired: .alarm
        case .portOpened: .connect
        case .storageChanged: .storageChanged
        case .tabCreated: .tabCreated
        case .tabUpdated: .tabUpdated
        case .menuClicked: .menuClicked
        case .commandPressed: .command
        case .actionClicked: .actionClicked
        case .navigated(_, _, let stage): stage.listener
        case .permissionsChanged(let added, _, _): added ? .permissionsAdded : .permissionsRemoved
        case .tabsAnswered: nil
        case .started, .storageCompleted, .nativeReplyArrived, .timerFired, .appMessageArrived, .alarmsChanged, .menusChanged, .pageAnswered, .portMessage,
             .portClosed: nil
        }
    }

    static func name(_ input: SafariMachine.Input) -> String {
        String(describing: input).prefix { $0 != "(" }.description
    }
}

extension SafariMachine.Effect {
    var isKill: Bool {
        if case .killBackground = self { return true }
        return false
    }

    var startsLegacyHandler: Bool {
        if case .startLegacyHandler = self { return true }
        return false
    }
}
