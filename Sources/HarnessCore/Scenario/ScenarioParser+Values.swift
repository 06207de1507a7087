import ProcessKit
import SiteSettings

/// The values a step or an expectation takes: fields, scopes, times and durations.
extension ScenarioParser {
    // MARK: - Values

    /// `mode=on theme=gray nativeDarkPolicy=respect schedule=20:00-06:00`: at least one, each once.
    func values(_ words: inout Cursor, allowSchedule: Bool) throws(ScenarioError) -> FieldValues {
        let known = allowSchedule ? ["mode", "theme", "nativeDarkPolicy", "schedule"] : ["mode", "theme", "nativeDarkPolicy"]
        var values = FieldValues()
        if words.atEnd { throw words.error("missing field=value pairs (\(known.joined(separator: ", ")))") }
        while !words.atEnd {
            let (key, value) = try pair(try words.next(""), words, known: known)
            if values.texts.contains(where: { $0.name == key }) { throw words.error("'\(key)' is given twice") }
            try set(key, value, in: &values, words)
        }
        return values
    }

    func set(_ key: String, _ value: String, in values: inout FieldValues, _ words: Cursor) throws(ScenarioError) {
        switch key {
        case "mode": values.mode = try choice(value, Mode.self, key, words)
        case "theme": values.theme = try theme(value, words)
        case "nativeDarkPolicy": values.nativeDarkPolicy = try choice(value, NativeDarkPolicy.self, key, words)
        default:
            guard let schedule = Self.schedule(value) else { throw words.error("'\(value)' is not a schedule (HH:MM-HH:MM, as 20:00-06:00)") }
            values.schedule = schedule
        }
    }

    /// Field names to reset: at least one, each once.
    func fields(_ words: inout Cursor) throws(ScenarioError) -> [SiteField] {
        var fields: [SiteField] = []
        if words.atEnd { throw words.error("missing the fields to reset (mode, theme, nativeDarkPolicy)") }
        while !words.atEnd {
            let field = try words.choose(SiteField.self, what: "field")
            if fields.contains(field) { throw words.error("'\(field.rawValue)' is given twice") }
            fields.append(field)
        }
        return fields
    }

    /// `key=value`, the key one of `known`.
    func pair(_ word: String, _ words: Cursor, known: [String]) throws(ScenarioError) -> (String, String) {
        let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts[0] == "schedule" && !known.contains("schedule") && known.contains("mode") {
            throw words.error("a schedule belongs to the defaults, not to a site")
        }
        guard known.contains(parts[0]) else {
            throw ScenarioError(file: file, line: words.line, message: "unknown key '\(parts[0])' (expected \(known.joined(separator: ", ")))",
                                suggestion: nearestWord(parts[0], in: known))
        }
        guard parts.count == 2 else {
            // `theme sepia`: the value came as the next word.
            let value = words.peek.map { "\(word)=\($0)" } ?? "\(word)=VALUE"
            throw words.error("'\(word)' and its value are one word, joined by '='", suggestion: value)
        }
        guard !parts[1].isEmpty else { throw words.error("'\(word)' needs a value after '='") }
        return (parts[0], parts[1])
    }

    /// A page's address as a tab opens it: anything with a scheme (an unsupported one, such as
    /// `about:blank`, is a page the extension must refuse); a bare host is a mistake.
    func pageURL(_ text: String, _ words: Cursor) throws(ScenarioError) -> String {
        // A scheme is letters before a ':' not followed by a port (`localhost:8080` has none).
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }),
           text.first?.isLetter == true, !(text[text.index(after: colon)...].first?.isNumber ?? false) {
            return text
        }
        throw words.error("'\(text)' has no scheme: a page's URL starts with https:// or http://", suggestion: "https://\(text)")
    }

    /// What a bare word in a decision's checks was likely meant as: a reason (`paused` ->
    /// `reason=paused`), a theme, a mode, `undecided`, or a near key.
    func decisionHint(_ word: String, keys: [String], undecided: Bool) -> String? {
        if keys.contains("reason"), DecisionReason(rawValue: word) != nil { return "reason=\(word)" }
        if keys.contains("theme"), Theme.catalogue.contains(Theme(rawValue: word)) { return "theme=\(word)" }
        if keys.contains("mode"), Mode(rawValue: word) != nil { return "mode=\(word)" }
        let words = keys + (undecided ? ["undecided"] : [])
        guard let near = nearestWord(word, in: words) else { return nil }
        return words.contains(near) && (near == "enabled" || near == "disabled" || near == "undecided") ? near : "\(near)=VALUE"
    }

    func choice<T: RawRepresentable & CaseIterable>(_ value: String, _ type: T.Type, _ key: String, _ words: Cursor) throws(ScenarioError) -> T where T.RawValue == String {
        guard let result = T(rawValue: value) else {
            let options = T.allCases.map(\.rawValue)
            throw ScenarioError(file: file, line: words.line, message: "'\(value)' is not a valid \(key) (expected \(options.joined(separator: ", ")))",
                                suggestion: nearestWord(value, in: options))
        }
        return result
    }

    func choice(_ value: String, _ options: [String], _ key: String, _ words: Cursor) throws(ScenarioError) -> String {
        guard options.contains(value) else {
            throw ScenarioError(file: file, line: words.line, message: "'\(value)' is not a valid \(key) (expected \(options.joined(separator: ", ")))",
                                suggestion: nearestWord(value, in: options))
        }
        return value
    }

    func theme(_ value: String, _ words: Cursor) throws(ScenarioError) -> Theme {
        _ = try choice(value, Theme.catalogue.map(\.rawValue), "theme", words)
        return Theme(rawValue: value)
    }

    func scope(_ words: inout Cursor) throws(ScenarioError) -> WrittenScope {
        try scopeKey(try words.next("a site key"), words)
    }

    func scopeKey(_ text: String, _ words: Cursor) throws(ScenarioError) -> WrittenScope {
        do { return try WrittenScope(text) } catch { throw words.error("'\(text)' is not a site key: \(error)") }
    }

    /// `x` and a number: the name of a tab the extension opened.
    static func isExtensionTab(_ tab: TabID) -> Bool {
        let text = tab.rawValue
        return text.count > 1 && text.first == "x" && text.dropFirst().allSatisfy(\.isASCII) && text.dropFirst().allSatisfy(\.isNumber)
    }

    func tabName(_ words: inout Cursor) throws(ScenarioError) -> TabID {
        let text = try words.next("a tab name")
        guard Self.isName(text) else { throw words.error("'\(text)' is not a tab name (letters, digits, '-' and '_')") }
        return TabID(text)
    }

    func requireOpen(_ tab: TabID, _ words: Cursor) throws(ScenarioError) {
        guard openTabs[profile]?[tab] == nil else { return }
        if let line = closedTabs[profile]?[tab] { throw words.error("tab \(tab.rawValue) was closed on line \(line)") }
        // A tab the extension opens (`tabs.create`) is named x1, x2, … in the order it opens them:
        // only the run knows whether it is open.
        if Self.isExtensionTab(tab) { return }
        let open = (openTabs[profile] ?? [:]).keys.map(\.rawValue).sorted()
        let place = profile == Simulation.defaultProfile ? "" : " in profile \(profile)"
        throw ScenarioError(file: file, line: words.line,
                            message: "tab \(tab.rawValue) was never opened\(place) (open: \(open.isEmpty ? "none" : open.joined(separator: ", ")))",
                            suggestion: nearestWord(tab.rawValue, in: open))
    }

    /// A Safari profile's name: lower-case letters, digits and hyphens, at most 32.
    func profileName(_ text: String, _ words: Cursor) throws(ScenarioError) -> String {
        let allowed = text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
        guard !text.isEmpty, text.utf8.count <= 32, allowed else { throw words.error("'\(text)' is not a profile name (lower-case letters, digits, '-')") }
        return text
    }

    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }

    /// `20:00-06:00`.
    static func schedule(_ text: String) -> Schedule? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let start = TimeOfDay(parts[0]), let end = TimeOfDay(parts[1]) else { return nil }
        return Schedule(start: start, end: end)
    }

    /// The units a duration may be written in, largest first.
    static let durationUnits: [(String, EpochMillis)] = [("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]

    /// The units as a duration's end is matched: `ms` before `s`.
    static let unitsLongestFirst = durationUnits.sorted { $0.0.count > $1.0.count }

    /// `30s`, `500ms`, `2m`, `1h`: a whole number of one unit, less than 10,000,000 of it.
    func duration(_ text: String, _ words: Cursor) throws(ScenarioError) -> EpochMillis {
        for (unit, scale) in Self.unitsLongestFirst where text.hasSuffix(unit) {
            let digits = text.dropLast(unit.count)
            if !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
               let value = Int64(digits), value < 10_000_000 {
                return value * scale
            }
            break
        }
        throw words.error("'\(text)' is not a duration (30s, 500ms, 2m, 1h)")
    }
}
