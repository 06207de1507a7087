import SiteSettings

/// A soak's figures and violations, as the command prints them and as JSON lines.
package struct SoakReport: Sendable {
    let options: Soak.Options
    /// Wall seconds the faults ran for, before healing.
    let seconds: Double
    let counts: SoakLog.Counts
    let acknowledged: Int
    /// How often each of Safari's rules bit.
    let rules: SafariMachine.RuleCounts

    package var violations: [SoakLog.Violation] { counts.violations }

    /// The median and 99th percentile of the lock waits, in microseconds (nil: no lock taken).
    var lockWaits: (median: Int, p99: Int)? {
        let sorted = counts.lockWaits.sorted()
        guard !sorted.isEmpty else { return nil }
        func rank(_ fraction: Double) -> Int { sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)] }
        return (rank(0.5), rank(0.99))
    }

    private func perSecond(_ count: Int) -> String {
        let rate = Double(count) / max(seconds, 0.001)
        return rate >= 10 ? String(Int(rate.rounded())) : String(Double(Int(rate * 10)) / 10)
    }

    private static func millis(_ micros: Int) -> String {
        let tenths = (micros + 50) / 100
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    /// The report for a person: figures, then each violation with the operations around it.
    package var text: String {
        var lines = ["soak: seed \(options.seed), \(options.handlers) handlers at most, \(Int(seconds.rounded())) s"]
        lines.append("operations: \(counts.totalOperations) (\(perSecond(counts.totalOperations))/s)")
        for (kind, count) in counts.operations.sorted(by: { $0.key < $1.key }) where kind != "fault" {
            lines.append("  \(kind): \(count) (\(perSecond(count))/s)")
        }
        lines.append("faults: \(counts.totalFaults)" + counts.faults.sorted(by: { $0.key < $1.key }).map { " \($0.key) \($0.value)" }.joined(separator: ","))
        if let waits = lockWaits {
            lines.append("lock waits: \(counts.lockWaits.count), median \(Self.millis(waits.median)), 99th percentile \(Self.millis(waits.p99))")
        } else {
            lines.append("lock waits: none")
        }
        lines.append("edits acknowledged: \(acknowledged)")
        if !options.flaws.isEmpty { lines.append("flaws: " + options.flaws.map(\.rawValue).sorted().joined(separator: ", ")) }
        lines.append("safari rules: \(rules.droppedForWantOfAListener) events dropped for want of a listener, "
                     + "\(rules.alarmsRaisedToTheMinimum) alarms raised to the minimum, \(rules.requestsRefusedAtTheCap) requests refused at the cap "
                     + "(\(options.nativeRequestCap))")
        lines.append("violations: \(violations.count)")
        for violation in violations {
            lines.append("VIOLATION at \(Trace.relative(violation.at)) (seed \(options.seed)): \(violation.message)")
            lines.append("  operations before it:")
            lines += violation.before.map { "    " + $0 }
            lines.append("  operations after it:")
            lines += violation.after.map { "    " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per violation, then the summary, whose `violations` member is their count.
    package var jsonLines: [JSONValue] {
        var lines: [JSONValue] = violations.map { violation in
            .object(["type": .string("violation"), "seed": .integer(Int64(bitPattern: options.seed)), "at": .integer(violation.at),
                     "message": .string(violation.message), "before": .array(violation.before.map(JSONValue.string)),
                     "after": .array(violation.after.map(JSONValue.string))])
        }
        var summary: [String: JSONValue] = [
            "type": .string("summary"), "seed": .integer(Int64(bitPattern: options.seed)), "seconds": .double(seconds),
            "handlers": .integer(Int64(options.handlers)), "operations": .integer(Int64(counts.totalOperations)),
            "operationsPerSecond": .object(counts.operations.filter { $0.key != "fault" }.mapValues { .double(Double($0) / max(seconds, 0.001)) }),
            "faults": .object(counts.faults.mapValues { .integer(Int64($0)) }),
            "lockWaits": .integer(Int64(counts.lockWaits.count)),
            "editsAcknowledged": .integer(Int64(acknowledged)), "violations": .integer(Int64(violations.count)),
            "rules": .object(["droppedForWantOfAListener": .integer(Int64(rules.droppedForWantOfAListener)),
                              "alarmsRaisedToTheMinimum": .integer(Int64(rules.alarmsRaisedToTheMinimum)),
                              "requestsRefusedAtTheCap": .integer(Int64(rules.requestsRefusedAtTheCap))]),
        ]
        if let waits = lockWaits {
            summary["lockWaitMedianMicroseconds"] = .integer(Int64(waits.median))
            summary["lockWaitP99Microseconds"] = .integer(Int64(waits.p99))
        }
        lines.append(.object(summary))
        return lines
    }
}
