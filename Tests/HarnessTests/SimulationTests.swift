import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Lifecycle transitions with all three real processes, the simulation playing Safari, the OS
/// and the user.
@Suite(.serialized)
struct SimulationTests {
    /// 2026-07-13T19:59:00Z
    static let epoch: EpochMillis = 1_783_972_740_000

    static let transports: [Simulation.Transport] = [.process, .inProcess]

    private func simulation(_ platform: Simulation.Platform, _ transport: Simulation.Transport, shared: SettingsDocument?) throws -> (Simulation, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simulation-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let simulation = Simulation(platform: platform, transport: transport, seed: 42, epoch: Self.epoch,
                                    executables: HarnessBinary.executables, directory: folder)
        if let shared { simulation.writeContainerFile("settings.json", DocumentCodec.encode(shared)) }
        return (simulation, folder)
    }

    private func sharedDocument(_ simulation: Simulation) throws -> SettingsDocument {
        try DocumentCodec.decode(try #require(simulation.files.containerFile("settings.json"))).document
    }

    private static let base: SettingsDocument = {
        var document = SettingsDocument(documentId: "DOC-1", revision: 3)
        document.defaults.mode = .on
        document.defaults.theme = .gray
        return document
    }()

    private func theme(_ simulation: Simulation, _ tab: String) -> JSONValue? {
        simulation.tabs[TabID(tab)]?.applied?.json.objectValue?["theme"]
    }

    @Test(arguments: transports)
    func anAppChangeWhileSafariIsAwayReachesTheOpenTabWhenSafariReturns(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        #expect(theme(simulation, "t1") == .string("gray"))

        simulation.appEdit(.setDefaults(DefaultsValues(theme: .dark)))
        simulation.settle()
        #expect(!simulation.safariInForeground)
        #expect({ if case .editSaved? = simulation.edits.lastAppAnswer { true } else { false } }(), "\(String(describing: simulation.edits.lastAppAnswer))")
        #expect(theme(simulation, "t1") == .string("gray"), "iOS gives the app no way to reach the extension")

        simulation.safariForeground()
        simulation.settle()
        #expect(theme(simulation, "t1") == .string("dark"))
    }

    @Test(arguments: transports)
    func aPopupChangeReachesTheDocumentAndTheAppShowsItOnItsNextForeground(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.launchApp()
        simulation.settle()
        simulation.safariForeground()
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.openPopup(on: TabID("t1"))
        simulation.popupEdit(set: SiteValues(theme: .sepia))
        simulation.settle()
        #expect(theme(simulation, "t1") == .string("sepia"))
        #expect(try sharedDocument(simulation).sites[try ScopeKey.parse("docs.example.com")]?.values.theme == .sepia)
        #expect(simulation.appView?.sites == [], "the suspended app has not seen it yet")

        simulation.appForeground()
        simulation.settle()
        let sites = try #require(simulation.appView?.sites, "no app view")
        #expect(sites.first?.key.text == "docs.example.com")
        #expect(sites.first?.overrides == SiteValues(theme: .sepia))
    }

    @Test(arguments: transports)
    func aPatchWaitingWhenTheBackgroundIsUnloadedReachesTheDocumentOnceAfterTheWake(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.openPopup(on: TabID("t1"))
        simulation.popupEdit(set: SiteValues(mode: .off))
        // Run until the patch is about to go to the handler, then unload the background.
        simulation.settle(stopBefore: .nativeRequest)
        simulation.unloadBackground()
        simulation.settle()
        let afterFirst = try sharedDocument(simulation)
        #expect(afterFirst.sites[try ScopeKey.parse("docs.example.com")]?.values.mode == .off)

        // The next wake resends the outbox: the handler sees the same patch again.
        simulation.advance(by: 40_000)
        simulation.activateTab(TabID("t1"))
        simulation.settle()
        let afterWake = try sharedDocument(simulation)
        #expect(afterWake.revision == afterFirst.revision, "the resent patch is not applied twice")
        #expect(afterWake.revision == Self.base.revision + 1)
        #expect(theme(simulation, "t1") == .string("gray"))
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["enabled"] == .bool(false))
        let stored = try JSONParser.parse(try #require(simulation.files.storageFile("local.json", profile: simulation.profile)))
        #expect(LocalStorage.decode(stored)?.outbox.isEmpty == true)
    }

    @Test(arguments: transports)
    func aScheduleBoundaryAndAPauseExpiryChangeAnOpenTabAcrossAnUnload(transport: Simulation.Transport) throws {
        var scheduled = Self.base
        scheduled.defaults.mode = .scheduled
        // iOS: no native port holds the background (on macOS it would live 2 minutes).
        let (simulation, folder) = try simulation(.iOS, transport, shared: scheduled)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["reason"] == .string("scheduleInactive"))
        // 20:00 comes 60 s later; the idle background is unloaded after 30 s; the alarm wakes it.
        simulation.advance(by: 61_000)
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["reason"] == .string("scheduleActive"))
        #expect(simulation.trace.lines.contains { $0.contains("background#1 unloaded") })

        simulation.openPopup(on: TabID("t1"))
        simulation.popupPause(for: 120_000)
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["reason"] == .string("paused"))
        simulation.advance(by: 121_000)
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["reason"] == .string("scheduleActive"))
    }

    /// macOS: the app's message reaches the background with no foreground event, and the new
    /// decision reaches the visible tab of every window.
    @Test(arguments: transports)
    func onMacOSAnAppChangeReachesTheVisibleTabsOfEveryWindow(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide", window: 1)
        simulation.openTab(TabID("t2"), url: "https://a.example.org/", window: 2)
        simulation.settle()
        #expect(simulation.visibleTabs == [TabID("t1"), TabID("t2")])
        simulation.launchApp()
        simulation.appEdit(.setDefaults(DefaultsValues(theme: .invert)))
        simulation.settle()
        #expect(simulation.safariInForeground)
        #expect(theme(simulation, "t1") == .string("invert"))
        #expect(theme(simulation, "t2") == .string("invert"))
        #expect(!simulation.trace.lines.contains { $0.contains("safariCameToForeground") })
    }

    @Test(arguments: transports)
    func aBackgroundWithACacheAnswersBeforeAnyNativeReplyThenTheSnapshotCorrectsIt(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        var stale = Self.base
        stale.defaults.theme = .sepia
        stale.revision = 2
        simulation.writeStorageFile("local.json", JSONWriter.compact(LocalStorage(cache: stale, snapshotVersion: stale.version).json))
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle(stopBefore: .nativeReply)
        #expect(theme(simulation, "t1") == .string("sepia"))
        #expect(simulation.tabs[TabID("t1")]?.nativeRepliesBeforeFirstDecision == 0)
        simulation.settle()
        #expect(theme(simulation, "t1") == .string("gray"))
    }

    @Test(arguments: transports)
    func aTabWhoseAnswerWasLostWithAnUnloadedBackgroundGetsOneAfterTheWake(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        // No cache: the background waits for the snapshot; it is unloaded before it arrives.
        simulation.settle(stopBefore: .nativeRequest)
        #expect(simulation.tabs[TabID("t1")]?.applied == nil)
        simulation.unloadBackground()
        simulation.settle()
        #expect(theme(simulation, "t1") == .string("gray"))
        #expect(simulation.trace.lines.contains { $0.contains("safari tab t1 asks again") })
        #expect(simulation.trace.lines.contains { $0.contains("background#2 <-") })
    }

    @Test(arguments: transports)
    func aNativeDarkSignalDetectedAfterTheFirstDecisionTurnsThePageOffUnderRespect(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["enabled"] == .bool(true))
        simulation.setNativeDark(TabID("t1"), true)
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["reason"] == .string("nativeDark"))
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["enabled"] == .bool(false))
    }

    @Test(arguments: transports)
    func aHandlerCrashAtRenameLosesNothingAcknowledged(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.processes.crash(.handler, at: .rename)
        simulation.openPopup(on: TabID("t1"))
        simulation.popupEdit(set: SiteValues(mode: .off))
        simulation.settle()
        #expect(try sharedDocument(simulation) == Self.base, "the crash came before the rename")
        #expect(simulation.trace.lines.contains { $0.hasSuffix("killed at rename") })
        simulation.safariForeground()
        simulation.settle()
        #expect(try sharedDocument(simulation).sites[try ScopeKey.parse("docs.example.com")]?.values.mode == .off)
    }

    @Test(arguments: transports)
    func aFrozenBackgroundTakesNothingUntilItThaws(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.freezeBackground()
        simulation.setNativeDark(TabID("t1"), true)
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["enabled"] == .bool(true))
        simulation.advance(by: 60_000)
        #expect(!simulation.trace.lines.contains { $0.contains("background#1 unloaded") }, "a frozen background's idle clock stops")
        simulation.thawBackground()
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied?.json.objectValue?["reason"] == .string("nativeDark"))
    }

    @Test(arguments: transports)
    func aHungHandlerLeavesTabsOnTheCacheAndTheNextReconciliationRecovers(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        var stale = Self.base
        stale.defaults.theme = .sepia
        stale.revision = 2
        simulation.writeStorageFile("local.json", JSONWriter.compact(LocalStorage(cache: stale, snapshotVersion: stale.version).json))
        simulation.handlerBehaviour = .hung
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.advance(by: 6_000)
        #expect(theme(simulation, "t1") == .string("sepia"), "still on the cache")
        simulation.handlerBehaviour = .healthy
        simulation.activateTab(TabID("t1"))
        simulation.settle()
        #expect(theme(simulation, "t1") == .string("gray"))
    }

    @Test(arguments: transports)
    func aSlowHandlersReplyArrivesLater(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.handlerBehaviour = .slow(2_000)
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        #expect(simulation.tabs[TabID("t1")]?.applied == nil, "no cache: the tab waits for the snapshot")
        simulation.advance(by: 2_500)
        #expect(theme(simulation, "t1") == .string("gray"))
    }

    /// A run mixing tabs, the popup, the app, unloads, time and a lock contention.
    private func mixedRun(_ transport: Simulation.Transport, hiding hidden: YieldPoint? = nil) throws -> [String] {
        let (simulation, folder) = try simulation(.macOS, transport, shared: nil)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.processes.hiddenYield = hidden
        simulation.launchApp()
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.openTab(TabID("t2"), url: "https://a.example.org/")
        simulation.settle()
        simulation.openPopup(on: TabID("t2"))
        simulation.processes.hold(.handler, at: .rename)
        simulation.popupEdit(set: SiteValues(theme: .sepia))
        simulation.settle()
        simulation.appEdit(.setDefaults(DefaultsValues(mode: .on)))
        simulation.settle()
        simulation.processes.release(.handler)
        simulation.settle()
        simulation.advance(by: 45_000)
        simulation.activateTab(TabID("t1"))
        simulation.popupPause(for: 10_000)
        simulation.advance(by: 11_000)
        simulation.settle()
        return simulation.trace.lines
    }

    @Test(arguments: transports)
    func theSameRunGivesTheSameTraceTwice(transport: Simulation.Transport) throws {
        let first = try mixedRun(transport), second = try mixedRun(transport)
        #expect(first.count > 40)
        #expect(first == second)
        #expect(!first.contains { $0.contains("/tmp/") || $0.contains("harness-") })
    }

    @Test(arguments: transports)
    func everyNativeRequestStartsItsOwnHandler(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.openPopup(on: TabID("t1"))
        simulation.popupEdit(set: SiteValues(mode: .off))
        simulation.activateTab(TabID("t1"))
        simulation.settle()
        let requests = simulation.trace.lines.filter { $0.contains("\"type\":\"sendNative\"") }.count
        let handlers = Set(simulation.trace.lines.compactMap { $0.split(separator: " ").dropFirst().first.flatMap { $0.hasPrefix("handler#") ? String($0) : nil } })
        #expect(requests >= 3)
        #expect(simulation.processes.handlerSpawns == requests)
        #expect(handlers.count == requests)
    }

    /// The page asks again after its pauses, and stops after its fourth empty answer in a row.
    @Test func aBackgroundThatKeepsDyingAtStartDoesNotMakeTheRunLoop() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simulation-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var executables = HarnessBinary.executables
        let node = try #require(ConformTests.node, "node is on every machine of this project; it is not on PATH")
        executables.background = ProcessExecutables.Command(path: node, arguments: [RunCommandTests.diesAfterHello, "background", "1"])
        let simulation = Simulation(platform: .iOS, seed: 1, epoch: Self.epoch, executables: executables, directory: folder)
        defer { simulation.teardown() }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.advance(by: 3_000)
        #expect(simulation.trace.lines.contains { $0.hasSuffix("safari tab t1 stops asking: its question came back empty 4 times in a row") })
        #expect(simulation.trace.lines.filter { $0.contains("died unexpectedly") }.count == ContentScriptMachine.asksAfterEmptyAnswers + 1)
    }

    @Test func bothTransportsGiveTheSameTrace() throws {
        let real = try mixedRun(.process), simulated = try mixedRun(.inProcess)
        #expect(real == simulated)
        if let index = zip(real, simulated).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at line \(index): \(real[index]) | \(simulated[index])")
        }
    }

    /// The equality check notices a single yield point missing from one transport.
    @Test(arguments: [YieldPoint.rename, .storageRead])
    func theTransportCheckNoticesOneMissingYieldPoint(point: YieldPoint) throws {
        let real = try mixedRun(.process), simulated = try mixedRun(.inProcess, hiding: point)
        #expect(real != simulated)
        #expect(real.filter { $0.hasSuffix("yield \(point.rawValue)") }.count > simulated.filter { $0.hasSuffix("yield \(point.rawValue)") }.count)
    }

    /// Both orders: the handler's merge held at its rename while the app saves, and the app's
    /// save held at its rename while the handler merges. The second writer waits for the lock.
    @Test(arguments: [ProcessName.handler, .app], transports)
    func anAppSaveAndAHandlerMergeInterleavedAtTheLockLoseNeitherChange(heldFirst: ProcessName, transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.macOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.launchApp()
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.processes.hold(heldFirst, at: .rename)
        let popupChange = {
            simulation.openPopup(on: TabID("t1"))
            simulation.popupEdit(set: SiteValues(mode: .off))
            simulation.settle()
        }
        let appChange = {
            simulation.appEdit(.setDefaults(DefaultsValues(theme: .dark)))
            simulation.settle()
        }
        if heldFirst == .handler { popupChange() } else { appChange() }
        #expect(simulation.processes.waiting.count == 1 && simulation.processes.waiting[0].hasSuffix("@rename"), "\(simulation.processes.waiting)")
        if heldFirst == .handler { appChange() } else { popupChange() }
        #expect(simulation.processes.waiting.count == 2 && simulation.processes.waiting[1].hasSuffix("@lock"), "the second writer waits for the lock: \(simulation.processes.waiting)")

        simulation.processes.release(heldFirst)
        simulation.settle()
        #expect(simulation.processes.waiting.isEmpty)
        #expect(simulation.processes.lockHolder == nil)
        let document = try sharedDocument(simulation)
        #expect(document.sites[try ScopeKey.parse("docs.example.com")]?.values.mode == .off)
        #expect(document.defaults.theme == .dark)
        #expect(document.revision == Self.base.revision + 2)
    }

    /// A reply reaches only the incarnation that asked: one addressed to a background that was
    /// unloaded meanwhile is dropped, and the new incarnation gets its own.
    @Test(arguments: transports)
    func aReplyForAnEarlierIncarnationIsDroppedAndTheNewOneGetsItsOwn(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.handlerBehaviour = .slow(2_000)
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.unloadBackground()
        simulation.reloadTab(TabID("t1"))
        simulation.settle()
        #expect(simulation.backgroundIncarnation == 2)
        simulation.advance(by: 2_000)
        let dropped = simulation.trace.lines.filter { $0.hasSuffix("safari dropped reply for background#1") }
        #expect(dropped.count == 1, "\(simulation.trace.lines.suffix(12))")
        #expect(simulation.trace.lines.contains { $0.contains("background#2 <- ") && $0.contains("\"nativeReplyArrived\"") })
        #expect(!simulation.trace.lines.contains { $0.contains("background#1 <- ") && $0.contains("\"nativeReplyArrived\"") })
        #expect(theme(simulation, "t1") == .string("gray"))
    }

    /// Safari refuses a native request at once while 150 are in flight (a hung handler's stay
    /// in flight for good): no handler starts, and the background hears the refusal at once.
    @Test func aNativeRequestBeyond150InFlightIsRefusedAtOnce() throws {
        let (simulation, folder) = try simulation(.macOS, .inProcess, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.handlerBehaviour = .hung
        for _ in 1...SafariMachine.maximumActiveNativeRequests { simulation.legacyMessage(.getEnabled) }
        #expect(simulation.processes.handlerSpawns == 150)
        #expect(!simulation.trace.lines.contains { $0.contains("refused a native request") })
        simulation.legacyMessage(.getEnabled)
        #expect(simulation.processes.handlerSpawns == 150)
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        #expect(simulation.processes.handlerSpawns == 150, "the snapshot request is refused too")
        let refusals = simulation.trace.lines.filter { $0.hasSuffix("safari refused a native request: 150 in flight") }
        #expect(refusals.count == 2)
        #expect(simulation.trace.lines.contains { $0.contains("background#1 <- ") && $0.contains("\"rejected\":\"tooManyRequests\"") })
        simulation.safariRestart()
        simulation.handlerBehaviour = .healthy
        simulation.settle()
        #expect(simulation.processes.handlerSpawns == 151, "requests end with Safari")
    }

    /// One native extension serves every profile: each request carries the profile it came
    /// from, over the one shared container.
    @Test(arguments: transports)
    func everyNativeRequestNamesTheProfileItCameFrom(transport: Simulation.Transport) throws {
        let (simulation, folder) = try simulation(.iOS, transport, shared: Self.base)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        simulation.switchProfile("work")
        simulation.openTab(TabID("w1"), url: "https://docs.example.com/guide")
        simulation.settle()
        let requests = simulation.trace.lines.filter { $0.contains(" handler#") && $0.contains("\"type\":\"requestArrived\"") }
        #expect(requests.count == 2)
        #expect(requests.first?.contains("\"profile\":\"default\"") == true && requests.last?.contains("\"profile\":\"work\"") == true, "\(requests)")
        #expect(theme(simulation, "w1") == .string("gray"), "the work profile reads the same document")
    }
}
