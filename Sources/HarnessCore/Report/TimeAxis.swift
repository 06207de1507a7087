#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

/// Where each trace line goes across the page. Virtual time alone would stack a whole
/// exchange on one instant and push everything else off screen after an hour of idle, so each
/// line that says something gets a slot of its own, bookkeeping lines (timers, storage tokens)
/// none, and time passing gets room that grows with the logarithm of the gap. A gap of
/// `longIdle` or more is drawn as a break, labelled with its length.
struct TimeAxis {
    static let slot = 12.0
    static let margin = 16.0
    static let longIdle: EpochMillis = 30_000

    /// A gap in virtual time before line `index`.
    struct Gap {
        var index: Int
        var from: Double
        var to: Double
        var millis: EpochMillis
        var isBreak: Bool { millis >= TimeAxis.longIdle }
    }

    /// `x[i]` is line `i`'s position; `x[count]` is the end of the run.
    private(set) var x: [Double] = []
    private(set) var gaps: [Gap] = []
    /// Room after the end for the labels of what happened there.
    var width: Double { (x.last ?? 0) + 90 }

    init(_ timeline: RunTimeline) {
        var position = Self.margin
        for index in timeline.times.indices {
            if index > 0, case let gap = timeline.times[index] - timeline.times[index - 1], gap > 0 {
                let room = 14 + 18 * log10(1 + Double(gap) / 1000)
                gaps.append(Gap(index: index, from: position, to: position + room, millis: gap))
                position += room
            }
            x.append(position)
            if !timeline.quiet.contains(index) { position += Self.slot }
        }
        x.append(position + Self.slot)
    }

    /// The position of a trace index, the end of the run for one past the last line.
    func at(_ index: Int) -> Double { x[min(max(index, 0), x.count - 1)] }

    /// A gap as people say it: `12.5 s`, `5 min`, `1 h 5 min`.
    static func readable(_ millis: EpochMillis) -> String {
        let seconds = millis / 1000
        if seconds >= 3600 {
            let minutes = (seconds % 3600) / 60
            return "\(seconds / 3600) h" + (minutes == 0 ? "" : " \(minutes) min")
        }
        if seconds >= 60 {
            let rest = seconds % 60
            return "\(seconds / 60) min" + (rest == 0 ? "" : " \(rest) s")
        }
        let tenths = (millis % 1000) / 100
        return "\(seconds)" + (tenths == 0 ? "" : ".\(tenths)") + " s"
    }
}
