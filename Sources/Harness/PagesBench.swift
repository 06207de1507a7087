import Foundation
import HarnessCore
import ProcessKit

/// `harness bench pages`: what a page costs in the page host (jsdom's document and a realm over
/// it), over `Tests/HarnessCoreTests/Fixtures/extensions/minimal`'s one content script: a host's
/// start to its first page (node, and jsdom's `require`, once per host), then, in each of
/// `rounds` rounds, `runs` loads of a plain page and of a page of 500 elements of its own
/// (`html`), alternating, and a run's `reset` of a host given back. Prints each median.
enum PagesBench {
    static let fixture = "Tests/HarnessCoreTests/Fixtures/extensions/minimal"

    static func run(runs: Int, rounds: Int) throws(CommandError) {
        guard let node = ExtensionRuntime.installedNode else { throw .invalidInput(ExtensionRuntime.Unavailable.noNode.description) }
        if let missing = PageRuntime.jsdomMissing { throw .invalidInput(missing.description) }
        let command: ProcessExecutables.Command
        do {
            command = PageRuntime.command(node: node, runtime: try PageRuntime.installed(), extension: ExtensionManifest.absolute(fixture))
        } catch {
            throw .invalidInput("\(error)")
        }
        let key = PageKey(TabID("t1"))
        let plain = PageHost.Input.load(key, url: "https://example.com/", visible: true, appearance: .light, nativeDark: nil)
        let large = PageHost.Input.load(key, url: "https://example.com/", visible: true, appearance: .light, nativeDark: nil, html: page(elements: 500))
        var starts: [Double] = [], plains: [Double] = [], larges: [Double] = [], resets: [Double] = []
        func time(_ work: () throws -> Void) throws(CommandError) -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            do { try work() } catch { throw .invalidInput("the page host failed: \(error)") }
            let elapsed = clock.now - start
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }
        for round in 1...rounds {
            var host: PageHost?
            starts.append(try time {
                host = try PageHost(command, seed: 1)
                _ = try host!.send(plain, now: 0)
            })
            for _ in 0..<runs {
                plains.append(try time { _ = try host!.send(plain, now: 0) })
                larges.append(try time { _ = try host!.send(large, now: 0) })
            }
            resets.append(try time { _ = try host!.send(.reset(extension: ExtensionManifest.absolute(fixture), seed: UInt64(round), platform: .iOS), now: 0) })
            Terminal.err("round \(round) of \(rounds)\n")
        }
        func line(_ name: String, _ values: [Double]) -> String {
            name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%9.2f ms median (%d)\n", BenchCommand.median(values), values.count)
        }
        Terminal.out("pages: a page host over \(fixture), \(rounds) rounds of \(runs) loads each\n")
        Terminal.out(line("a host's start to its first plain page", starts))
        Terminal.out(line("a plain page's load", plains))
        Terminal.out(line("a 500-element page's load", larges))
        Terminal.out(line("a host reset for the next run", resets))
    }

    /// A page of `elements` elements: rows of a div, a span, a link, a paragraph and a bold word.
    static func page(elements: Int) -> String {
        var body = ""
        for row in 0..<(elements / 5) {
            body += #"<div class="row r\#(row)" id="row\#(row)"><span data-i="\#(row)">item \#(row)</span><a href="/x/\#(row)">link</a><p>text <b>bold</b></p></div>"#
        }
        return "<!DOCTYPE html><html><head><title>big</title></head><body>\(body)</body></html>"
    }
}
