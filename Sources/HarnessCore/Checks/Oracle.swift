import SiteSettings

/// Predicts the shared document's settings from the user's actions alone (invariant 2), and
/// checks that no record holds a value nobody gave it (invariant 3).
///
/// It knows nothing of stamps, revisions, tombstones or the merge: a field is a name and a
/// value, an edit sets or clears fields, and each field ends with the value of the last edit
/// made to it. "Last" is by virtual time; at the same instant the app's edit comes after the
/// popup's (the app wins ties), then the order the user made them. An edit confirmed saved must
/// be there unless a later one replaced it; an edit with no answer (lost with its process, or
/// still on its way) may or may not be; a refused edit never lands. Popup edits made at the same
/// instant by different extension instances (two Safari profiles, or the first version) have
/// no order between them: the instances number their edits apart, so any one may come last. An edit made before the
/// starting value of its field was written (a document from the future) does not replace it.
struct Oracle: Sendable {
    /// Who made an edit, in the order that breaks a tie at the same instant.
    enum Origin: Int, Sendable { case popup = 1, app = 2 }

    /// One setting: `defaults` or a site's key, and the field's name.
    struct Field: Hashable, Comparable, Sendable, CustomStringConvertible {
        var owner: String
        var name: String
        static func < (a: Field, b: Field) -> Bool { (a.owner, a.name) < (b.owner, b.name) }
        var description: String { owner == Self.defaults ? "defaults \(name)" : "site \(owner) \(name)" }
        static let defaults = "defaults"
    }

    /// What became of an edit, as far as the user can tell.
    enum Answer: Sendable { case saved, refused, unknown }

    private struct Edit: Sendable {
        var number: Int?
        var answer: Answer
        var at: EpochMillis
        var origin: Origin
        /// The extension instance that made a popup edit (its profile), if known.
        var source: String?
        /// New values; nil clears the field (a reset, or a deletion of the whole record).
        var values: [Field: String?]
        /// The scenario's line that made it, if known.
        var line: Int?

        /// As a failure names it: `the app's edit on line 12`.
        var name: String {
            let who = origin == .app ? "the app's edit" : source == "legacy" ? "the first version's toggle" : "the popup's edit"
            return line.map { "\(who) on line \($0)" } ?? who
        }
    }

    /// Each field's value when the run begins (nil: absent) and when it was written.
    private let start: [Field: (value: String?, at: EpochMillis)]
    private var edits: [Edit] = []
    /// Every value each field was given, at the start or by an edit (invariant 3), kept as
    /// edits are recorded so that checking it costs the document's size, not the run's length.
    private var given: [Field: Set<String?>] = [:]

    /// `start` is the shared document when the run begins (nil: none, so the built-in defaults).
    init(start: SettingsDocument?) {
        let document = start ?? SettingsDocument()
        var fields: [Field: (value: String?, at: EpochMillis)] = [:]
        for (field, value) in Self.fields(of: document) { fields[field] = (value, 0) }
        for (name, stamp) in document.defaults.changedAt { fields[Self.defaults(name.rawValue)]?.at = stamp.at }
        for (key, record) in document.sites {
            for (name, stamp) in record.changedAt { fields[Self.site(key.text, name.rawValue), default: (nil, 0)].at = stamp.at }
        }
        for (key, stamps) in document.tombstones {
            for (name, stamp) in stamps { fields[Self.site(key.text, name.rawValue)] = (nil, stamp.at) }
        }
        self.start = fields
        for (field, value) in fields { given[field, default: []].insert(value.value) }
    }

    /// The first version's boolean becomes the default mode, with its one theme, invert.
    init(legacyEnabled: Bool) {
        var start = Oracle(start: nil).start
        start[Self.defaults("mode")] = (legacyEnabled ? "on" : "off", 0)
        start[Self.defaults("theme")] = ("invert", 0)
        self.start = start
        for (field, value) in start { given[field, default: []].insert(value.value) }
    }

    /// An edit the user made. `number` finds its answer later; `answer` is for an edit whose
    /// outcome the user saw at once.
    mutating func record(number: Int?, answer: Answer = .unknown, at: EpochMillis, origin: Origin, source: String? = nil,
                                values: [Field: String?], line: Int? = nil) {
        edits.append(Edit(number: number, answer: answer, at: at, origin: origin, source: source, values: values, line: line))
        for (field, value) in values { given[field, default: []].insert(value) }
    }

    static func defaults(_ name: String) -> Field { Field(owner: Field.defaults, name: name) }
    static func site(_ key: String, _ name: String) -> Field { Field(owner: key, name: name) }

    /// Every field of `key` cleared: "delete this site".
    static func deletion(of key: String) -> [Field: String?] {
        Dictionary(uniqueKeysWithValues: SiteField.allCases.map { (site(key, $0.rawValue), String?.none) })
    }

    /// Invariant 2: the document's fields against the prediction, given the answers the
    /// processes gave (by edit number). Returns one violation per field that is wrong.
    func check(_ document: SettingsDocument, answers: [Int: Bool]) -> [Violation] {
        let actual = Self.fields(of: document)
        var problems: [Violation] = []
        for field in Set(actual.keys).union(start.keys).union(edits.flatMap(\.values.keys)).sorted() {
            let allowed = predicted(field, answers: answers)
            let value = actual[field]
            if !allowed.contains(value) {
                let expected = allowed.map { $0 ?? "absent" }.sorted().joined(separator: " or ")
                let lost = lastLanded(field, answers: answers).map { " (\($0.name), saved)" } ?? ""
                problems.append(Violation(.invariant(2), "\(field): the user's edits give \(expected)\(lost), the shared document has \(value ?? "absent") (\(origin(of: value, in: field)))"))
            }
        }
        return problems
    }

    /// The last edit of `field` confirmed saved, which the document should show.
    private func lastLanded(_ field: Field, answers: [Int: Bool]) -> Edit? {
        last(of: edits.filter { edit in edit.values.keys.contains(field) && (edit.number.flatMap { answers[$0] } ?? (edit.answer == .saved)) })
    }

    /// The edit that comes last by the oracle's order: time, the app after the popup at one
    /// instant, then the order they were made.
    private func last(of candidates: [Edit]) -> Edit? {
        candidates.enumerated().max { ($0.element.at, $0.element.origin.rawValue, $0.offset) < ($1.element.at, $1.element.origin.rawValue, $1.offset) }?.element
    }

    /// Where a value of `field` came from: the last edit that gave it, its starting value, or nobody.
    private func origin(of value: String?, in field: Field) -> String {
        if let edit = last(of: edits.filter { $0.values[field] == .some(value) }) {
            return "as \(edit.name) gave it"
        }
        return start[field]?.value == value ? "its starting value" : "which no edit gave"
    }

    /// Invariant 3: every value in the document is the starting value of its field or one the
    /// user gave that very field (so an edit to one site never shows up in another).
    /// `alsoGiven` adds values given by edits not recorded here.
    func strayValues(in document: SettingsDocument, alsoGiven extra: [Field: Set<String?>] = [:]) -> [Violation] {
        let actual = Self.fields(of: document)
        var stray: [Field] = []
        func check(_ field: Field, _ value: String?) {
            if !(given[field]?.contains(value) ?? (value == nil)) && extra[field]?.contains(value) != true { stray.append(field) }
        }
        for (field, value) in actual { check(field, value) }
        for field in start.keys where actual[field] == nil { check(field, nil) }
        return stray.sorted().map { Violation(.invariant(3), "\($0) is \(actual[$0] ?? "absent"), which no edit of it gave") }
    }

    /// The values `field` may end with: the last saved edit's (or the start's when none was
    /// saved), and those of unanswered edits made after it.
    private func predicted(_ field: Field, answers: [Int: Bool]) -> Set<String?> {
        let touching = edits.indices.filter { edits[$0].values.keys.contains(field) }.sorted { a, b in
            let (x, y) = (edits[a], edits[b])
            if x.at != y.at { return x.at < y.at }
            if x.origin != y.origin { return x.origin.rawValue < y.origin.rawValue }
            return a < b
        }
        func answer(_ index: Int) -> Answer {
            edits[index].number.flatMap { answers[$0] }.map { $0 ? Answer.saved : .refused } ?? edits[index].answer
        }
        func apply(_ indices: some Sequence<Int>, to allowed: Set<String?>) -> Set<String?> {
            var allowed = allowed
            for index in indices {
                let edit = edits[index]
                switch answer(index) {
                case .saved: allowed = [edit.values[field]!]
                case .unknown: allowed.insert(edit.values[field]!)
                case .refused: break
                }
            }
            return allowed
        }
        var allowed: Set<String?> = [start[field]?.value]
        let counted = touching.filter { edits[$0].at >= start[field]?.at ?? 0 }
        var position = 0
        while position < counted.count {
            // Popup edits at one instant, from one extension instance or several.
            let first = edits[counted[position]]
            var group = [counted[position]]
            while first.origin == .popup, position + group.count < counted.count,
                  case let next = edits[counted[position + group.count]], next.at == first.at, next.origin == .popup {
                group.append(counted[position + group.count])
            }
            position += group.count
            let sources = Set(group.map { edits[$0].source })
            guard sources.count > 1 else {
                allowed = apply(group, to: allowed)
                continue
            }
            // Any instance's edits may come last: each instance's in order, after any of the others'.
            var outcomes: Set<String?> = []
            for source in sources {
                let others = group.filter { edits[$0].source != source }
                let landed = others.filter { answer($0) != .refused }.map { edits[$0].values[field]! }
                let before = apply(others, to: allowed).union(landed)
                outcomes.formUnion(apply(group.filter { edits[$0].source == source }, to: before))
            }
            allowed = outcomes
        }
        return allowed
    }

    /// The document as fields: each default, and each field a site record holds.
    static func fields(of document: SettingsDocument) -> [Field: String] {
        let defaults = document.defaults
        var fields: [Field: String] = [
            Self.defaults("mode"): defaults.mode.rawValue,
            Self.defaults("theme"): defaults.theme.rawValue,
            Self.defaults("nativeDarkPolicy"): defaults.nativeDarkPolicy.rawValue,
            Self.defaults("schedule"): "\(defaults.schedule.start)-\(defaults.schedule.end)",
        ]
        for (key, record) in document.sites {
            let values = record.values
            if let mode = values.mode { fields[site(key.text, "mode")] = mode.rawValue }
            if let theme = values.theme { fields[site(key.text, "theme")] = theme.rawValue }
            if let policy = values.nativeDarkPolicy { fields[site(key.text, "nativeDarkPolicy")] = policy.rawValue }
        }
        return fields
    }
}
