import Foundation
@testable import ProcessKit
import Testing

/// The channel between the harness and a shell on one of its threads behaves as a pipe does.
struct MessageChannelTests {
    @Test func messagesArriveInOrderAndTheEndIsSeenAfterThem() {
        let channel = MessageChannel()
        #expect(channel.send(.proceed(now: 1)) && channel.send(.proceed(now: 2)))
        channel.closeInput()
        #expect(!channel.send(.proceed(now: 3)))
        #expect(channel.nextForShell() == .proceed(now: 1))
        #expect(channel.nextForShell() == .proceed(now: 2))
        #expect(channel.nextForShell() == nil)
        #expect(channel.sendFromShell(.done([])))
        channel.shellEnded()
        #expect(channel.receive(waitingUpTo: 0) == .message(.done([])))
        #expect(channel.receive(waitingUpTo: 0) == .ended)
    }

    @Test func aCloseDropsWhatWaitsBothWays() {
        let channel = MessageChannel()
        _ = channel.send(.proceed(now: 1))
        _ = channel.sendFromShell(.done([]))
        channel.close()
        #expect(channel.nextForShell() == nil)
        #expect(!channel.sendFromShell(.done([])))
        #expect(channel.receive(waitingUpTo: nil) == .ended)
    }

    @Test func aReceiveWaitsForTheShellOrTimesOut() async {
        let channel = MessageChannel()
        #expect(channel.receive(waitingUpTo: 20) == .timedOut)
        let shell = Thread {
            if channel.nextForShell() == .proceed(now: 5) { _ = channel.sendFromShell(.yield(.read, seq: 1)) }
        }
        shell.start()
        _ = channel.send(.proceed(now: 5))
        #expect(channel.receive(waitingUpTo: 10_000) == .message(.yield(.read, seq: 1)))
    }
}
