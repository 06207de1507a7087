import Foundation
import Testing

/// `harness run` as a user runs it: the table, and the exit status.
@Suite(.serialized)
struct RunCommandTests {
    private func scenario(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).scenario").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func passingScenariosExitZeroWithAResultLineEach() throws {
        let path = try scenario("# Passes.\nshared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 enabled theme=gray\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path, "--transport", "in-process"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("pass  \(path)  4 steps"))
        #expect(result.stdout.contains("1 passed, 0 failed"))
    }

    @Test func aFailedExpectationExitsOneAndShowsExpectedAndActual() throws {
        let path = try scenario("shared defaults mode=on theme=gray\ntab open t1 https://a.example/\nsettle\nexpect tab t1 theme=dark\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  \(path)"))
        #expect(result.stdout.contains("tab t1 theme: expected \"dark\", got \"gray\""))
    }

    @Test func aScenarioSyntaxErrorExitsTwoNamingFileAndLine() throws {
        let path = try scenario("tab open t1 https://a.example/\ntab actvate t1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["run", path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(path):2: unknown word 'actvate'"))
        #expect(result.stderr.contains("did you mean 'activate'?"))
    }
}
