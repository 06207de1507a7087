import Foundation
import Testing

/// `harness conform`: the built-in processes pass every check of their role, and each planted
/// break of the protocol is reported by the check that should see it.
struct ConformTests {
    static func executable(_ name: String) -> String { HarnessBinary.directory + "/" + name }

    /// `tamper.js` stands between the harness and a built-in process and breaks the protocol
    /// one way.
    static let tamper = String(#filePath[..<(#filePath.lastIndex(of: "/") ?? #filePath.startIndex)]) + "/Fixtures/conform/tamper.js"

    /// Node, from the test's PATH (every machine of this project has it).
    static var node: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/node" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test(arguments: [("app", "AppProcess", "4 passed, 0 failed"), ("background", "ExtensionProcess", "1 passed, 0 failed"),
                      ("handler", "NativeHandler", "4 passed, 0 failed")])
    func theBuiltInProcessesPass(role: String, name: String, design: String) throws {
        let result = try HarnessBinary.run(["conform", "--\(role)-exec", Self.executable(name), "--design"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("the protocol's checks, for every process of the role:\n"), "\(result.stdout)")
        #expect(result.stdout.contains("  6 passed, 0 failed\nthe design's checks, for a process of this project's design:\n"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("  " + design + "\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("FAIL"))
    }

    /// A handler of another design keeps the protocol and writes nothing of the design's: it
    /// passes unless held to the design (`--design`), and its failure is said in the run's words,
    /// never in Swift's.
    @Test func aHandlerOfAnotherDesignPassesTheProtocolsChecks() throws {
        let node = try #require(Self.node, "node is on every machine of this project; it is not on PATH")
        let handler = String(#filePath[..<(#filePath.lastIndex(of: "/") ?? #filePath.startIndex)]) + "/Fixtures/conform/other-design.js"
        let plain = try HarnessBinary.run(["conform", "--handler-exec", node, "--handler-arg", handler])
        #expect(plain.status == 0, "\(plain.stdout)\(plain.stderr)")
        #expect(plain.stdout.contains("  6 passed, 0 failed\nthe design's checks, for a process of this project's design (another design may fail them: --design holds this one to them):\n"),
                "\(plain.stdout)")
        #expect(plain.stdout.contains("FAIL  writes values only where the input put them: a patch wrote nothing: it stopped at no write-temp (no yield point)\n"))
        let held = try HarnessBinary.run(["conform", "--handler-exec", node, "--handler-arg", handler, "--design"])
        #expect(held.status == 1)
        let copies = try HarnessBinary.run(["conform", "--handler-exec", Self.executable("NativeHandler"), "--flaw", "site-records-copy-defaults", "--design"])
        #expect(copies.status == 1 && copies.stdout.contains(
            "FAIL  writes values only where the input put them: after a patch a.example holds mode=auto theme=dark nativeDarkPolicy=respect, not theme=dark\n"),
                "\(copies.stdout)")
    }

    /// A check fails, with the detail that shows why.
    private func expectFailure(_ arguments: [String], _ check: String, _ detail: String) throws {
        let result = try HarnessBinary.run(["conform", "--design"] + arguments)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("FAIL  \(check): \(detail)"), "\(result.stdout)")
    }

    @Test func aHandlerThatWritesWithoutTheLockIsSeenWritingUnderAnotherOnesLock() throws {
        try expectFailure(["--handler-exec", Self.executable("NativeHandler"), "--flaw", "read-modify-write-without-lock"],
                          "writes nothing while another holds the lock", "the document changed while the lock was held by another process")
    }

    @Test func aHandlerThatKeepsTheLockAfterAFailureIsSeenHoldingItBetweenInputs() throws {
        try expectFailure(["--handler-exec", Self.executable("NativeHandler"), "--flaw", "lock-kept-after-a-failure"],
                          "holds no lock between inputs", "after a failed write the container's lock is still held")
    }

    @Test func aProcessThatSkipsAYieldPointIsSeen() throws {
        let node = try #require(Self.node, "node is on every machine of this project; it is not on PATH")
        try expectFailure(["--handler-exec", node, "--handler-arg", Self.tamper, "--handler-arg", "skip-yield", "--handler-arg", Self.executable("NativeHandler")],
                          "stops at the yield points in their order", "a patch: lock, read, write-temp, unlock: no rename between write-temp and unlock")
    }

    @Test func aProcessThatSendsAFrameAfterDoneIsSeen() throws {
        let node = try #require(Self.node, "node is on every machine of this project; it is not on PATH")
        try expectFailure(["--app-exec", node, "--app-arg", Self.tamper, "--app-arg", "frame-after-done", "--app-arg", Self.executable("AppProcess")],
                          "sends nothing after done", #"after the done of the launch it sent {"kind":"error","message":"a frame after done"}"#)
    }

    @Test func aProcessOfAnotherRoleFailsItsHelloAndNothingElseIsJudged() throws {
        let result = try HarnessBinary.run(["conform", "--app-exec", Self.executable("NativeHandler")])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  opens with its hello: the app executable \(Self.executable("NativeHandler")) says it plays the role 'handler'"),
                "\(result.stdout)")
        #expect(result.stdout.contains("  0 passed, 1 failed, 5 not reached: "))
        #expect(result.stdout.contains("  0 passed, 0 failed, 4 not reached: "))
    }

    @Test func exactlyOneExecutableIsChecked() throws {
        let none = try HarnessBinary.run(["conform"])
        #expect(none.status == 2 && none.stderr.contains("name exactly one executable to check"))
        let two = try HarnessBinary.run(["conform", "--app-exec", Self.executable("AppProcess"), "--handler-exec", Self.executable("NativeHandler")])
        #expect(two.status == 2)
    }
}
