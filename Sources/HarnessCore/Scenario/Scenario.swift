import SiteSettings

/// A named scenario: a plain-text file, one step per line, `#` comments; the first comment
/// block describes it. The grammar, with an example for every step, is in Scenarios/README.md.
/// A scenario is parsed whole before it runs (`parse`), and printed back from its steps
/// (`ScenarioPrinter`).
package struct Scenario: Sendable {
    /// One step and where it was written.
    package struct Line: Equatable, Sendable {
        let number: Int
        package let step: Step
        /// The words as written; nil for a line made from its step (as printed).
        private let written: String?

        /// The words of the line, comments removed.
        var text: String { written ?? ScenarioPrinter.line(step) }

        init(number: Int, text: String, step: Step) {
            self.number = number
            self.step = step
            written = text
        }

        /// A line made from its step, its text printed only when read (a generated schedule's
        /// lines are read only when one of them fails).
        init(number: Int, step: Step) {
            self.number = number
            self.step = step
            written = nil
        }

        package static func == (a: Line, b: Line) -> Bool { a.number == b.number && a.step == b.step && a.text == b.text }
    }

    package let name: String
    package let description: String
    package let lines: [Line]
    package var steps: [Step] { lines.map(\.step) }

    /// The folder of its name, read as a path: where the files its lines name are found.
    var folder: String { name.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") }

    /// The folder its `extension` line names, resolved from the scenario's own folder; nil when
    /// it has none.
    package var extensionFolder: String? {
        for line in lines { if case .extensionFolder(let path, _) = line.step { return ScenarioSetup.resolve(path, in: folder) } }
        return nil
    }

    init(name: String, description: String, lines: [Line]) {
        self.name = name
        self.description = description
        self.lines = lines
    }

    /// The first word of every step this version understands.
    static let verbs = ["platform", "epoch", "seed", "shared", "cache", "app", "safari", "tab", "popup", "background", "fail",
                               "handler", "hold", "release", "crash", "advance", "settle", "appearance", "legacy", "expect", "profile", "alarm-minimum", "extension", "fetch", "expect-failure", "watchdog", "heap-limit", "group", "probe", "menu", "command", "action", "options", "permission"]

    /// Reads a whole scenario into typed steps. Throws every mistake in it, each with its line;
    /// a file with no steps is a mistake too.
    package static func parse(_ text: String, name: String) throws(ScenarioErrors) -> Scenario {
        var parser = ScenarioParser(file: name)
        return try parser.parse(text)
    }
}

/// A scenario that cannot run as written: file, line, what is wrong, and the nearest valid word.
package struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    let file: String
    let line: Int
    let message: String
    let suggestion: String?

    init(file: String, line: Int, message: String, suggestion: String? = nil) {
        self.file = file
        self.line = line
        self.message = message
        self.suggestion = suggestion
    }

    /// `file:line: message`; line 0 stands for the whole run (a command-line fault).
    package var description: String {
        (line > 0 ? "\(file):\(line): " : "\(file): ") + message + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
}

/// The closest word by edit distance, if close enough to be a likely typo.
package func nearestWord(_ word: String, in candidates: [String]) -> String? {
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
    // The same word in other capitals is the likeliest slip of all (`PLATFORM`).
    if let same = candidates.first(where: { $0.lowercased() == word.lowercased() }) { return same }
    let best = candidates.map { ($0, distance(Array(word.lowercased()), Array($0.lowercased()))) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
}
