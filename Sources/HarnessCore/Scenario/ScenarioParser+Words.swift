import ProcessKit
import SiteSettings

/// How a scenario's text parts into lines and words.
extension ScenarioParser {
    // MARK: - Lines and words

    /// The lines of a text: LF, CRLF and CR each end one.
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        let bytes = Array(text.utf8)
        // A byte-order mark some editors write at the start is not part of the first line.
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                if byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        if start < bytes.count { lines.append(String(decoding: bytes[start...], as: UTF8.self)) }
        return lines
    }

    /// The words of a line up to a word that starts with `#`. A word that starts with `"`, `{` or
    /// `[` is JSON (a string, an object, an array): it runs to its closing quote or bracket, so
    /// its spaces and `#`s are its own, and one left open runs to the end of the line (where
    /// reading it as JSON says what is missing).
    static func words(of line: String) -> [String] {
        if line.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }) {
            return wordsWithJSON(of: line)
        }
        // A space may begin a character (a combining mark after it is part of it): only a line
        // of ASCII is split byte by byte.
        guard line.utf8.allSatisfy({ $0 < 0x80 }) else {
            var words: [String] = []
            for word in line.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                if word.hasPrefix("#") { break }
                words.append(String(word))
            }
            return words
        }
        var words: [String] = []
        let bytes = line.utf8
        var start: String.Index?
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 {
                if let first = start { words.append(String(line[first..<index])) }
                start = nil
            } else if start == nil {
                if byte == UInt8(ascii: "#") { return words }
                start = index
            }
            index = bytes.index(after: index)
        }
        if let first = start { words.append(String(line[first...])) }
        return words
    }

    private static func wordsWithJSON(of line: String) -> [String] {
        let characters = Array(line)
        var words: [String] = []
        var index = 0
        func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }
        while index < characters.count {
            while index < characters.count && isSpace(characters[index]) { index += 1 }
            guard index < characters.count, characters[index] != "#" else { break }
            let start = index
            let json = "\"{[".contains(characters[start])
            var depth = 0, inString = false, escaped = false
            while index < characters.count {
                let character = characters[index]
                if inString {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                } else if character == "\"" && (json || (index > start && characters[index - 1] == "=")) {
                    // (A string right after '=' is one value: `badge="2 new"`.)
                    inString = true
                } else if json && (character == "{" || character == "[") {
                    depth += 1
                } else if json && (character == "}" || character == "]") {
                    depth = max(0, depth - 1)
                } else if depth == 0 && isSpace(character) {
                    break
                }
                index += 1
            }
            words.append(String(characters[start..<index]))
        }
        return words
    }
}
