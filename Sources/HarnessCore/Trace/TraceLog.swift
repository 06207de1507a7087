import ProcessKit
import SiteSettings

/// A run's trace as its events, with the moment the run started.
package struct TraceLog: Sendable {
    let epoch: EpochMillis?
    var entries: [TraceEntry] = []

    init(epoch: EpochMillis?) { self.epoch = epoch }

    func time(_ now: EpochMillis) -> String {
        guard let epoch else { return "\(now)" }
        return Trace.relative(now - epoch)
    }

    /// `TIME WHO WHAT [JSON]`.
    func line(_ entry: TraceEntry) -> String {
        var line = "\(time(entry.time)) \(entry.process) \(entry.what)"
        if let json = entry.json { line += " " + String(decoding: JSONWriter.compact(json), as: UTF8.self) }
        return line
    }

    var lines: [String] { entries.map(line) }

    /// The last `count` lines.
    func lastLines(_ count: Int) -> [String] { entries.suffix(count).map(line) }

    /// The first line whose time is earlier than the line before it, if any.
    var firstStepBackwards: String? {
        guard entries.count > 1 else { return nil }
        for index in 1..<entries.count where entries[index].time < entries[index - 1].time { return line(entries[index]) }
        return nil
    }
}

extension TraceLog {
    /// A trace read back from its lines (`TIME WHO WHAT [JSON]`): each process's messages with
    /// its role's codec, notes as words. Times given from the start (`+26.000s`) count from
    /// `epoch`; Unix times stay as they are. A line with no time of its own takes the one
    /// before it.
    static func read(lines: [String], epoch: EpochMillis?) -> TraceLog {
        var log = TraceLog(epoch: epoch)
        for line in lines {
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            let word = words.first ?? ""
            let time = Trace.millis(word).map { word.hasPrefix("+") || word.hasPrefix("-") ? $0 + (epoch ?? 0) : $0 }
                ?? log.entries.last?.time ?? epoch ?? 0
            let process = words.count > 1 ? String(words[1]) : ""
            var what = words.count > 2 ? String(words[2]) : ""
            var message: TraceMessage?
            if what.hasPrefix("<- ") || what.hasPrefix("-> "), let json = try? JSONParser.parse(Array(what.utf8.dropFirst(3))) {
                message = .read(json, input: what.hasPrefix("<- "), of: process)
                what = String(what.prefix(2))
            }
            log.entries.append(TraceEntry(time: time, process: process, what: what, message: message))
        }
        return log
    }
}
