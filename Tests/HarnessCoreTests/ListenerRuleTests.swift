import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Safari's listener rule on its own, in process: an event wakes an unloaded background only if
/// the background listens for it, and one that reaches a loaded background before its listener
/// exists is lost.
struct ListenerRuleTests {
    private func simulation() throws -> (Simulation, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("listeners-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (Simulation(platform: .iOS, transport: .inProcess, seed: 1, epoch: 1_772_355_600_000, executables: ProcessExecutables(folder: ""), directory: folder), folder)
    }

    @Test func anEventTheBackgroundDoesNotListenForWakesNothing() throws {
        let (simulation, folder) = try simulation()
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.settle()
        #expect(simulation.safari.savedListeners["default"] == Set(BackgroundListener.builtIn))
        simulation.unloadBackground()
        simulation.safari.sessionListeners["default"] = [.message]
        simulation.activateTab(TabID("t1"))
        simulation.settle()
        #expect(simulation.trace.lines.contains { $0.hasSuffix("safari tabActivated wakes nothing: the background does not listen for tabActivated") })
        // The tab's own message does wake it.
        #expect(simulation.backgroundIncarnation == 2 && simulation.backgroundState == .running)
        #expect(!simulation.trace.lines.contains { $0.contains("background#2 <- ") && $0.contains("\"tabActivated\"") })
    }

    @Test func anEventBeforeItsListenerIsLostAndReArmsNothing() throws {
        let (simulation, folder) = try simulation()
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.openTab(TabID("t2"), url: "https://docs.example.com/")
        simulation.settle()
        simulation.safari.loadedBackground?.listeners = [.message]
        simulation.advance(by: 20_000)
        simulation.closeTab(TabID("t1"))
        simulation.settle()
        #expect(simulation.trace.lines.contains { $0.hasSuffix("safari tabClosed lost: background#1 has no tabRemoved listener") })
        simulation.advance(by: 10_000)
        #expect(simulation.backgroundState == .unloaded, "the lost event re-armed no unload timer")
    }

    /// Invariant 6 is checked as time passes: a tab whose request was lost fails it the moment
    /// its native timeout has passed, not when the run ends.
    @Test func aTabLeftWithoutADecisionFailsInvariant6AtItsDeadline() throws {
        let (simulation, folder) = try simulation()
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.settle()
        simulation.safari.loadedBackground?.listeners = []
        simulation.reloadTab(TabID("t1"))
        simulation.settle()
        simulation.advance(by: 5_000)
        #expect(simulation.violations.isEmpty, "the deadline has not passed")
        simulation.advance(by: 60_000)
        #expect(simulation.violations.map(\.description) == ["tab t1 asked at +0.000s and had no decision 5 s later (invariant 6)"])
        #expect(simulation.trace.lines.contains("+5.001s check tab t1 asked at +0.000s and had no decision 5 s later (invariant 6)"))
    }

    /// A page's question waits for the background's load (`background-load-time`) before the
    /// background's native timeout starts: the bound of invariant 6 is both.
    @Test func aPagesWaitForItsDecisionIncludesTheBackgroundsLoad() throws {
        let (simulation, folder) = try simulation()
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.backgroundLoadTime = 250
        simulation.handlerBehaviour = .hung
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.advance(by: 6_000)
        #expect(simulation.violations.isEmpty, "answered from the defaults at +5.250s: \(simulation.violations)")
        let decidedAt: EpochMillis? = simulation.safari.tabs[TabID("t1")]?.decidedAt
        #expect(decidedAt == 1_772_355_605_250)
        // A background that never answers fails it once the bound has passed.
        simulation.safari.loadedBackground?.listeners = []
        simulation.reloadTab(TabID("t1"))
        simulation.advance(by: 10_000)
        #expect(simulation.violations.map(\.description) == ["tab t1 asked at +6.000s and had no decision 5.25 s later (invariant 6)"])
    }
}
