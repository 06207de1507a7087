import Foundation
import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Where `node` is, if it is installed.
private let installedNode = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// The JavaScript runtime as a run's background on the process transport: started by the
/// harness's launcher like any background executable, its console in the run's trace. It takes
/// only its load and its timers so far; any other input is refused with a clear error that
/// fails the run.
@Suite(.enabled(if: installedNode != nil, "node is not installed: the JavaScript runtime cannot be run"))
struct JavaScriptBackgroundTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HarnessCoreTests/Fixtures/extensions").path

    @Test func aJavaScriptBackgroundsConsoleReachesTheTraceAndAnInputItCannotTakeFailsTheRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("javascript-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var executables = HarnessBinary.executables
        executables.background = ExtensionRuntime.background(node: try #require(installedNode), runtime: try ExtensionRuntime.install(in: folder),
                                                             extension: Self.fixtures + "/runtime-module")
        let simulation = Simulation(platform: .iOS, transport: .process, seed: 1, epoch: 1_772_355_600_000, executables: executables,
                                    directory: folder + "/run")
        defer { simulation.teardown() }
        simulation.openTab(TabID("t1"), url: "https://docs.example.com/guide")
        simulation.settle()
        let lines = simulation.trace.lines
        #expect(lines.contains { $0.hasSuffix("background#1 console.log loaded 42") }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(#"background#1 -> {"events":["alarm","message"],"type":"listen"}"#) }, "\(lines)")
        #expect(simulation.violations.map(\.message).contains {
            $0.contains("could not read what the harness sent: invalid input: type: the JavaScript runtime does not take 'tabRequestedDecision' yet")
        }, "\(simulation.violations)")
    }
}
