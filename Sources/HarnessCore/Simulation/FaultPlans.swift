import ProcessKit
import SiteSettings

// Faults planned from outside a scenario's steps (a crash sweep's kill at one arrival, a power
// cut) and those a scenario plans, as values that can be printed and read back.

/// One arrival of a process at a yield point: the `occurrence`-th time (from 1) a process of
/// that name got there in the run. A crash sweep kills the process at each in turn.
package struct YieldArrival: Hashable, Sendable, CustomStringConvertible {
    var process: ProcessName
    var point: YieldPoint
    var occurrence: Int

    init(process: ProcessName, point: YieldPoint, occurrence: Int) {
        self.process = process
        self.point = point
        self.occurrence = occurrence
    }

    /// `handler@rename#2`.
    package var description: String { "\(process.rawValue)@\(point.rawValue)#\(occurrence)" }

    package init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let process = ProcessName(rawValue: String(parts[0])) else { return nil }
        let rest = parts[1].split(separator: "#", maxSplits: 1)
        guard rest.count == 2, let point = YieldPoint(rawValue: String(rest[0])), let occurrence = Int(rest[1]), occurrence > 0 else { return nil }
        self.init(process: process, point: point, occurrence: occurrence)
    }
}

/// A power cut for an in-process run, and which of the changes not yet flushed survive it.
/// Where: before the Nth flush of the simulated disk (`12`), when a process reaches a yield
/// point (`handler@rename#2`), or after the last step (`end`). Kept: `none`, `all`,
/// `mask-5` (bit i keeps the i-th pending change) or `sample-7` (a seeded coin per change).
/// Written `12:none`, `handler@rename#2:mask-1`, `end:all`.
package struct PowerCutPlan: Hashable, Sendable, CustomStringConvertible {
    enum Place: Hashable, Sendable {
        case flush(Int)
        case arrival(YieldArrival)
        case end
    }
    enum Kept: Hashable, Sendable { case none, all, mask(UInt64), sample(UInt64) }
    var place: Place
    var kept: Kept

    init(_ place: Place, kept: Kept) {
        self.place = place
        self.kept = kept
    }

    package var description: String {
        let at = switch place {
        case .flush(let n): "\(n)"
        case .arrival(let arrival): arrival.description
        case .end: "end"
        }
        let what = switch kept {
        case .none: "none"
        case .all: "all"
        case .mask(let bits): "mask-\(bits)"
        case .sample(let seed): "sample-\(seed)"
        }
        return at + ":" + what
    }

    package init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let at = String(text[..<colon]), what = String(text[text.index(after: colon)...])
        let place: Place
        if at == "end" {
            place = .end
        } else if let flush = Int(at), flush > 0 {
            place = .flush(flush)
        } else if let arrival = YieldArrival(at) {
            place = .arrival(arrival)
        } else {
            return nil
        }
        let kept: Kept
        switch what {
        case "none": kept = .none
        case "all": kept = .all
        case let other where other.hasPrefix("mask-"):
            guard let bits = UInt64(other.dropFirst(5)) else { return nil }
            kept = .mask(bits)
        case let other where other.hasPrefix("sample-"):
            guard let seed = UInt64(other.dropFirst(7)) else { return nil }
            kept = .sample(seed)
        default: return nil
        }
        self.init(place, kept: kept)
    }

    /// Which pending changes, by position, survive.
    var keep: @Sendable (Int) -> Bool {
        switch kept {
        case .none: { _ in false }
        case .all: { _ in true }
        case .mask(let bits): { index in index < 64 && bits & (1 << UInt64(index)) != 0 }
        case .sample(let seed):
            { index in
                var random = SeededRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
                return random.next() & 1 == 1
            }
        }
    }

    /// Every plan worth trying at a place where `pending` changes are unflushed: each subset
    /// when there are at most six, else none, all and `samples` seeded samples.
    static func plans(at place: Place, pending: Int, samples: Int, seed: UInt64) -> [PowerCutPlan] {
        if pending <= 6 { return (0..<(UInt64(1) << UInt64(pending))).map { PowerCutPlan(place, kept: .mask($0)) } }
        var random = SeededRandom(seed: seed)
        return [PowerCutPlan(place, kept: .none), PowerCutPlan(place, kept: .all)]
            + (0..<samples).map { _ in PowerCutPlan(place, kept: .sample(random.next())) }
    }
}

/// A hold, crash or storage failure a scenario planned for a process at a yield point.
struct PlannedFault: Hashable, Sendable, CustomStringConvertible {
    enum Kind: String, Hashable, Sendable { case hold, crash, fail }
    var kind: Kind
    var process: ProcessName
    var point: YieldPoint

    init(_ kind: Kind, _ process: ProcessName, at point: YieldPoint) {
        self.kind = kind
        self.process = process
        self.point = point
    }

    /// `hold handler at rename`, as the step that planned it reads.
    var description: String { "\(kind.rawValue) \(process.rawValue) at \(point.rawValue)" }
}
