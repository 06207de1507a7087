import ProcessKit
import SiteSettings

/// The steps any extension's design can use: the App Group's defaults its app and handler share,
/// and checks of its storage and its console. Values are JSON, read as one word (`words(of:)`
/// keeps a JSON string, object or array whole, `#` and spaces included).
extension ScenarioParser {
    /// `group defaults SUITE [KEY JSON]` (setup).
    mutating func groupDefaults(_ words: inout Cursor) throws(ScenarioError) -> Step {
        try words.expectWord("defaults")
        let suite = try suiteName(&words)
        guard !words.atEnd else { return .groupDefaults(suite: suite, key: nil, value: nil) }
        let key = try defaultsKey(&words)
        return .groupDefaults(suite: suite, key: key, value: try storedValue(&words, what: "the value of \(key)"))
    }

    /// `app set group SUITE KEY JSON`, after `app set`.
    mutating func setGroup(_ words: inout Cursor) throws(ScenarioError) -> AppStep {
        let suite = try suiteName(&words)
        let key = try defaultsKey(&words)
        return .setGroup(suite: suite, key: key, value: try storedValue(&words, what: "the value the app sets"))
    }

    /// `app reset group SUITE KEY`, after `app reset`.
    mutating func resetGroup(_ words: inout Cursor) throws(ScenarioError) -> AppStep {
        let suite = try suiteName(&words)
        return .resetGroup(suite: suite, key: try defaultsKey(&words))
    }

    /// `app dispatch NAME JSON`, after `app`: macOS only, as Apple has it ("You can't send
    /// messages from a containing iOS app to your web extension's JavaScript").
    func dispatch(_ words: inout Cursor) throws(ScenarioError) -> AppStep {
        guard platform == .macOS else {
            throw words.error("'app dispatch' is macOS only: an iOS app cannot message its extension's JavaScript (add 'platform macos' to the setup)")
        }
        let name = try words.next("the message's name (themeChanged)")
        return .dispatch(name: name, userInfo: try storedValue(&words, what: "the message's userInfo", plist: true))
    }

    /// `expect group defaults SUITE KEY (JSON | absent | includes JSON)`.
    mutating func expectGroup(_ words: inout Cursor) throws(ScenarioError) -> Expectation {
        try words.expectWord("defaults")
        let suite = try suiteName(&words, naming: false)
        suitesExpected.append((suite, words.line))
        let key = try defaultsKey(&words)
        return .groupDefault(suite: suite, key: key, try valueCheck(&words, plist: true))
    }

    /// `expect storage local|session|sync KEY (JSON | absent | includes JSON)`.
    func expectStorage(_ words: inout Cursor) throws(ScenarioError) -> Expectation {
        let area = try words.choose(StorageArea.self, what: "storage area")
        let key = try defaultsKey(&words)
        return .storage(area, key: key, try valueCheck(&words, plist: false))
    }

    /// `expect console background contains "TEXT"`, `expect console tab NAME contains "TEXT"`,
    /// `expect console popup contains "TEXT"`.
    func expectConsole(_ words: inout Cursor) throws(ScenarioError) -> Expectation {
        let source: ConsoleSource
        switch try words.choose(["background", "tab", "popup"]) {
        case "background":
            source = .background
        case "popup":
            guard ownPages else { throw words.error("'expect console popup' reads what the extension's own popup logs: name it with 'extension DIR pages' first") }
            source = .popup
        default:
            let tab = try tabName(&words)
            try requireOpen(tab, words)
            guard ownPages else { throw words.error("'expect console tab \(tab.rawValue)' reads what the extension's own content scripts log: name them with 'extension DIR pages' first") }
            source = .tab(tab)
        }
        try words.expectWord("contains")
        return .console(source, contains: try quoted(&words, what: "the text a line contains, in quotes (\"loaded\")"))
    }

    /// `expect action [tab NAME] badge="TEXT" title="TEXT" popup="PAGE" enabled=true|false`: the
    /// toolbar item as a tab shows it, or as every tab does; at least one property.
    func expectAction(_ words: inout Cursor) throws(ScenarioError) -> Expectation {
        var tab: TabID?
        if words.peek == "tab" {
            _ = try words.next("")
            tab = try tabName(&words)
            try requireOpen(tab!, words)
        }
        let known = ActionCheck.keys.map(\.word)
        var checks: [ActionCheck] = []
        repeat {
            let word = try words.next("a value of the toolbar item (\(known.map { $0 == "enabled" ? "enabled=true" : "\($0)=\"TEXT\"" }.joined(separator: ", ")))")
            let (key, text) = try pair(word, words, known: known)
            let property = ActionCheck.keys.first { $0.word == key }!.property
            if checks.contains(where: { $0.property == property }) { throw words.error("'\(key)' is checked twice on one line") }
            let value: JSONValue
            if property == .enabled {
                guard text == "true" || text == "false" else { throw words.error("enabled=\(text): expected enabled=true or enabled=false") }
                value = .bool(text == "true")
            } else {
                guard text.hasPrefix("\"") else { throw words.error("\(key)=\(text): the value is a string in quotes", suggestion: "\(key)=\"\(text)\"") }
                guard case .string(let string)? = try? JSONParser.parse(text) else { throw words.error("\(key)=\(text): the value is one string in quotes") }
                value = .string(string)
            }
            checks.append(ActionCheck(property: property, value: value))
        } while !words.atEnd
        return .action(tab, checks)
    }

    /// Each suite an `expect group defaults` line names must be one another line names: a suite
    /// named only there is most likely misspelt.
    func unnamedSuites() -> [ScenarioError] {
        suitesExpected.compactMap { suite, line in
            guard suitesNamed[suite] == nil else { return nil }
            let named = suitesNamed.keys.sorted()
            return ScenarioError(file: file, line: line,
                                 message: "no line names the suite '\(suite)' (\(named.isEmpty ? "none does" : "named: " + named.joined(separator: ", "))): set it up with 'group defaults \(suite)', or set a key with 'app set group'",
                                 suggestion: nearestWord(suite, in: named))
        }
    }

    /// A page's selector, a JSON string (`"#story .title"`).
    func selector(_ words: inout Cursor) throws(ScenarioError) -> String {
        let selector = try quoted(&words, what: "a selector in quotes (\"#story .title\")")
        guard !selector.trimmingCharacters(in: .whitespaces).isEmpty else { throw words.error("a selector is not empty") }
        return selector
    }

    /// What to check of the first element a selector matches: `text "T"`, `text contains "T"`,
    /// `attribute.NAME=VALUE`, `class NAME`, `no-class NAME`, `style.NAME=VALUE`, `absent`, or
    /// `count=N`.
    func elementCheck(_ words: inout Cursor) throws(ScenarioError) -> ElementCheck {
        let expected = "text \"T\", text contains \"T\", attribute.NAME=VALUE, class NAME, no-class NAME, style.NAME=VALUE, absent, count=N"
        let word = try words.next("what to check of the element (\(expected))")
        switch word {
        case "text":
            if words.peek == "contains" {
                _ = try words.next("")
                return .textContains(try quoted(&words, what: "the text it contains, in quotes"))
            }
            return .text(try quoted(&words, what: "its text, in quotes (or: contains \"T\")"))
        case "class": return .hasClass(try words.next("a class name"))
        case "no-class": return .lacksClass(try words.next("a class name"))
        case "absent": return .absent
        default:
            if word.hasPrefix("count=") {
                guard let count = Int(word.dropFirst(6)), count >= 0 else { throw words.error("'\(word)': a count is a whole number (count=3)") }
                return .count(count)
            }
            for (prefix, make) in [("attribute.", ElementCheck.attribute), ("style.", ElementCheck.style)] where word.hasPrefix(prefix) {
                let pair = word.dropFirst(prefix.count).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, !pair[0].isEmpty else { throw words.error("'\(word)': expected \(prefix)NAME=VALUE") }
                return make(String(pair[0]), String(pair[1]))
            }
            let options = ["text", "class", "no-class", "absent", "count", "attribute", "style"]
            throw words.error("unknown check '\(word)' (expected \(expected))",
                              suggestion: nearestWord(String(word.split(separator: ".").first ?? Substring(word)), in: options))
        }
    }

    /// In a probe, each step that needs the design is a mistake, saying what it needs.
    func probeMistakes(_ lines: [Scenario.Line]) -> [ScenarioError] {
        guard lines.contains(where: { if case .probe = $0.step { true } else { false } }) else { return [] }
        return lines.compactMap { line in
            line.step.designPart.map { ScenarioError(file: file, line: line.number, message: "a probe runs any extension, and this step needs \($0)") }
        }
    }

    // MARK: - Words

    /// A suite's name, the App Group's identifier (`group.example.reading`): the file the
    /// defaults are kept in is named after it, so it has no `/` and is not `.` or `..`.
    private mutating func suiteName(_ words: inout Cursor, naming: Bool = true) throws(ScenarioError) -> String {
        let suite = try words.next("the App Group's suite name (group.example.app)")
        guard !suite.contains("/"), suite != ".", suite != "..", !suite.hasPrefix("\""), !suite.contains("\0") else {
            throw words.error("'\(suite)' is not a suite name: an App Group identifier such as group.example.app, with no '/'")
        }
        if naming, suitesNamed[suite] == nil { suitesNamed[suite] = words.line }
        return suite
    }

    /// A key: a word, or a JSON string for one with spaces (`"reading mode"`).
    private func defaultsKey(_ words: inout Cursor) throws(ScenarioError) -> String {
        let word = try words.next("a key")
        guard word.hasPrefix("\"") else { return word }
        guard case .string(let key) = try json(word, words, what: "a key") else { throw words.error("a key is a word or a JSON string, not \(word)") }
        guard !key.isEmpty else { throw words.error("a key is not empty") }
        return key
    }

    /// The rest of the line as a JSON value. A property list has no null, so a value of the
    /// App Group's defaults (`plist`) has none, at any depth.
    private func storedValue(_ words: inout Cursor, what: String, plist: Bool = true) throws(ScenarioError) -> JSONValue {
        guard !words.atEnd else { throw words.error("missing \(what), as JSON (true, 3, \"sepia\", {\"a\":1})") }
        let text = words.rest().joined(separator: " ")
        let value = try json(text, words, what: what)
        if plist && Self.holdsNull(value) {
            throw words.error("null cannot be kept in the App Group's defaults (a property list has no null): remove the key instead ('app reset group'), or leave it out")
        }
        return value
    }

    private static func holdsNull(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .array(let items): items.contains(where: holdsNull)
        case .object(let members): members.values.contains(where: holdsNull)
        case .bool, .integer, .double, .string: false
        }
    }

    /// `absent`, `includes JSON`, or `JSON`.
    private func valueCheck(_ words: inout Cursor, plist: Bool) throws(ScenarioError) -> ValueCheck {
        switch words.peek {
        case "absent":
            _ = try words.next("")
            return .absent
        case "includes":
            _ = try words.next("")
            return .includes(try storedValue(&words, what: "the members it includes", plist: plist))
        default:
            return .equals(try storedValue(&words, what: "the value expected (or absent, or includes JSON)", plist: plist))
        }
    }

    /// A JSON string literal, one word (`"a b # c"`).
    func quoted(_ words: inout Cursor, what: String) throws(ScenarioError) -> String {
        let word = try words.next(what)
        guard word.hasPrefix("\"") else { throw words.error("\(what): '\(word)' is not in quotes") }
        guard case .string(let text) = try json(word, words, what: what) else { throw words.error("\(what): \(word) is not one string") }
        return text
    }

    private func json(_ text: String, _ words: Cursor, what: String) throws(ScenarioError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            if text.hasPrefix("\""), !Self.closes(text) { throw words.error("\(what): a quoted string left open: \(text)") }
            let bare = text.first.map { $0.isLetter } ?? false
            throw words.error("\(what): \(text) is not JSON (\(error))\(bare ? "; a text is quoted: \"\(text)\"" : "")")
        }
    }

    /// Whether a text that starts with `"` has the quote that closes it.
    private static func closes(_ text: String) -> Bool {
        var escaped = false
        for character in text.dropFirst() {
            if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { return true }
        }
        return false
    }
}
