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
        let text = "extension \(Self.extensions)/reading-defaults\ntab open t1 https://docs.example.com/guide\nsettle\nexpect tab t1 theme=sepia\n"
        let outcome = try ScenarioRunner(try Scenario.parse(text, name: "reading.scenario"), transport: .process, seed: 1, executables: executables,
                                         directory: folder).run()
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.trace.contains { $0.hasSuffix(#"handler#2 -> {"message":{"key":"theme","value":"sepia"},"type":"reply"}"#) }, "\(outcome.trace)")
        let defaults = folder + "/container/group.example.reading.plist"
        let stored = try #require(FileManager.default.contents(atPath: defaults), "UserDefaults(suiteName:) kept the group's defaults elsewhere")
        let plist = try PropertyListSerialization.propertyList(from: stored, format: nil) as? [String: Any]
        #expect(plist?["theme"] as? String == "sepia")
    }

    @Test func thePrincipalClassIsTheOneTheInfoPlistNames() throws {
        #expect(TeamHandler.principalClass(inPlist: Self.reading + "/Info.plist") == "ReadingHandler")
        #expect(try TeamHandler.sources([Self.reading]).principalClass == "ReadingHandler")
        #expect(try TeamHandler.sources([Self.handlers + "/xcode-template/SafariWebExtensionHandler.swift"]).principalClass == nil)
        #expect(throws: TeamHandler.BuildError.self) { try TeamHandler.sources([Self.reading + "/Info.plist"]) }
    }
}
