import Foundation
@testable import HarnessCore
import ProcessKit
import Testing

/// A team's own native handler, built from its Swift sources: the App Group's defaults it
/// writes are the run's (its container), a build is cached by its inputs, and the principal
/// class is the one the sources' Info.plist names.
@Suite(.enabled(if: ExtensionRuntime.installedNode != nil, "node is not installed: the extension's JavaScript cannot run"))
struct TeamHandlerTests {
    static let handlers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/handlers").path
    /// The named scenarios' own handler and extension of another design than the built-in one.
    static let reading = ScenarioTests.folder + "/handlers/reading"
    static let extensions = ScenarioTests.folder + "/extensions"

    @Test func whatOneRequestSetsInTheAppGroupsDefaultsIsTheRunsAndTheNextRequestReadsIt() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("team-handlers-\(UUID().uuidString)").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-run-\(UUID().uuidString)").path
        defer { for path in [cache, folder] { try? FileManager.default.removeItem(atPath: path) } }
        let built = try TeamHandler.build([Self.reading], cacheFolder: cache)
        #expect(try TeamHandler.build([Self.reading], cacheFolder: cache) == built, "a second build of the same sources is the first")

        var executables = HarnessBinary.executables
        executables.handler = ProcessExecutables.Command(path: built)
        // A process for each request: the next request's process reads what the first one set.
        let text = "extension \(Self.extensions)/reading-defaults\nhandler fresh\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=sepia\n"
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "reading.scenario"), transport: .process, seed: 1, executables: executables,
                                         directory: folder).run()
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.trace.contains { $0.hasSuffix(#"handler#2 -> {"message":{"key":"theme","value":"sepia"},"type":"reply"}"#) }, "\(outcome.trace)")
        let defaults = folder + "/container/group.example.reading.plist"
        let stored = try #require(FileManager.default.contents(atPath: defaults), "UserDefaults(suiteName:) kept the group's defaults elsewhere")
        let plist = try PropertyListSerialization.propertyList(from: stored, format: nil) as? [String: Any]
        #expect(plist?["theme"] as? String == "sepia")
    }

    /// A handler that does not complete its request within its watchdog never answers: the
    /// request stays in flight, the trace says so, and its process is ended, which is no death
    /// of its own.
    @Test func aHandlerThatNeverCompletesIsShownHung() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("team-handlers-\(UUID().uuidString)").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-run-\(UUID().uuidString)").path
        defer { for path in [cache, folder] { try? FileManager.default.removeItem(atPath: path) } }
        var executables = HarnessBinary.executables
        executables.handler = ProcessExecutables.Command(path: try TeamHandler.build([Self.handlers + "/never-completes"], cacheFolder: cache),
                                                         arguments: ["--watchdog", "300"])
        let text = "extension \(Self.extensions)/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=gray\n"
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "hung.scenario"), transport: .process, seed: 1, executables: executables,
                                         directory: folder).run()
        #expect(outcome.trace.contains { $0.hasSuffix("handler#1 killed: it never completed its request (its reply never comes)") }, "\(outcome.trace)")
        #expect(!outcome.trace.contains { $0.contains("nativeReplyArrived") }, "no reply arrives")
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
    }

    /// A team's handler crashes before its write as its request arrives (it has no yield point
    /// to crash at); the steps only the built-in handler can take are mistakes, each with its line.
    @Test func theHandlersFaultsFitATeamsHandler() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("team-handlers-\(UUID().uuidString)").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-run-\(UUID().uuidString)").path
        defer { for path in [cache, folder] { try? FileManager.default.removeItem(atPath: path) } }
        var executables = HarnessBinary.executables
        executables.handler = ProcessExecutables.Command(path: try TeamHandler.build([Self.reading], cacheFolder: cache))
        executables.teamHandler = true
        let crashing = "extension \(Self.extensions)/reading-defaults\nhandler crashing before-write\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=gray\n"
        let outcome = try ScenarioRunner(try Scenario.parse(crashing, name: "crash.scenario"), transport: .process, seed: 1, executables: executables,
                                         directory: folder).run()
        #expect(outcome.trace.contains { $0.hasSuffix("handler#1 crashed as its request arrived") }, "\(outcome.trace)")
        #expect(outcome.trace.contains { $0.hasSuffix(#"background#1 <- {"rejected":"handlerEnded","request":1,"type":"nativeReplyArrived"}"#) })

        let refused = "tab open t1 https://docs.example.com/guide\nhandler garbage\nhold handler at rename\nsettle\n"
        #expect(throws: ScenarioErrors.self) {
            try ScenarioRunner(try Scenario.parse(refused, name: "s"), transport: .process, seed: 1, executables: executables, directory: folder).run()
        }
        do {
            _ = try ScenarioRunner(try Scenario.parse(refused, name: "s"), transport: .process, seed: 1, executables: executables, directory: folder).run()
        } catch {
            #expect(error.description == "s:2: 'handler garbage' needs the built-in handler: the team's handler answers in messages of its own\n"
                    + "s:3: the team's handler has no yield points (it runs its Swift as it ships), so nothing can stop it at rename", "\(error)")
        }
    }

    /// A request completed later, on the main queue, is answered; the profile's identifier is a
    /// UUID, the same for a profile in runs of one seed, and another for another seed.
    @Test func aRequestCompletedLaterIsAnsweredAndTheProfileIsAUUIDOfTheRun() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("team-handlers-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var executables = HarnessBinary.executables
        executables.handler = ProcessExecutables.Command(path: try TeamHandler.build([Self.handlers + "/later"], cacheFolder: cache))
        executables.teamHandler = true
        func profile(seed: UInt64) throws -> String {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-run-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let text = "extension \(Self.extensions)/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\n"
            let outcome = try ScenarioRunner(try Scenario.parse(text, name: "later.scenario"), transport: .process, seed: seed, executables: executables,
                                             directory: folder).run()
            let reply = try #require(outcome.trace.first { $0.contains("handler#1 -> ") }, "\(outcome.trace)")
            #expect(reply.contains(#""message":{"key":"theme","type":"setDefault","value":"sepia"}"#), "\(reply)")
            let id = try #require(reply.components(separatedBy: #""profile":""#).dropFirst().first?.prefix(36), "\(reply)")
            #expect(UUID(uuidString: String(id)) != nil, "\(reply)")
            return String(id)
        }
        let first = try profile(seed: 1)
        #expect(try profile(seed: 1) == first)
        #expect(try profile(seed: 2) != first)
    }

    /// `#if os(iOS)` and `#if os(macOS)` are false on Linux: each such line is a warning naming
    /// its file and line.
    @Test func aPlatformConditionIsAWarningWithItsPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handler-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "import Foundation\n\n#if os(iOS)\nlet platform = \"ios\"\n  #elseif os(macOS)\nlet platform = \"macos\"\n#else\nlet platform = \"linux\"\n#endif\n"
            .write(toFile: folder + "/Platform.swift", atomically: true, encoding: .utf8)
        #expect(TeamHandler.warnings([folder]) == [
            "\(folder)/Platform.swift:3: warning: '#if os(iOS)' is false on Linux, where the harness builds the handler: what it holds is left out",
            "\(folder)/Platform.swift:5: warning: '#elseif os(macOS)' is false on Linux, where the harness builds the handler: what it holds is left out",
        ])
        #expect(TeamHandler.warnings([Self.reading]).isEmpty)
    }

    @Test func thePrincipalClassIsTheOneTheInfoPlistNames() throws {
        #expect(TeamHandler.principalClass(inPlist: Self.reading + "/Info.plist") == "ReadingHandler")
        #expect(try TeamHandler.sources([Self.reading]).principalClass == "ReadingHandler")
        #expect(try TeamHandler.sources([Self.handlers + "/xcode-template/SafariWebExtensionHandler.swift"]).principalClass == nil)
        #expect(throws: TeamHandler.BuildError.self) { try TeamHandler.sources([Self.reading + "/Info.plist"]) }
    }
}
