import ProcessKit
import SiteSettings

/// The words of one line, read left to right.
struct Cursor {
    let file: String
    let line: Int
    let words: [String]
    private(set) var index = 1

    init(file: String, line: Int, words: [String]) {
        self.file = file
        self.line = line
        self.words = words
    }

    var atEnd: Bool { index >= words.count }
    var peek: String? { atEnd ? nil : words[index] }
    private var sofar: String { words[..<index].joined(separator: " ") }

    func error(_ message: String, suggestion: String? = nil) -> ScenarioError {
        ScenarioError(file: file, line: line, message: message, suggestion: suggestion)
    }

    /// The next word; `what` names it for the error when there is none.
    mutating func next(_ what: @autoclosure () -> String) throws(ScenarioError) -> String {
        guard !atEnd else { throw error("missing \(what()) after '\(sofar)'") }
        index += 1
        return words[index - 1]
    }

    /// Every word left.
    mutating func rest() -> [String] {
        defer { index = words.count }
        return Array(words[index...])
    }

    mutating func choose(_ options: [String]) throws(ScenarioError) -> String {
        let value = try next(options.joined(separator: "|"))
        guard options.contains(value) else {
            throw error("unknown word '\(value)' (expected \(options.joined(separator: ", ")))", suggestion: nearestWord(value, in: options))
        }
        return value
    }

    mutating func choose<T: RawRepresentable & CaseIterable>(_ type: T.Type, what: String? = nil) throws(ScenarioError) -> T where T.RawValue == String {
        let value = try next(what ?? T.allCases.map(\.rawValue).joined(separator: "|"))
        guard let result = T(rawValue: value) else {
            let options = T.allCases.map(\.rawValue)
            let word = what.map { "\($0) '\(value)'" } ?? "word '\(value)'"
            throw error("unknown \(word) (expected \(options.joined(separator: ", ")))", suggestion: nearestWord(value, in: options))
        }
        return result
    }

    mutating func expectWord(_ word: String) throws(ScenarioError) {
        _ = try choose([word])
    }

    /// Nothing may follow a complete step.
    func end() throws(ScenarioError) {
        guard atEnd else { throw error("unexpected '\(words[index...].joined(separator: " "))' after '\(sofar)'") }
    }
}
