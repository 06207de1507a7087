import ProcessKit
import SiteSettings

/// The `expect` lines: what a scenario checks, each read whole before anything runs.
extension ScenarioParser {
    // MARK: - Expectations

    mutating func expectation(_ words: inout Cursor) throws(ScenarioError) -> Expectation {
        let kinds = ["tab", "first-decision", "shared", "app", "popup", "background", "alarm", "converged", "legacy", "group", "storage", "console", "action", "options"]
        switch try words.choose(kinds) {
        case "action": return try expectAction(&words)
        case "options":
            // `expect options page "SELECTOR" ...`: the tab `options open` opened.
            try words.expectWord("page")
            guard ownPages else { throw words.error("'expect options page' reads the extension's own options page: name it with 'extension DIR pages' first") }
            guard openTabs[profile]?[.options] != nil else { throw words.error("'expect options page' with no options page open (open it with 'options open')") }
            guard words.peek?.hasPrefix("\"") == true else { throw words.error("'expect options page' takes a selector in quotes first (\"#status\")") }
            return .element(.tab(.options), selector: try selector(&words), try elementCheck(&words))
        case "group": return try expectGroup(&words)
        case "storage": return try expectStorage(&words)
        case "console": return try expectConsole(&words)
        case "tab":
            let tab = try tabName(&words)
            try requireOpen(tab, words)
            if words.peek == "page" {
                _ = try words.next("")
                guard ownPages else { throw words.error("'expect tab \(tab.rawValue) page' reads a page the extension's own content scripts run in: name them with 'extension DIR pages' first") }
                if words.peek?.hasPrefix("\"") == true { return .element(.tab(tab), selector: try selector(&words), try elementCheck(&words)) }
                return .page(tab, try pageCheck(&words))
            }
            if words.peek == "undecided" {
                _ = try words.next("")
                return .tabUndecided(tab)
            }
            return .tab(tab, try decisionChecks(&words, keys: Self.decisionKeys, undecided: true))
        case "first-decision":
            let tab = try tabName(&words)
            try requireOpen(tab, words)
            if words.peek == "before" {
                _ = try words.next("")
                try words.expectWord("native-reply")
                return .firstDecisionBeforeNativeReply(tab)
            }
            if words.words.dropFirst(words.index).contains("before") {
                throw words.error("'before native-reply' is an expectation of its own: 'expect first-decision \(tab.rawValue) before native-reply' on one line, the decision's keys on another")
            }
            return .firstDecision(tab, try decisionChecks(&words, keys: Self.decisionKeys))
        case "shared":
            switch try words.choose(["defaults", "site", "tombstone", "damaged"]) {
            case "defaults": return .sharedDefaults(try values(&words, allowSchedule: true))
            case "site":
                let key = try scope(&words)
                if words.peek == "absent" {
                    _ = try words.next("")
                    return .sharedSiteAbsent(key)
                }
                return .sharedSite(key, try fieldChecks(&words))
            case "tombstone": return .sharedTombstone(try scope(&words))
            default:
                let text = try words.next("how many damaged documents")
                guard let count = Int(text), count >= 0, count <= 16 else { throw words.error("'\(text)' is not a count of damaged documents (0 to 16)") }
                return .sharedDamaged(count: count)
            }
        case "app":
            switch try words.choose(["sites", "site", "defaults", "answer"]) {
            case "sites":
                let first = try words.next("the sites the app lists, as a.example,b.example (or none)")
                if first == "none" { return .appSites([]) }
                var keys: [WrittenScope] = []
                for word in [first] + words.rest() {
                    for text in word.split(separator: ",") { keys.append(try scopeKey(String(text), words)) }
                }
                return .appSites(keys)
            case "site":
                let key = try scope(&words)
                return .appSite(key, try fieldChecks(&words))
            case "defaults": return .appDefaults(try values(&words, allowSchedule: true))
            default:
                guard appEdits > 0 else { throw words.error("'expect app answer' with no app edit before it (app set, reset or delete)") }
                return .appAnswer(try words.choose(AppAnswer.self))
            }
        case "popup":
            switch words.peek {
            case "page":
                _ = try words.next("")
                guard ownPages else { throw words.error("'expect popup page' reads the extension's own popup: name it with 'extension DIR pages' first") }
                guard words.peek?.hasPrefix("\"") == true else { throw words.error("'expect popup page' takes a selector in quotes first (\"#status\")") }
                return .element(.popup, selector: try selector(&words), try elementCheck(&words))
            case "closed":
                _ = try words.next("")
                return .popupOver(nil)
            case "open":
                _ = try words.next("")
                let tab = try tabName(&words)
                try requireOpen(tab, words)
                return .popupOver(tab)
            default:
                return .popup(try decisionChecks(&words, keys: Self.popupKeys))
            }
        case "background":
            var state: BackgroundState?
            var incarnation: Int?
            while !words.atEnd {
                let word = try words.next("")
                if let value = BackgroundState(rawValue: word), state == nil {
                    state = value
                } else if word.hasPrefix("incarnation="), incarnation == nil {
                    let text = word.dropFirst("incarnation=".count)
                    guard let number = Int(text), number >= 0 else { throw words.error("'\(text)' is not an incarnation number") }
                    incarnation = number
                } else {
                    let options = BackgroundState.allCases.map(\.rawValue) + ["incarnation"]
                    let key = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
                    throw ScenarioError(file: file, line: words.line, message: "unknown word '\(word)' (expected running, frozen, unloaded, killed or incarnation=N, each once)",
                                        suggestion: nearestWord(key, in: options).map { $0 == "incarnation" ? "incarnation=N" : $0 })
                }
            }
            if state == nil && incarnation == nil { throw words.error("missing the state (running, frozen, unloaded, killed) or incarnation=N") }
            return .background(state, incarnation: incarnation)
        case "alarm":
            switch try words.choose(["none", "due", "in"]) {
            case "none": return .alarm(.none)
            case "due": return .alarm(.due)
            default: return .alarm(.inTime(try duration(try words.next("a duration"), words)))
            }
        case "converged":
            return .converged
        default:
            return .legacy(enabled: try words.choose(["enabled", "disabled"]) == "enabled")
        }
    }

    static let decisionKeys = ["enabled", "disabled", "theme", "reason", "scope", "mode", "nativeDarkPolicy",
                               "source.mode", "source.theme", "source.nativeDarkPolicy"]
    static let popupKeys = ["theme", "scope", "mode", "nativeDarkPolicy", "source.mode", "source.theme", "source.nativeDarkPolicy"]

    /// `enabled`, `disabled`, `theme=sepia`, `source.theme=default`: at least one, each key once.
    /// `undecided` says whether the line could have been `undecided` instead (a tab's).
    private func decisionChecks(_ words: inout Cursor, keys: [String], undecided: Bool = false) throws(ScenarioError) -> [DecisionCheck] {
        var checks: [DecisionCheck] = []
        let expected = (keys + (undecided ? ["undecided"] : [])).joined(separator: ", ")
        if words.atEnd {
            throw words.error("missing what to check (\(expected))")
        }
        while !words.atEnd {
            let word = try words.next("")
            let check: DecisionCheck
            if keys.contains("enabled") && (word == "enabled" || word == "disabled") {
                check = .enabled(word == "enabled")
            } else if !word.contains("="), !keys.contains(word), let hint = decisionHint(word, keys: keys, undecided: undecided) {
                throw ScenarioError(file: file, line: words.line, message: "unknown word '\(word)' (expected \(expected))", suggestion: hint)
            } else {
                let (key, value) = try pair(word, words, known: keys.filter { $0 != "disabled" && $0 != "enabled" } + (keys.contains("enabled") ? ["enabled"] : []))
                switch key {
                case "enabled": check = .enabled(try choice(value, ["true", "false"], key, words) == "true")
                case "theme": check = .theme(try theme(value, words))
                case "reason": check = .reason(try choice(value, DecisionReason.self, key, words))
                case "scope": check = .scope(value == "none" ? nil : try scopeKey(value, words))
                case "mode": check = .mode(try choice(value, Mode.self, key, words))
                case "nativeDarkPolicy": check = .nativeDarkPolicy(try choice(value, NativeDarkPolicy.self, key, words))
                default:
                    let field = SiteField(rawValue: String(key.dropFirst("source.".count)))!
                    check = .source(field, try choice(value, ValueSource.self, key, words))
                }
            }
            if checks.contains(where: { $0.key == check.key }) { throw words.error("'\(check.key)' is checked twice") }
            checks.append(check)
        }
        return checks
    }

    /// `mode=off theme=absent`: at least one, each field once.
    private func fieldChecks(_ words: inout Cursor) throws(ScenarioError) -> [SiteFieldCheck] {
        var checks: [SiteFieldCheck] = []
        if words.atEnd { throw words.error("missing field=value (or field=absent) pairs") }
        while !words.atEnd {
            let (key, value) = try pair(try words.next(""), words, known: SiteField.allCases.map(\.rawValue))
            let field = SiteField(rawValue: key)!
            if checks.contains(where: { $0.field == field }) { throw words.error("'\(key)' is checked twice") }
            if value == "absent" {
                checks.append(SiteFieldCheck(field, nil))
            } else {
                var values = FieldValues()
                try set(field.rawValue, value, in: &values, words)
                checks.append(SiteFieldCheck(field, values.texts[0].value))
            }
        }
        return checks
    }
}
