import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// Runs the built `harness` executable, which `swift test` builds next to the test bundle.
enum HarnessBinary {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The build folder: `/proc/self/exe` is the test bundle, built beside the executables.
    static var directory: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    /// The built-in process executables beside the tests.
    static var executables: ProcessExecutables { ProcessExecutables(folder: directory) }

    static var path: String { directory + "/harness" }

    /// Runs a scenario's text in process, in a folder of its own removed afterwards, and gives
    /// its failures (each starts `NAME:LINE:`).
    static func failures(_ text: String, name: String, flaws: Set<Flaw> = [], powerCut: PowerCutPlan? = nil) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = try Scenario.parse(text, name: name)
        return try ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: executables, directory: folder,
                                  flaws: flaws, powerCut: powerCut).run().failures
    }

    /// Output goes to temporary files rather than pipes, so a large output cannot fill a pipe
    /// and block the child while the test waits for it.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> Output {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("harness-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out"), err = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// Writes `text` to a temporary file and returns its path; the caller removes it.
    static func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("harness-doc-\(UUID().uuidString).json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Sends one input frame to a long-running process of ours and returns the directives of its
    /// `done` frame, letting every yield point proceed.
    static func exchange(_ child: ChildProcess, _ input: JSONValue, now: EpochMillis) throws -> [JSONValue] {
        let role = try #require(child.role)
        try child.send(JSONWriter.compact(ToChild.input(try ChildInput.decode(input, role: role), now: now, uptime: 0, seed: 1, flaws: []).json))
        while let frame = try child.receive(timeoutMilliseconds: 10_000) {
            switch try FromChild.decode(frame, role: role) {
            case .yield:
                try child.send(JSONWriter.compact(ToChild.proceed(now: now).json))
            case .done(let directives, _):
                return directives.json
            case .error(let message):
                Issue.record("error frame: \(message)")
                return []
            case .hello:
                Issue.record("a second hello")
                return []
            case .log(let level, let message, _):
                Issue.record("a console line from a Swift process: \(level) \(message)")
            }
        }
        Issue.record("the process ended its output: \(child.stderrTail)")
        return []
    }
}
