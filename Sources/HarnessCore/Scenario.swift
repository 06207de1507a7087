import SiteSettings

/// A named scenario: a plain-text file, one step per line, `#` comments; the first comment
/// block describes it. The grammar, with an example for every step, is in Scenarios/README.md.
public struct Scenario: Sendable {
    public struct Step: Sendable {
        public let line: Int
        /// The words of the line, comments removed.
        public let words: [String]
        public var text: String { words.joined(separator: " ") }
    }

    public let name: String
    public let description: String
    public let steps: [Step]

    /// The first word of every step this version understands.
    public static let verbs = ["platform", "epoch", "seed", "shared", "cache", "app", "safari", "tab", "popup", "background", "fail",
                               "handler", "hold", "release", "crash", "advance", "settle", "appearance", "legacy", "expect", "profile"]

    /// Reads a scenario, checking every line's first word (the runner checks the rest, with the
    /// same file and line in its errors).
    public static func parse(_ text: String, name: String) throws(ScenarioError) -> Scenario {
        var description: [String] = []
        var inHeader = true
        var steps: [Step] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let trimmed = raw.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("#") {
                if inHeader { description.append(String(trimmed.dropFirst().drop { $0 == " " })) }
                continue
            }
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let verb = words.first else {
                if !description.isEmpty { inHeader = false }
                continue
            }
            inHeader = false
            guard verbs.contains(verb) else {
                throw ScenarioError(file: name, line: line, message: "unknown step '\(verb)'", suggestion: nearestWord(verb, in: verbs))
            }
            steps.append(Step(line: line, words: words))
        }
        return Scenario(name: name, description: description.joined(separator: " "), steps: steps)
    }
}

/// A scenario that cannot run as written: file, line, what is wrong, and the nearest valid word.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String
    public let suggestion: String?

    public init(file: String, line: Int, message: String, suggestion: String? = nil) {
        self.file = file
        self.line = line
        self.message = message
        self.suggestion = suggestion
    }

    /// `file:line: message`; line 0 stands for the whole run (a command-line fault).
    public var description: String {
        (line > 0 ? "\(file):\(line): " : "\(file): ") + message + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
}

/// The closest word by edit distance, if close enough to be a likely typo.
public func nearestWord(_ word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
    let best = candidates.map { ($0, distance(Array(word), Array($0))) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
}
