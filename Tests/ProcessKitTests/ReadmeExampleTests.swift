import Foundation
import ProcessKit
import SiteSettings
import Testing

/// The README's "Test your own handler" example, compiled here (never run: it speaks on the
/// standard streams). The test keeps the README's text and this copy the same, line for line.
private func readmeHandler(answer: (JSONValue, EpochMillis) -> NativeReply) {
    // README example begins
    var gate = WireGate.standardStreams(free: false, role: .handler)   // sends the hello
    while let frame = gate.receive() {
        guard case .input(.handler(.requestArrived(let message, _)), let now, _, _, _) = frame else {
            gate.send(.error("expected a requestArrived input"))
            continue
        }
        let reply: NativeReply = answer(message, now)   // your logic
        gate.send(.done(.handler([.reply(reply)])))
        break   // one request per process, as Safari starts them
    }
    // README example ends
}

struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func trimmed(_ lines: some Sequence<Substring>) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    @Test func theHandlerExampleIsTheOneThatCompiles() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.split(separator: "```swift\n", maxSplits: 1).last?.split(separator: "```\n").first,
                                 "the README has no swift block")
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let copy = try #require(source.split(separator: "// README example begins\n").last?.split(separator: "    // README example ends").first)
        // The README calls the user's logic as a function; here it is a closure.
        let compiled = Self.trimmed(copy.split(separator: "\n")).map { $0.replacing("answer(message, now)", with: "answer(message, now: now)") }
        #expect(Self.trimmed(block.split(separator: "\n")) == compiled)
    }
}
