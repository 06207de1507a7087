@testable import HarnessCore
import ProcessKit
import Testing

/// A stepped shell that has served its one input, as a handler after its reply.
private struct Served: SteppedProcess {
    mutating func take(_ message: ToChild) -> FromChild { .error("served") }
    var ended: Bool { true }
}

/// What the trace says of a process follows what the harness did and saw, never the moment
/// the operating system (or a thread) happened to end it: the same run gives the same lines.
extension ProcessDriverTests {
    private static func ended(_ transport: String) throws -> FrameEndpoint {
        let endpoint: FrameEndpoint = transport == "process"
            ? try ChildProcess(executable: "/bin/true", arguments: [])
            : SteppedChild(Served(), role: .handler)
        #expect(endpoint.wait(timeoutMilliseconds: 10_000) == .exited(0))
        return endpoint
    }

    /// A handler that has sent its reply may already have exited when the harness kills it
    /// (a crash before its reply leaves): the kill is in the trace all the same, once.
    @Test(arguments: ["process", "in-process"])
    func aKillIsTracedEvenWhenTheProcessHadAlreadyEnded(transport: String) throws {
        let trace = Trace()
        let driver = ProcessDriver(name: .handler, incarnation: 4, endpoint: try Self.ended(transport), seed: 1, trace: trace)
        #expect(driver.isAlive)
        driver.kill(now: 7, reason: "crashed before replying")
        driver.kill(now: 8, reason: "teardown")
        #expect(!driver.isAlive)
        #expect(trace.lines == ["7 handler#4 crashed before replying"])
    }

    /// A process the harness has finished is over for the run: killing it again says nothing.
    @Test(arguments: ["process", "in-process"])
    func aFinishedProcessIsNotKilledAgainInTheTrace(transport: String) throws {
        let trace = Trace()
        let driver = ProcessDriver(name: .handler, incarnation: 1, endpoint: try Self.ended(transport), seed: 1, trace: trace)
        #expect(driver.finish() == .exited(0))
        driver.kill(now: 7, reason: "teardown")
        #expect(trace.lines.isEmpty)
    }
}

/// A stepped shell that answers every input with the same frame.
private struct Answering: SteppedProcess {
    let answer: FromChild
    mutating func take(_ message: ToChild) -> FromChild { answer }
    var ended: Bool { false }
}

/// In process, a frame over the reader's limit is refused as the pipe's reader refuses it.
@Test func aSteppedAnswerOverTheLimitIsRefused() throws {
    let reply = NativeReply.error(.invalidMessage, String(repeating: "x", count: 300))
    let answer = FromChild.done(.handler([.reply(reply)]))
    let child = SteppedChild(Answering(answer: answer), role: .handler, limit: 200)
    try child.sendMessage(.input(.handler(.requestArrived(.object([:]))), now: 0, uptime: 0, seed: 0, flaws: []), timeoutMilliseconds: nil)
    #expect(throws: FrameError.self) { try child.receiveMessage(timeoutMilliseconds: nil) }
    let roomy = SteppedChild(Answering(answer: answer), role: .handler, limit: 1_000)
    try roomy.sendMessage(.input(.handler(.requestArrived(.object([:]))), now: 0, uptime: 0, seed: 0, flaws: []), timeoutMilliseconds: nil)
    #expect(try roomy.receiveMessage(timeoutMilliseconds: nil) == .message(answer))
}
