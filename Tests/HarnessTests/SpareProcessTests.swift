import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// On real processes, each role's next process waits ready, started with the arguments it will
/// get: it is taken when they match and numbered then; the run's end stops it.
struct SpareProcessTests {
    @Test func theNextProcessIsStartedAheadAndTakenOnlyWithItsArguments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spares-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var launcher = ProcessLauncher(transport: .process, executables: HarnessBinary.executables, containerDirectory: folder,
                                       disk: SimulatedDisk(), seed: 1, trace: Trace())
        let first = try launcher.start(.handler, storageDirectory: folder, storageFolder: "")
        let waiting = try #require(launcher.spare(of: .handler))
        #expect(first.child !== waiting && first.label == "handler#1")
        let second = try launcher.start(.handler, storageDirectory: folder, storageFolder: "")
        #expect(second.child === waiting && second.label == "handler#2", "the spare is taken and numbered when taken")
        // Started with other arguments (a reused handler), the spare is not taken.
        let spare = try #require(launcher.spare(of: .handler))
        launcher.handlerReuse = true
        let third = try launcher.start(.handler, storageDirectory: folder, storageFolder: "")
        #expect(third.child !== spare && third.label == "handler#3")
        let last = try #require(launcher.spare(of: .handler))
        launcher.stopSpares()
        #expect(launcher.spare(of: .handler) == nil)
        #expect(last.wait(timeoutMilliseconds: 10_000) == .signaled(SIGKILL))
        for driver in [first, second, third] { driver.kill(now: 0, reason: nil) }
    }
}
