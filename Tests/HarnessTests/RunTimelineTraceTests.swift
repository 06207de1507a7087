import Foundation
@testable import HarnessCore
import Testing

/// The run page's reading of real traces: every named scenario, as run and with the power cut
/// at its third flush. Each request a handler took has one arrow from a background, each
/// reply a background took has at most one arrow, from the handler that answered, and nothing
/// sent before a power cut arrives after it.
struct RunTimelineTraceTests {
    static func outcome(_ file: String, powerCut: PowerCutPlan?) throws -> ScenarioRunner.Outcome? {
        let path = ScenarioParserTests.folder + "/" + file
        let scenario = try Scenario.parse(String(contentsOfFile: path, encoding: .utf8), name: path)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = ScenarioRunner(scenario, transport: .inProcess, seed: 1, executables: HarnessBinary.executables, directory: folder,
                                    powerCut: powerCut)
        // A run the cut never reaches is a usage error: there is nothing to read then.
        return powerCut == nil ? try runner.run() : try? runner.run()
    }

    @Test(arguments: ScenarioParserTests.files)
    func everyRequestAndReplyIsDrawnOnce(file: String) throws {
        for cut in [nil, PowerCutPlan("3:all")] {
            guard let outcome = try Self.outcome(file, powerCut: cut) else { continue }
            let trace = outcome.trace
            let timeline = RunTimeline(log: outcome.log, marks: outcome.marks, epoch: outcome.epoch)
            let where_ = cut.map { "with the power cut at \($0)" } ?? "as run"
            // The trace read back from its lines: the same lines, every message typed by its
            // role's codec, and the same timeline.
            let read = TraceLog.read(lines: trace, epoch: outcome.epoch)
            #expect(read.lines == trace, "\(file) \(where_)")
            let untyped = read.entries.filter { if case .json? = $0.message { true } else { false } }.map(read.line)
            #expect(untyped == [], "\(file) \(where_)")
            let reread = RunTimeline(log: read, marks: outcome.marks, epoch: outcome.epoch)
            #expect(reread.arrows.map(\.note) == timeline.arrows.map(\.note) && reread.times == timeline.times
                        && reread.tabs.map(\.segments.count) == timeline.tabs.map(\.segments.count), "\(file) \(where_)")
            // Requests the background sent that a handler took (the first version's messages come from Safari).
            let taken = trace.indices.filter {
                trace[$0].contains(" <- ") && trace[$0].contains("\"type\":\"requestArrived\"") && !trace[$0].contains("\"type\":\"getEnabled\"")
                    && !trace[$0].contains("\"type\":\"toggleEnabled\"")
            }
            let requests = timeline.arrows.filter { $0.outcome == .request }
            #expect(requests.map(\.toIndex) == taken, "\(file) \(where_)")
            for arrow in requests {
                #expect(arrow.from.hasPrefix("background#") && arrow.to.hasPrefix("handler#") && arrow.fromIndex < arrow.toIndex, "\(file) \(where_): \(arrow)")
                #expect(trace[arrow.fromIndex].contains("\"type\":\"sendNative\"") && trace[arrow.fromIndex].split(separator: " ")[1] == arrow.from,
                        "\(file) \(where_): \(arrow)")
            }
            let replies = timeline.arrows.filter { $0.outcome != .request && $0.outcome != .message }
            for arrow in replies {
                #expect(arrow.from.hasPrefix("handler#") && arrow.to.hasPrefix("background#"), "\(file) \(where_): \(arrow)")
                let end = trace[arrow.toIndex]
                #expect(end.contains("\(arrow.to) <- ") && end.contains("\"type\":\"nativeReplyArrived\"") || end.contains("dropped reply for \(arrow.to)"),
                        "\(file) \(where_): \(arrow) ends at \(end)")
            }
            // Nothing on its way before a power cut arrives after it.
            for cut in timeline.events.filter({ $0.note.hasPrefix("power lost") }).map(\.at) {
                let crossing = (requests + replies).filter { $0.fromIndex < cut && cut < $0.toIndex && $0.outcome != .dropped }
                #expect(crossing.isEmpty, "\(file) \(where_): \(crossing)")
            }
            let ends = replies.map(\.toIndex).filter { trace[$0].contains("\"type\":\"nativeReplyArrived\"") }
            #expect(Set(ends).count == ends.count, "\(file) \(where_): a reply taken twice")
        }
    }
}
