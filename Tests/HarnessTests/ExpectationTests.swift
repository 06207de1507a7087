import Foundation
@testable import HarnessCore
import Testing

/// The expectations that say what the background, the app and the container are doing: each
/// holds when it should and fails, naming expected and actual, when it should not.
struct ExpectationTests {
    /// A run that passes only if every expectation in it holds.
    static let lifecycle = """
        # The background's states, an undecided tab, the app's answers and defaults.
        platform ios
        shared defaults mode=on theme=gray
        handler slow 2s
        expect background unloaded incarnation=0
        tab open t1 https://a.example/
        expect tab t1 undecided
        expect background running incarnation=1
        advance 2s
        expect tab t1 enabled theme=gray
        handler healthy
        background kill
        expect background killed incarnation=1
        tab reload t1
        expect background running incarnation=2
        background freeze
        expect background frozen
        background thaw
        advance 1m
        expect background unloaded incarnation=2
        app launch
        app set default theme=dark
        expect app answer saved
        expect app defaults theme=dark mode=on
        fail app at write-temp with ENOSPC
        app set default theme=sepia
        expect app answer refused
        hold app at rename
        app set default theme=invert
        expect app answer none
        app kill
        expect app answer none
        expect shared damaged 0
        """

    private func failures(_ text: String) throws -> [String] { try HarnessBinary.failures(text, name: "e") }

    @Test func eachHoldsWhereItShould() throws {
        #expect(try failures(Self.lifecycle) == [])
    }

    /// The same run with one expectation changed after the line that follows it: the change
    /// must be the only failure, with this message.
    @Test(arguments: [
        ("expect tab t1 enabled theme=gray", "expect tab t1 undecided", "tab t1: expected no decision yet, got {\"enabled\":true"),
        ("expect background unloaded incarnation=0", "expect background running", "the background: expected running, got unloaded"),
        ("expect background killed incarnation=1", "expect background unloaded", "the background: expected unloaded, got killed"),
        ("expect background running incarnation=2", "expect background incarnation=1", "the background's incarnation: expected 1, got 2"),
        ("expect background frozen", "expect background running", "the background: expected running, got frozen"),
        ("expect background unloaded incarnation=2", "expect background killed", "the background: expected killed, got unloaded"),
        ("expect app answer saved", "expect app answer refused", "the app's answer to its last edit: expected refused, got saved"),
        ("expect app defaults theme=dark mode=on", "expect app defaults theme=gray", "app defaults theme: expected \"gray\", got \"dark\""),
        ("expect app answer refused", "expect app answer none", "the app's answer to its last edit: expected none, got refused"),
        ("expect shared damaged 0", "expect shared damaged 1", "damaged documents set aside: expected 1, got 0"),
    ] as [(String, String, String)])
    func eachFailsWhereItShould(after line: String, wrong: String, message: String) throws {
        var lines = Self.lifecycle.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.firstIndex(of: line), "the line must be in the run")
        lines.insert(wrong, at: index + 1)
        let found = try failures(lines.joined(separator: "\n"))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("\n  " + message) == true, "\(found)")
    }

    @Test func aPlantedDamagedDocumentMustBeTheOneSetAside() throws {
        let text = "shared defaults mode=on\nshared damaged\napp launch\nexpect shared damaged 1\nexpect shared damaged 2\n"
        let found = try failures(text)
        #expect(found.count == 1 && found[0].hasPrefix("e:5: expect shared damaged 2\n  damaged documents set aside: expected 2, got 1"), "\(found)")
    }

    @Test func theAlarmIsExpectedAsPendingDueOrNone() throws {
        let text = "platform macos\ntab open t1 https://a.example/\nsettle\nexpect alarm none\npopup open t1\npopup pause 10m\nsettle\nexpect alarm in 10m\nexpect alarm none\nexpect alarm due\n"
        let found = try failures(text)
        #expect(found.count == 2, "\(found)")
        #expect(found.first?.hasPrefix("e:9: expect alarm none\n  the alarm: expected none, got one in 10m") == true, "\(found)")
        #expect(found.last?.hasPrefix("e:10: expect alarm due\n  the alarm: expected due, got one in 10m") == true, "\(found)")
    }

    /// A native reply held for a frozen background counts when the background takes it: here
    /// after the page reloaded and before its first decision, so that decision came after it.
    @Test func aReplyHeldForAFrozenBackgroundCountsWhenItIsTaken() throws {
        let text = """
            platform ios
            shared defaults mode=on theme=gray
            cache defaults mode=on theme=sepia
            handler slow 6s
            tab open t1 https://docs.example.com/guide
            settle
            safari background
            advance 6s
            tab reload t1
            safari foreground
            settle
            expect first-decision t1 before native-reply
            """
        let failures = try HarnessBinary.failures(text, name: "s")
        #expect(failures.count == 1 && failures[0].contains("tab t1's first decision came after 1 native reply\n"), "\(failures)")
    }
}
