import ProcessKit
import SiteSettings

/// The run's trace: one line per event, with virtual time, logical process names and JSON with
/// sorted keys; never a pid, a path or wall time, so equal runs give equal traces. Events are
/// kept as they happened (`log`) and written out as lines only when the lines are read.
package final class Trace {
    private(set) var log: TraceLog
    /// What helps a person but must not be compared: the stderr of a process that died.
    var diagnostics: [String] = []
    /// The moment the run started: lines give their time from it (`+26.000s`), as people think
    /// of a run; nil gives times since the Unix epoch.
    var epoch: EpochMillis? { log.epoch }

    init(epoch: EpochMillis? = nil) {
        log = TraceLog(epoch: epoch)
        // Room for a typical explored run's events, so that the log is not copied as it grows.
        log.entries.reserveCapacity(1024)
    }

    /// The trace as lines.
    package var lines: [String] { log.lines }
    /// How many lines it has.
    var count: Int { log.entries.count }

    /// A moment of the run as trace lines and failures give it: `+26.000s` from the start.
    func time(_ now: EpochMillis) -> String { log.time(now) }

    /// `+26.000s`, `-0.500s`: milliseconds as signed seconds with three decimals.
    static func relative(_ millis: EpochMillis) -> String {
        let magnitude = millis.magnitude
        let fraction = String(magnitude % 1000)
        return (millis < 0 ? "-" : "+") + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "s"
    }

    /// A line's time read back in milliseconds (from the start for `+26.000s`), or nil.
    static func millis(_ word: Substring) -> EpochMillis? {
        if let plain = EpochMillis(word) { return plain }
        guard let sign = word.first, sign == "+" || sign == "-", word.hasSuffix("s") else { return nil }
        let parts = word.dropFirst().dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 3, let seconds = EpochMillis(parts[0]), let fraction = EpochMillis(parts[1]) else { return nil }
        return (seconds * 1000 + fraction) * (sign == "-" ? -1 : 1)
    }

    func record(_ now: EpochMillis, _ process: String, _ what: String, _ json: JSONValue? = nil) {
        log.entries.append(TraceEntry(time: now, process: process, what: what, message: json.map(TraceMessage.json)))
    }

    /// A line that records a rule's event the explorer counts.
    func record(_ now: EpochMillis, _ process: String, _ what: String, rule: RuleEvent) {
        log.entries.append(TraceEntry(time: now, process: process, what: what, message: nil, rule: rule))
    }

    func record(_ now: EpochMillis, _ process: String, _ what: String, message: TraceMessage) {
        log.entries.append(TraceEntry(time: now, process: process, what: what, message: message))
    }
}
