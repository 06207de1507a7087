import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Every input carries Safari's monotonic time beside the wall clock: they move apart only while
/// the device sleeps.
struct UptimeTests {
    /// A shell that keeps what it is sent.
    private final class Sent { var messages: [ToChild] = [] }
    private struct Recording: SteppedProcess {
        let sent: Sent
        mutating func take(_ message: ToChild) -> FromChild {
            sent.messages.append(message)
            return .done(.handler([]))
        }
        var ended: Bool { false }
    }

    @Test func anInputFrameCarriesTheUptimeItsDriverIsGiven() {
        let sent = Sent()
        let driver = ProcessDriver(name: .handler, incarnation: 1, endpoint: SteppedChild(Recording(sent: sent), role: .handler), seed: 3, trace: Trace())
        driver.uptime = { $0 - 1_000 }
        _ = driver.begin(.handler(.requestArrived(.object([:]))), now: 5_000)
        #expect(sent.messages == [.input(.handler(.requestArrived(.object([:]))), now: 5_000, uptime: 4_000, seed: 3, flaws: [])])
    }

    @Test func theRunsProcessesAreGivenTimeSinceTheStartLessTheDevicesSleep() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uptime-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let epoch: EpochMillis = 1_772_355_600_000
        let simulation = Simulation(platform: .macOS, transport: .inProcess, seed: 1, epoch: epoch, executables: ProcessExecutables(folder: ""), directory: folder)
        defer { simulation.teardown(); try? FileManager.default.removeItem(atPath: folder) }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/")
        simulation.settle()
        simulation.advance(by: 20_000)
        simulation.sleepDevice(for: 3_600_000)
        simulation.advance(by: 5_000)
        let background = try #require(simulation.processes.background)
        #expect(simulation.now == epoch + 20_000 + 3_600_000 + 5_000)
        #expect(background.uptime(simulation.now) == 25_000)
    }
}
