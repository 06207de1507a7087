import ProcessKit
import SiteSettings

/// A run's trace as its events, with the moment the run started.
package struct TraceLog: Sendable {
    package let epoch: EpochMillis?
    package internal(set) var entries: [TraceEntry] = []

    package init(epoch: EpochMillis?) { self.epoch = epoch }

    package func time(_ now: EpochMillis) -> String {
        guard let epoch else { return "\(now)" }
        return Trace.relative(now - epoch)
    }

    /// `TIME WHO WHAT [JSON]`.
    package func line(_ entry: TraceEntry) -> String {
        var line = "\(time(entry.time)) \(entry.process) \(entry.what)"
        if let json = entry.json { line += " " + String(decoding: JSONWriter.compact(json), as: UTF8.self) }
        return line
    }

    package var lines: [String] { entries.map(line) }

    /// The last `count` lines.
    package func lastLines(_ count: Int) -> [String] { entries.suffix(count).map(line) }

    /// The first line whose time is earlier than the line before it, if any.
    package var firstStepBackwards: String? {
        guard entries.count > 1 else { return nil }
        for index in 1..<entries.count where entries[index].time < entries[index - 1].time { return line(entries[index]) }
        return nil
    }
}
