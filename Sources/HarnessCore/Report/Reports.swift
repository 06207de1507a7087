import ProcessKit
import SiteSettings

/// The reports `harness run` writes besides its table: a Mermaid sequence diagram of a trace
/// (GitHub renders it) and JUnit XML for CI.
package enum Reports {
    /// One scenario's result, as JUnit sees it.
    package struct Result: Sendable {
        var name: String
        var failures: [String]
        var wallSeconds: Double
        /// Why it did not run, if it did not.
        var skipped: String?

        package init(name: String, failures: [String], wallSeconds: Double, skipped: String? = nil) {
            self.name = name
            self.failures = failures
            self.wallSeconds = wallSeconds
            self.skipped = skipped
        }
    }

    /// A sequence diagram: Safari and the OS on one side, the three processes on the other;
    /// inputs, directives, yield points and kills in the order of the trace.
    package static func mermaid(title: String, log: TraceLog) -> String {
        var lines = ["```mermaid", "sequenceDiagram", "    title \(clean(title))", "    participant S as Safari and the OS",
                     "    participant A as app", "    participant B as background", "    participant N as handler"]
        for entry in log.entries {
            let parts = entry.process.split(separator: "#", maxSplits: 1)
            let note = entry.what + (entry.message.map { " " + String(decoding: JSONWriter.compact($0.json), as: UTF8.self) } ?? "")
            let lane: String
            switch parts.first {
            case "app": lane = "A"
            case "background": lane = "B"
            case "handler": lane = "N"
            default:
                lines.append("    Note over S: \(clean(note))")
                continue
            }
            let incarnation = parts.count > 1 ? String(parts[1]) : ""
            switch (entry.what, entry.message) {
            case ("<-", let message?): lines.append("    S->>\(lane): [\(incarnation)] \(clean(summary(message)))")
            case ("->", let message?): lines.append("    \(lane)-->>S: [\(incarnation)] \(clean(summary(message)))")
            default: lines.append("    Note over \(lane): [\(incarnation)] \(clean(note))")
            }
        }
        lines.append("```")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A message's name and the tab or request it concerns, short enough for an arrow.
    private static func summary(_ message: TraceMessage) -> String {
        var words = [message.name]
        switch message {
        case .event(let event):
            switch event {
            case .tabRequestedDecision(let tab, _, _), .tabNativeDarkChanged(let tab, _), .tabActivated(let tab), .tabClosed(let tab),
                 .popupOpened(let tab):
                words.append(tab.rawValue)
            case .nativeReplyArrived(let request, _): words.append("request \(request)")
            default: break
            }
        case .background(.sendDecision(let tab, let decision)):
            words += [tab.rawValue, decision.enabled ? "on" : "off", decision.theme.rawValue]
        case .background(.sendNative(let request, let message)):
            words += ["request \(request)", message.name]
        case .handlerInput(.requestArrived(let json, _)):
            // The message as the background sent it, read as the background's codec reads one.
            words.append(NativeRequest.decode(json).name)
        case .handler(.reply(let reply)):
            words.append(reply.name)
        case .json, .appInput, .app, .handler, .background: break
        }
        return words.joined(separator: " ")
    }

    /// Text safe inside a Mermaid line.
    private static func clean(_ text: String) -> String {
        String(text.map { ";#:\n".contains($0) ? " " : $0 })
    }

    /// JUnit XML: one test suite, a test case per scenario, a failure element per failed one.
    package static func junit(suite: String, results: [Result]) -> String {
        let failed = results.filter { !$0.failures.isEmpty }.count
        let skipped = results.filter { $0.skipped != nil }.count
        let time = results.reduce(0) { $0 + $1.wallSeconds }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites>\n  <testsuite name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(failed)\" skipped=\"\(skipped)\" time=\"\(time)\">\n"
        for result in results {
            xml += "    <testcase classname=\"\(escape(suite))\" name=\"\(escape(result.name))\" time=\"\(result.wallSeconds)\""
            if let reason = result.skipped {
                xml += ">\n      <skipped message=\"\(escape(reason))\"/>\n    </testcase>\n"
            } else if result.failures.isEmpty {
                xml += "/>\n"
            } else {
                let first = result.failures[0].split(separator: "\n").prefix(2).joined(separator: " ")
                xml += ">\n      <failure message=\"\(escape(first))\">\(escape(result.failures.joined(separator: "\n\n")))</failure>\n    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0 allows no other control characters.
                if scalar.value < 0x20 { out += "?" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
