import SiteSettings

/// The reports `harness run` writes besides its table: a Mermaid sequence diagram of a trace
/// (GitHub renders it) and JUnit XML for CI.
package enum Reports {
    /// One scenario's result, as JUnit sees it.
    package struct Result: Sendable {
        package var name: String
        package var failures: [String]
        package var wallSeconds: Double

        package init(name: String, failures: [String], wallSeconds: Double) {
            self.name = name
            self.failures = failures
            self.wallSeconds = wallSeconds
        }
    }

    /// A sequence diagram: Safari and the OS on one side, the three processes on the other;
    /// inputs, directives, yield points and kills in the order of the trace.
    package static func mermaid(title: String, trace: [String]) -> String {
        var lines = ["```mermaid", "sequenceDiagram", "    title \(clean(title))", "    participant S as Safari and the OS",
                     "    participant A as app", "    participant B as background", "    participant N as handler"]
        for line in trace {
            let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
            guard parts.count >= 3, let process = parts[1].split(separator: "#").first else { continue }
            let lane: String
            switch process {
            case "app": lane = "A"
            case "background": lane = "B"
            case "handler": lane = "N"
            default:
                lines.append("    Note over S: \(clean(parts.dropFirst(2).joined(separator: " ")))")
                continue
            }
            let incarnation = parts[1].split(separator: "#").last.map(String.init) ?? ""
            let rest = parts.count > 3 ? parts[3] : ""
            switch parts[2] {
            case "<-": lines.append("    S->>\(lane): [\(incarnation)] \(summary(rest))")
            case "->": lines.append("    \(lane)-->>S: [\(incarnation)] \(summary(rest))")
            default: lines.append("    Note over \(lane): [\(incarnation)] \(clean(parts.dropFirst(2).joined(separator: " ")))")
            }
        }
        lines.append("```")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A message's type and the tab or request it concerns, short enough for an arrow.
    private static func summary(_ json: String) -> String {
        guard case .object(let members)? = try? JSONParser.parse(json) else { return clean(String(json.prefix(40))) }
        var words: [String] = []
        if case .string(let type)? = members["type"] { words.append(type) }
        if case .string(let tab)? = members["tab"] { words.append(tab) }
        if case .integer(let request)? = members["request"] { words.append("request \(request)") }
        if case .object(let decision)? = members["decision"] {
            if case .bool(let enabled)? = decision["enabled"] { words.append(enabled ? "on" : "off") }
            if case .string(let theme)? = decision["theme"] { words.append(theme) }
        }
        if case .object(let message)? = members["message"], case .string(let type)? = message["type"] { words.append(type) }
        return clean(words.joined(separator: " "))
    }

    /// Text safe inside a Mermaid line.
    private static func clean(_ text: String) -> String {
        String(text.map { ";#:\n".contains($0) ? " " : $0 })
    }

    /// JUnit XML: one test suite, a test case per scenario, a failure element per failed one.
    package static func junit(suite: String, results: [Result]) -> String {
        let failed = results.filter { !$0.failures.isEmpty }.count
        let time = results.reduce(0) { $0 + $1.wallSeconds }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites>\n  <testsuite name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(failed)\" time=\"\(time)\">\n"
        for result in results {
            xml += "    <testcase classname=\"\(escape(suite))\" name=\"\(escape(result.name))\" time=\"\(result.wallSeconds)\""
            if result.failures.isEmpty {
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
