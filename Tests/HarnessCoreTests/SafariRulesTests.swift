import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Invariant 14: the second statement of Safari's rules watches the machine that plays them. Each
/// test plays the machine rightly and sees nothing broken, or breaks it (its state, its setting,
/// or the moment its shell fires a timer) and sees the rule it breaks named.
struct SafariRulesTests {
    private let t1 = TabID("t1")
    private let url = "https://docs.example.com/"

    /// A machine and the rules watching it, from the run's start (epoch 0).
    private struct Watched {
        var safari: SafariMachine
        var rules: SafariRules
        var broken: [String] = []

        init(_ platform: SafariMachine.Platform = .macOS, listeners: [BackgroundListener] = BackgroundListener.builtIn, cap: Int = 150) {
            safari = SafariMachine(platform: platform)
            safari.nativeRequestCap = cap
            rules = SafariRules(platform: platform, epoch: 0, nativeRequestCap: cap)
            tell(.backgroundStarted(incarnation: 1), at: 0)
            tell(.backgroundFinished(incarnation: 1, [.listen(listeners)]), at: 0)
        }

        @discardableResult
        mutating func tell(_ input: SafariMachine.Input, at now: EpochMillis) -> [SafariMachine.Effect] {
            let effects = safari.handle(input, now: now)
            broken += rules.observe(input, effects, now: now)
            return effects
        }

        mutating func check(at now: EpochMillis) { broken += rules.check(now: now) }

        /// Time moves to `now` with the unload checks due by then run, as a run's scheduler does.
        mutating func idle(until now: EpochMillis) {
            while let check = safari.unloadTime, check <= now, safari.loaded != nil {
                if tell(.timeReached(.idleUnload), at: check).contains(where: \.isKill) { tell(.backgroundDied(incarnation: safari.loaded!, stop: .unloaded), at: check) }
            }
        }

        /// Whether exactly one rule broke, and its message has `text`.
        func broke(_ text: String) -> Bool {
            let found = broken.count == 1 && broken[0].contains(text)
            if !found { print("BROKEN", broken) }
            return found
        }
    }

    // MARK: - Played rightly

    @Test func aMachinePlayedRightlyBreaksNoRule() {
        var run = Watched(.iOS)
        run.tell(.tabOpened(t1, url: url, nativeDark: false, window: nil), at: 0)
        run.tell(.eventDue(.tabRequestedDecision(t1, url: url, nativeDark: false)), at: 0)
        run.tell(.backgroundFinished(incarnation: 1, [.connectNative, .sendNative(request: 1, .getSnapshot(known: nil)), .setAlarm(at: 10_000)]), at: 0)
        run.tell(.nativeRequestDue(.init(incarnation: 1, request: 1), .getSnapshot(known: nil), profile: "default"), at: 0)
        run.tell(.replyArrived(.init(incarnation: 1, request: 1), .rejected(.handlerEnded)), at: 1)
        // The port holds it at 30, 60 and 90 s; the alarm (raised to 30 s) fires and wakes it at 30 s.
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 30_000)
        for check: EpochMillis in [60_000, 90_000] { run.tell(.timeReached(.idleUnload), at: check) }
        #expect(run.tell(.timeReached(.idleUnload), at: 120_000) == [.killBackground(reason: "unloaded", stop: .unloaded)])
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 120_000)
        // The device sleeps; a new background sets an alarm, Safari is suspended past it and
        // the unload check, and on return both fire, in the order they fell due.
        run.tell(.deviceSlept(3_600_000), at: 120_000)
        run.tell(.eventDue(.tabActivated(t1)), at: 3_720_000)
        run.tell(.backgroundStarted(incarnation: 2), at: 3_720_000)
        run.tell(.backgroundFinished(incarnation: 2, [.listen(BackgroundListener.builtIn), .setAlarm(at: 3_800_000)]), at: 3_720_000)
        run.tell(.eventDue(.tabActivated(t1)), at: 3_720_000)
        run.tell(.safariWentToBackground, at: 3_720_000)
        run.check(at: 4_000_000)
        #expect(run.tell(.safariCameToForeground, at: 4_000_000).contains(.fireOverdueTimers))
        let unload = run.tell(.timeReached(.idleUnload), at: 4_000_000)
        #expect(unload == [.killBackground(reason: "unloaded", stop: .unloaded)], "the overdue check unloads it")
        run.tell(.backgroundDied(incarnation: 2, stop: .unloaded), at: 4_000_000)
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 4_000_000)
        run.tell(.overdueTimersFired, at: 4_000_000)
        #expect(run.broken == [])
    }

    // MARK: - The unload timer

    @Test func anInstallThatLoadsNoBackgroundIsCaught() {
        var safari = SafariMachine(platform: .macOS)
        var rules = SafariRules(platform: .macOS, epoch: 0)
        #expect(rules.observe(.extensionInstalled, safari.handle(.extensionInstalled, now: 0), now: 0).isEmpty)
        var unloading = SafariRules(platform: .macOS, epoch: 0)
        #expect(unloading.observe(.extensionInstalled, [], now: 0).contains { $0.contains("the extension was installed and Safari did not load its background") })
    }

    /// Its own storage change woke a background that listens for changes: a machine that kept
    /// the old unload time is caught unloading it early.
    @Test func anUnloadThatMissedTheBackgroundsOwnStorageChangeIsCaught() {
        var run = Watched(listeners: [.storageChanged])
        run.tell(.backgroundFinished(incarnation: 1, [.storageChanged(area: "local", changes: .object(["count": .object([:])]))]), at: 20_000)
        #expect(run.broken.isEmpty)
        run.safari.loadedBackground?.unloadCheck = 30_000
        run.tell(.timeReached(.idleUnload), at: 30_000)
        #expect(run.broke("Safari unloaded background#1 at +30.000s, before its unload check at +50.000s"), "\(run.broken)")
    }

    /// A one-shot alarm that fired stays among the alarms a background is told of: a machine
    /// that forgot it is caught the next time it tells the background its alarms.
    @Test func aBackgroundToldOfAlarmsSafariDoesNotHoldIsCaught() {
        var run = Watched(listeners: [.message])
        run.tell(.backgroundFinished(incarnation: 1, [.setAlarm(at: 30_000, name: "once"), .setAlarm(at: 30_000, name: "every", period: 30_000)]), at: 0)
        run.tell(.timeReached(.alarm("every")), at: 30_000)
        run.tell(.timeReached(.alarm("once")), at: 30_000)
        run.tell(.deviceSlept(1_000), at: 30_000)
        #expect(run.broken.isEmpty, "\(run.broken)")
        run.safari.alarms["once"] = nil
        run.tell(.deviceSlept(1_000), at: 30_000)
        #expect(run.broke("though it holds [every, once]"), "\(run.broken)")
    }

    @Test func anUnloadBeforeItsCheckIsCaught() {
        var run = Watched()
        run.tell(.timeReached(.idleUnload), at: 10_000)
        #expect(run.broke("Safari unloaded background#1 at +10.000s, before its unload check at +30.000s"))
    }

    @Test func anUnloadWhileAPortHoldsTheBackgroundIsCaught() {
        var run = Watched()
        run.tell(.backgroundFinished(incarnation: 1, [.connectNative]), at: 20_000)
        run.safari.loadedBackground?.lastPortActivity = -1_000_000
        run.tell(.timeReached(.idleUnload), at: 30_000)
        #expect(run.broke("though it held a port it used 10s before"))
    }

    @Test func aPopupThatClosesWithItsTabHoldsTheBackgroundNoMore() {
        var run = Watched()
        run.tell(.tabOpened(t1, url: url, nativeDark: false, window: nil), at: 0)
        run.tell(.popupOpened(t1), at: 0)
        run.tell(.eventDue(.popupOpened(t1)), at: 0)
        #expect(run.tell(.tabClosed(t1), at: 1_000).contains(.dispatch(.popupClosed)))
        #expect(run.tell(.timeReached(.idleUnload), at: 30_000) == [.killBackground(reason: "unloaded", stop: .unloaded)])
        #expect(run.broken == [], "the rules closed the popup's port with its tab too")
    }

    @Test func anUnloadWhileWebInspectorIsAttachedIsCaught() {
        var run = Watched()
        run.tell(.inspectorOpened, at: 5_000)
        run.safari.loadedBackground?.inspected = false
        run.tell(.timeReached(.idleUnload), at: 30_000)
        #expect(run.broke("though Web Inspector was attached to it"))
    }

    @Test func aCheckThatKeepsABackgroundNothingHoldsIsCaught() {
        var run = Watched()
        run.safari.loadedBackground?.inspected = true
        run.tell(.timeReached(.idleUnload), at: 30_000)
        #expect(run.broke("Safari's unload check at +30.000s kept background#1, though nothing held it"))
    }

    @Test func aCheckThatNeverRunsIsCaughtAsTimePasses() {
        var run = Watched()
        run.check(at: 30_000)
        #expect(run.broken == [], "due now, not yet missing")
        run.tell(.eventDue(.tabActivated(t1)), at: 45_000)
        #expect(run.broke("Safari's unload check of background#1, due at +30.000s, had not run by +45.000s"))
        // After the device slept, times are on Safari's clock, which the sleep did not move.
        var slept = Watched()
        slept.tell(.deviceSlept(60_000), at: 0)
        slept.check(at: 60_000 + 45_000)
        #expect(slept.broke("due at +30.000s on Safari's clock, had not run by +45.000s on Safari's clock"))
    }

    @Test func aKillWithNoCauseIsCaught() {
        var rules = SafariRules(platform: .macOS, epoch: 0)
        _ = rules.observe(.backgroundStarted(incarnation: 1), [], now: 0)
        let broken = rules.observe(.tabActivated(t1), [.killBackground(reason: "unloaded", stop: .unloaded)], now: 1_000)
        #expect(broken == ["Safari ended background#1 on tabActivated, which ends no background"])
        #expect(rules.observe(.backgroundKillRequested, [.killBackground(reason: "killed", stop: .killed)], now: 2_000) == [])
    }

    // MARK: - Alarms

    @Test func anAlarmFiredBeforeItsTimeIsCaught() {
        var run = Watched()
        run.tell(.backgroundFinished(incarnation: 1, [.setAlarm(at: 60_000)]), at: 0)
        run.idle(until: 59_000)
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 59_000)
        #expect(run.broke("alarm next-change fired at +59.000s, before +60.000s"))
    }

    @Test func anAlarmNotRaisedToTheMinimumIsCaught() {
        var run = Watched()
        run.safari.alarmMinimum = 1_000
        run.tell(.backgroundFinished(incarnation: 1, [.setAlarm(at: 5_000)]), at: 0)
        #expect(run.safari.nextAlarm?.at == 5_000)
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 5_000)
        #expect(run.broke("alarm next-change fired at +5.000s, before +30.000s"))
    }

    @Test func anAlarmThatSurvivesARestartIsCaught() {
        var run = Watched()
        run.tell(.backgroundFinished(incarnation: 1, [.setAlarm(at: 60_000)]), at: 0)
        let kept = run.safari.alarms
        run.tell(.safariQuit, at: 1_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 1_000)
        run.tell(.safariLaunched, at: 1_000)
        run.safari.alarms = kept
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 60_000)
        #expect(run.broke("alarm next-change fired in profile default, which has no such alarm"))
    }

    @Test func anAlarmThatDoesNotFireIsCaughtAsTimePasses() {
        var run = Watched()
        run.tell(.backgroundFinished(incarnation: 1, [.setAlarm(at: 60_000)]), at: 0)
        run.idle(until: 61_000)
        #expect(run.broken == [])
        run.check(at: 61_000)
        #expect(run.broke("alarm next-change, due at +60.000s, had not fired by +61.000s"))
    }

    // MARK: - Native requests

    private func request(_ number: Int) -> SafariMachine.Input {
        .nativeRequestDue(.init(incarnation: 1, request: number), .getSnapshot(known: nil), profile: "default")
    }

    @Test func aRequestAcceptedBeyondTheCapIsCaught() {
        var run = Watched(cap: 2)
        run.safari.nativeRequestCap = 3
        for number in 1...3 { run.tell(request(number), at: 0) }
        #expect(run.broke("Safari accepted native request 3 of background#1 with 2 in flight, the cap being 2"))
    }

    @Test func aRequestRefusedBelowTheCapIsCaught() {
        var run = Watched(cap: 2)
        run.safari.nativeRequestCap = 1
        for number in 1...2 { run.tell(request(number), at: 0) }
        #expect(run.broke("Safari refused native request 2 of background#1 with 1 in flight, below the cap of 2"))
        // A reply ends a request: the next one is below the cap again.
        var fair = Watched(cap: 1)
        fair.tell(request(1), at: 0)
        fair.tell(.replyArrived(.init(incarnation: 1, request: 1), .rejected(.handlerEnded)), at: 1)
        #expect(fair.tell(request(2), at: 2).contains { if case .startHandler = $0 { true } else { false } })
        #expect(fair.broken == [])
    }

    // MARK: - Listeners

    @Test func anEventHandedToABackgroundWithoutItsListenerIsCaught() {
        var run = Watched(listeners: [.message])
        run.safari.loadedBackground?.listeners.insert(.tabActivated)
        run.tell(.eventDue(.tabActivated(t1)), at: 1_000)
        #expect(run.broke("Safari handed tabActivated to background#1, which has no tabActivated listener"))
    }

    @Test func aWakeForAnEventTheExtensionDoesNotListenForIsCaught() {
        var run = Watched(listeners: [.message])
        run.tell(.backgroundUnloadRequested, at: 1_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 1_000)
        run.safari.sessionListeners["default"] = Set(BackgroundListener.builtIn)
        run.tell(.eventDue(.tabActivated(t1)), at: 2_000)
        #expect(run.broke("Safari woke a background for tabActivated, though its extension does not listen for tabActivated"))
    }

    /// A listener added after the load wakes the session's later backgrounds; Safari's launch
    /// knows only what it saved at a load's end. A machine that kept the late one across the
    /// launch is caught.
    @Test func aWakeForAListenerAddedAfterTheLastLoadBeforeALaunchIsCaught() {
        /// Safari quits with background `incarnation` loaded and launches again; its launch's
        /// background registers the message listener only and is unloaded.
        func relaunch(_ run: inout Watched, incarnation: Int, at time: EpochMillis) {
            run.tell(.safariQuit, at: time)
            run.tell(.backgroundDied(incarnation: incarnation, stop: .unloaded), at: time)
            run.tell(.safariLaunched, at: time + 1_000)
            run.tell(.backgroundStarted(incarnation: incarnation + 1), at: time + 1_000)
            run.tell(.backgroundFinished(incarnation: incarnation + 1, [.listen([.message])]), at: time + 1_000)
            run.tell(.backgroundUnloadRequested, at: time + 2_000)
            run.tell(.backgroundDied(incarnation: incarnation + 1, stop: .unloaded), at: time + 2_000)
        }
        var run = Watched(listeners: [.message])
        run.tell(.backgroundFinished(incarnation: 1, [.listen([.message, .tabActivated])]), at: 1_000)
        run.tell(.backgroundUnloadRequested, at: 2_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 2_000)
        run.tell(.eventDue(.tabActivated(t1)), at: 3_000)
        #expect(run.broken.isEmpty, "the late listener's type wakes the session's next background")
        run.tell(.backgroundStarted(incarnation: 2), at: 3_000)
        run.tell(.backgroundFinished(incarnation: 2, [.listen([.message])]), at: 3_000)
        relaunch(&run, incarnation: 2, at: 4_000)
        #expect(run.broken.isEmpty, "the second load's end saved tabActivated: \(run.broken)")
        run.tell(.eventDue(.tabActivated(t1)), at: 7_000)
        #expect(run.broken.isEmpty, "\(run.broken)")

        var later = Watched(listeners: [.message])
        later.tell(.backgroundFinished(incarnation: 1, [.listen([.message, .tabActivated])]), at: 1_000)
        relaunch(&later, incarnation: 1, at: 2_000)
        later.safari.sessionListeners["default"]?.insert(.tabActivated)
        later.tell(.eventDue(.tabActivated(t1)), at: 5_000)
        #expect(later.broke("Safari woke a background for tabActivated, though its extension does not listen for tabActivated"))
    }

    /// An event an earlier background of the session listened for starts the loaded one's unload
    /// timer again, though it has no listener and the event is lost: a machine that kept the
    /// old timer is caught when it unloads.
    @Test func anUnloadThatMissedALostEventOfAListenedTypeIsCaught() {
        var run = Watched(listeners: [.message, .tabActivated])
        run.tell(.backgroundUnloadRequested, at: 1_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 1_000)
        run.tell(.eventDue(.appearanceChanged(.dark)), at: 2_000)
        run.tell(.backgroundStarted(incarnation: 2), at: 2_000)
        run.tell(.backgroundFinished(incarnation: 2, [.listen([.message])]), at: 2_000)
        run.tell(.eventDue(.tabActivated(t1)), at: 20_000)
        #expect(run.broken.isEmpty && run.safari.unloadTime == 50_000)
        run.safari.loadedBackground?.unloadCheck = 32_000
        run.tell(.timeReached(.idleUnload), at: 32_000)
        #expect(run.broke("Safari unloaded background#2 at +32.000s, before its unload check at +50.000s"), "\(run.broken)")
    }

    /// Safari leaving the front on macOS tells the extension that no window has focus: a
    /// machine that stays silent, or that tells it on iOS, is caught.
    @Test func aFocusLossUntoldOnMacOSOrToldOnIOSIsCaught() {
        var mac = Watched(.macOS, listeners: [.windowFocus])
        mac.tell(.safariWentToBackground, at: 1_000)
        mac.tell(.safariCameToForeground, at: 2_000)
        #expect(mac.broken.isEmpty, "\(mac.broken)")
        mac.safari.safariInForeground = false
        mac.tell(.safariWentToBackground, at: 3_000)
        #expect(mac.broke("Safari left the front on macOS and did not tell the extension that no window has focus"))

        var ios = Watched(.iOS, listeners: [.windowFocus])
        ios.safari = SafariMachine(platform: .macOS)
        ios.tell(.safariWentToBackground, at: 1_000)
        #expect(ios.broke("Safari told the extension that no window has focus on safariWentToBackground on iOS"))
    }

    /// An update's load names the version it replaced: a machine that names none, or one that
    /// is not what the update before installed, is caught.
    @Test func anUpdateThatNamesTheWrongPreviousVersionIsCaught() {
        var run = Watched(.macOS, listeners: [.message])
        run.tell(.extensionUpdating, at: 1_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 1_000)
        run.tell(.extensionUpdated(version: "2.0"), at: 1_000)
        #expect(run.broken.isEmpty, "\(run.broken)")
        run.tell(.backgroundStarted(incarnation: 2), at: 1_000)
        run.tell(.extensionUpdating, at: 2_000)
        run.tell(.backgroundDied(incarnation: 2, stop: .unloaded), at: 2_000)
        run.safari.installedVersion = "1.5"
        run.tell(.extensionUpdated(version: "3.0"), at: 2_000)
        #expect(run.broke("naming previous version 1.5, though the last update replaced 2.0"))
    }

    /// With a load time, a background's scripts run only at a load's end: a machine that runs
    /// them as the load begins is caught.
    @Test func scriptsRunBeforeTheLoadEndsAreCaught() {
        var run = Watched(.macOS, listeners: [.message])
        run.safari.backgroundLoadTime = 250
        run.rules.backgroundLoadTime = 250
        run.tell(.backgroundUnloadRequested, at: 1_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 1_000)
        run.tell(.eventDue(.appearanceChanged(.dark)), at: 2_000)
        run.tell(.timeReached(.backgroundLoad), at: 2_250)
        #expect(run.broken.isEmpty, "\(run.broken)")
        run.tell(.backgroundStarted(incarnation: 2), at: 2_250)
        run.tell(.backgroundUnloadRequested, at: 3_000)
        run.tell(.backgroundDied(incarnation: 2, stop: .unloaded), at: 3_000)
        run.safari.backgroundLoadTime = 0
        run.tell(.eventDue(.appearanceChanged(.light)), at: 4_000)
        #expect(run.broke("Safari ran a background's scripts at +4.000s on eventDue, not at the end of a load of 250ms"))
    }

    // MARK: - iOS Safari's return

    /// A suspended iOS Safari with the unload check due at 30 s and the alarm at 60 s, back at 100 s.
    private func returning() -> Watched {
        var run = Watched(.iOS)
        run.tell(.backgroundFinished(incarnation: 1, [.setAlarm(at: 60_000)]), at: 0)
        run.tell(.safariWentToBackground, at: 1_000)
        run.check(at: 100_000)
        #expect(run.tell(.safariCameToForeground, at: 100_000).contains(.fireOverdueTimers))
        return run
    }

    @Test func aTimerThatRunsWhileSafarisTimersAreStoppedIsCaught() {
        var run = Watched(.iOS)
        run.tell(.safariWentToBackground, at: 1_000)
        run.tell(.timeReached(.idleUnload), at: 30_000)
        #expect(run.broke("Safari's unload check ran at +30.000s while Safari's timers were stopped (iOS Safari suspended)"))
        var frozen = Watched()
        frozen.tell(.backgroundFrozenByUser, at: 1_000)
        frozen.tell(.timeReached(.idleUnload), at: 30_000)
        #expect(frozen.broke("while Safari's timers were stopped (the background frozen)"))
    }

    @Test func overdueTimersFiredOutOfOrderAreCaught() {
        var run = returning()
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 100_000)
        run.tell(.timeReached(.idleUnload), at: 100_000)
        run.tell(.overdueTimersFired, at: 100_000)
        #expect(run.broken == ["on return, alarm next-change (due +60.000s) fired before the unload check, due earlier (+30.000s)",
                               "Safari unloaded background#1 at +100.000s, before its unload check at +130.000s"],
                "and the stale check then unloads the background the alarm woke")
    }

    @Test func anOverdueTimerThatDoesNotFireOnReturnIsCaught() {
        var run = returning()
        run.tell(.timeReached(.idleUnload), at: 100_000)
        run.tell(.backgroundDied(incarnation: 1, stop: .unloaded), at: 100_000)
        run.tell(.overdueTimersFired, at: 100_000)
        #expect(run.broke("on return, alarm next-change, due at +60.000s, did not fire"))
    }

    @Test func anOverdueAlarmFiredTwiceIsCaught() {
        var run = returning()
        run.tell(.timeReached(.idleUnload), at: 100_000)
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 100_000)
        run.safari.alarms[SafariMachine.decisionAlarm] = .init(at: 60_000, period: nil)
        run.tell(.timeReached(.alarm(SafariMachine.decisionAlarm)), at: 100_000)
        #expect(run.broke("which has no such alarm"))
    }

    // MARK: - In a run

    /// A run's Safari that raises alarms to a minimum other than the run's setting fails
    /// invariant 14 as the alarm fires, and the run says so in its trace.
    @Test func aRunWhoseSafariPlaysARuleWronglyBreaksInvariant14() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let simulation = Simulation(platform: .macOS, transport: .inProcess, seed: 1, epoch: 1_772_355_600_000,
                                    executables: ProcessExecutables(folder: ""), directory: folder)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(t1, url: url)
        simulation.settle()
        simulation.advance(by: 3_600_000)
        #expect(simulation.violations == [], "played rightly for an hour")
        simulation.safari.alarmMinimum = 1_000
        simulation.openPopup(on: t1)
        simulation.settle()
        simulation.popupPause(for: 5_000)
        simulation.advance(by: 60_000)
        #expect(simulation.violations.map(\.property) == [.invariant(14)])
        #expect(simulation.violations.first?.message.contains("before") == true)
        #expect(simulation.trace.lines.contains { $0.contains("check alarm next-change fired at") })
    }
}
