import ProcessKit
import SiteSettings

/// Compares expectations with a simulation: each mismatch is a message saying what was
/// expected and what was there. It changes nothing.
struct ExpectationChecker {
    let simulation: Simulation
    /// The number of the scenario's last app edit, for `expect app answer`.
    let lastAppEdit: Int?

    /// Every mismatch, empty when the expectation holds. A decision that differs is shown whole,
    /// each checked key that differs with what was expected beside it.
    func problems(_ expectation: Expectation) -> [String] {
        switch expectation {
        case .tab(let id, let checks):
            guard let decision = simulation.tabs[id]?.applied else { return ["tab \(id.rawValue) has applied no decision"] }
            return whole(checks, "tab \(id.rawValue)", decision)
        case .tabUndecided(let id):
            guard let decision = simulation.tabs[id]?.applied else { return [] }
            return ["tab \(id.rawValue): expected no decision yet, got \(render(decision.json))"]
        case .firstDecision(let id, let checks):
            guard let decision = simulation.tabs[id]?.firstDecision else {
                return ["tab \(id.rawValue) has applied no decision since it loaded"]
            }
            return whole(checks, "tab \(id.rawValue)'s first decision", decision)
        case .firstDecisionBeforeNativeReply(let id):
            let replies = simulation.tabs[id]?.nativeRepliesBeforeFirstDecision
            if replies == 0 { return [] }
            guard let replies else { return ["tab \(id.rawValue) has applied no decision since it loaded"] }
            return ["tab \(id.rawValue)'s first decision came after \(replies) native \(replies == 1 ? "reply" : "replies")"]
        case .sharedDefaults(let values):
            guard let defaults = sharedDocument?.defaults else { return [noDocument] }
            let actual = FieldValues(mode: defaults.mode, theme: defaults.theme, nativeDarkPolicy: defaults.nativeDarkPolicy,
                                     schedule: defaults.schedule)
            return compare(values, "shared defaults", actual)
        case .sharedSite(let key, let checks):
            guard let document = sharedDocument else { return [noDocument] }
            guard let record = document.sites[key.key] else { return ["shared site \(key.key.text) is absent"] }
            return compare(checks, "shared site \(key.key.text)", record.values)
        case .sharedSiteAbsent(let key):
            guard let document = sharedDocument else { return [noDocument] }
            guard let record = document.sites[key.key] else { return [] }
            let values = FieldValues(record.values)
            return ["shared site \(key.key.text): expected absent, found " + (values.isEmpty ? "a record with no values" : values.words)]
        case .sharedTombstone(let key):
            guard let document = sharedDocument else { return [noDocument] }
            return document.tombstones[key.key] == nil ? ["shared has no tombstone for \(key.key.text)"] : []
        case .sharedDamaged(let count):
            return damaged(count)
        case .appSites(let keys):
            guard let view = simulation.appView else { return [Self.noAppView] }
            let expected = JSONValue.array(keys.map { .string($0.key.text) })
            return compare("app sites", expected, .array(view.sites.map { .string($0.key.text) }))
        case .appSite(let key, let checks):
            guard let view = simulation.appView else { return [Self.noAppView] }
            guard let row = view.sites.first(where: { $0.key == key.key }) else {
                return ["the app does not list \(key.key.text)"]
            }
            let overrides = FieldValues(row.overrides)
            let shown = Dictionary(uniqueKeysWithValues: overrides.texts.map { ($0.name, $0.value) })
            var problems: [String] = []
            for check in checks where check.value != shown[check.field.rawValue] {
                let actual = shown[check.field.rawValue].map { "\"\($0)\"" } ?? "absent"
                problems.append("app site \(key.key.text) \(check.field.rawValue): expected \(check.value.map { "\"\($0)\"" } ?? "absent"), got \(actual)")
            }
            return problems
        case .appDefaults(let values):
            guard let defaults = simulation.appView?.defaults else { return [Self.noAppView] }
            let shown = FieldValues(mode: defaults.mode, theme: defaults.theme, nativeDarkPolicy: defaults.nativeDarkPolicy, schedule: defaults.schedule)
            return compare(values, "app defaults", shown)
        case .appAnswer(let answer):
            let actual = lastAppEdit.flatMap { simulation.edits.appAnswers[$0] } ?? AppAnswer.none
            return actual == answer ? [] : ["the app's answer to its last edit: expected \(answer.rawValue), got \(actual.rawValue)"]
        case .popupOver(let id):
            let shown = simulation.popupTab.map { "open over \($0.rawValue)" } ?? "closed"
            return simulation.popupTab == id ? [] : ["the popup: expected \(id.map { "open over \($0.rawValue)" } ?? "closed"), got \(shown)"]
        case .popup(let checks):
            guard let view = simulation.popup else { return ["no popup is showing"] }
            return checks.flatMap { check in compare("popup \(check.key)", expected(check), popupValue(check, view)) }
        case .background(let state, let incarnation):
            var problems: [String] = []
            if let state, simulation.backgroundState != state {
                problems.append("the background: expected \(state.rawValue), got \(simulation.backgroundState.rawValue)")
            }
            if let incarnation, simulation.backgroundIncarnation != incarnation {
                problems.append("the background's incarnation: expected \(incarnation), got \(simulation.backgroundIncarnation)")
            }
            return problems
        case .alarm(let check):
            let pending = simulation.alarm
            let shown = pending.map { $0 <= simulation.now ? "one due \(($0 == simulation.now ? "now" : "since \(ScenarioPrinter.duration(simulation.now - $0))"))" : "one in \(ScenarioPrinter.duration($0 - simulation.now))" } ?? "none"
            let holds = switch check {
            case .none: pending == nil
            case .due: pending.map { $0 <= simulation.now } ?? false
            case .inTime(let delay): pending == simulation.now + delay
            }
            return holds ? [] : ["the alarm: expected \(ScenarioPrinter.line(.expect(.alarm(check), within: nil)).dropFirst("expect alarm ".count)), got \(shown)"]
        case .converged:
            return Self.convergence(simulation)
        case .page(let id, let check):
            guard let state = simulation.pageStates[simulation.safari.pageKey(id)] else { return ["tab \(id.rawValue) has no page of the extension's here (it is closed, or its pages do not run)"] }
            return check.problem(state).map { ["tab \(id.rawValue)'s page: " + $0] } ?? []
        case .legacy(let enabled):
            let answered: JSONValue? = if case .enabled(let value)? = simulation.lastLegacyAnswer { .bool(value) } else { nil }
            return compare("the first version's enabled", .bool(enabled), answered)
        case .groupDefault(let suite, let key, let check):
            let name = GroupDefaults.fileName(suite)
            let values: [String: JSONValue]
            do { values = try GroupDefaults.read(simulation.files.containerFile(name)) } catch {
                return ["group defaults \(suite): \(name) is \(error)"]
            }
            return check.problem(values[key]).map { ["group defaults \(suite) \(key): \($0)"] } ?? []
        case .storage(let area, let key, let check):
            let name = area.fileName
            let bytes = simulation.files.storageFile(name, profile: simulation.profile)
            guard let bytes else { return check.problem(nil).map { ["storage.\(area.rawValue) \(key): \($0) (nothing is stored)"] } ?? [] }
            guard case .object(let values)? = try? JSONParser.parse(bytes) else { return ["storage.\(area.rawValue): \(name) is not a JSON object"] }
            return check.problem(values[key]).map { ["storage.\(area.rawValue) \(key): \($0)"] } ?? []
        case .element(let page, let selector, let check):
            let whose = if case .tab(let id) = page { "tab \(id.rawValue)'s page" } else { "the popup" }
            switch simulation.queryPage(page, selector: selector) {
            case .failure(let reason): return ["\(whose): \(reason)"]
            case .success(let query): return check.problem(query, selector: selector).map { ["\(whose): " + $0] } ?? []
            }
        case .action(let tab, let checks):
            // What the tab shows: its own value, else every tab's, else the manifest's.
            if let tab, simulation.tabs[tab] == nil { return ["tab \(tab.rawValue) is not open: it shows no toolbar item"] }
            let whose = tab.map { "the action in tab \($0.rawValue)" } ?? "the action"
            return checks.compactMap { check in
                let found = simulation.safari.action.value(check.property, tab: tab) ?? simulation.actionDefaults[check.property]
                guard found != check.value else { return nil }
                return "\(whose): expected \(check.word)=\(ValueCheck.shown(check.value)), got " + (found.map { "\(check.word)=\(ValueCheck.shown($0))" } ?? "no toolbar item (the manifest has none)")
            }
        case .console(let source, let text):
            let (whose, lines) = switch source {
            case .background: ("the background's", simulation.backgroundConsole[simulation.profile] ?? [])
            case .tab(let id): ("tab \(id.rawValue)'s page's", simulation.pageConsole[simulation.safari.pageKey(id)] ?? [])
            case .popup: ("the popup's", simulation.popupConsole)
            }
            if lines.contains(where: { $0.contains(text) }) { return [] }
            let shown = lines.suffix(20).map { "  " + $0 }
            return ["\(whose) console: no line contains \(ValueCheck.shown(.string(text)))"
                    + (lines.isEmpty ? "; it logged nothing" : "; its \(lines.count > 20 ? "last 20 of \(lines.count)" : "\(lines.count)") lines:")] + shown
        }
    }

    // MARK: - Reading the run

    private var sharedDocument: SettingsDocument? {
        try? DocumentCodec.decode(simulation.files.containerFile(FileContainer.documentName) ?? []).document
    }

    /// Why there is no shared document to compare with.
    private var noDocument: String {
        simulation.files.containerFile(FileContainer.documentName) == nil ? "there is no shared document" : "the shared document does not parse"
    }

    static let noAppView = "the app shows nothing: it is not running"

    /// `expect shared damaged N`: N documents set aside, one of them the planted one's bytes.
    private func damaged(_ count: Int) -> [String] {
        let files = (1...16).compactMap { simulation.files.containerFile("settings.damaged-\($0).json") }
        var problems: [String] = []
        if files.count != count { problems.append("damaged documents set aside: expected \(count), got \(files.count)") }
        if let planted = simulation.plantedDamage, count > 0, !files.contains(planted) {
            problems.append("no damaged document set aside holds the planted document's \(planted.count) bytes")
        }
        return problems
    }

    // MARK: - Comparing

    /// One line for a decision that fails its checks: every key it has, in the language's
    /// words, those checked and different followed by what was expected.
    private func whole(_ checks: [DecisionCheck], _ what: String, _ decision: Decision) -> [String] {
        guard !compare(checks, what, decision).isEmpty else { return [] }
        let expected = Dictionary(checks.map { ($0.key, Self.word(self.expected($0))) }, uniquingKeysWith: { first, _ in first })
        let settings = decision.settings
        var shown: [(key: String, value: String)] = [("enabled", "\(decision.enabled)"), ("reason", decision.reason.rawValue),
                                                     ("theme", settings.theme.rawValue), ("mode", settings.mode.rawValue),
                                                     ("nativeDarkPolicy", settings.nativeDarkPolicy.rawValue),
                                                     ("scope", settings.scope?.text ?? "none")]
        for field in SiteField.allCases { shown.append(("source.\(field.rawValue)", settings.source(of: field).rawValue)) }
        let text = shown.map { key, value in
            guard let wanted = expected[key], wanted != value else { return "\(key)=\(value)" }
            return "\(key)=\(value) (expected \(wanted))"
        }
        return ["\(what) shows " + text.joined(separator: ", ")]
    }

    /// A checked value as the language writes it (`none` for no scope).
    private static func word(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): "\(flag)"
        case .null: "none"
        default: render(value)
        }
    }

    private func compare(_ checks: [DecisionCheck], _ what: String, _ decision: Decision) -> [String] {
        checks.flatMap { check -> [String] in
            let settings = decision.settings
            let actual: JSONValue = switch check {
            case .enabled: .bool(decision.enabled)
            case .theme: .string(settings.theme.rawValue)
            case .reason: .string(decision.reason.rawValue)
            case .scope: settings.scope.map { .string($0.text) } ?? .null
            case .mode: .string(settings.mode.rawValue)
            case .nativeDarkPolicy: .string(settings.nativeDarkPolicy.rawValue)
            case .source(let field, _): .string(settings.source(of: field).rawValue)
            }
            return compare("\(what) \(check.key)", expected(check), actual)
        }
    }

    private func compare(_ expected: FieldValues, _ what: String, _ actual: FieldValues) -> [String] {
        let actual = Dictionary(uniqueKeysWithValues: actual.texts.map { ($0.name, $0.value) })
        return expected.texts.flatMap { pair in compare("\(what) \(pair.name)", .string(pair.value), actual[pair.name].map(JSONValue.string)) }
    }

    private func compare(_ checks: [SiteFieldCheck], _ what: String, _ values: SiteValues) -> [String] {
        let actual = FieldValues(values)
        let texts = Dictionary(uniqueKeysWithValues: actual.texts.map { ($0.name, $0.value) })
        var problems: [String] = []
        for check in checks {
            let found = texts[check.field.rawValue]
            switch (check.value, found) {
            case (nil, nil): continue
            case (nil, let found?): problems.append("\(what) \(check.field.rawValue): expected absent, found \(found)")
            case (let value?, _): problems += compare("\(what) \(check.field.rawValue)", .string(value), found.map(JSONValue.string))
            }
        }
        return problems
    }

    private func expected(_ check: DecisionCheck) -> JSONValue {
        switch check {
        case .enabled(let enabled): .bool(enabled)
        case .theme(let theme): .string(theme.rawValue)
        case .reason(let reason): .string(reason.rawValue)
        case .scope(let key): key.map { .string($0.key.text) } ?? .null
        case .mode(let mode): .string(mode.rawValue)
        case .nativeDarkPolicy(let policy): .string(policy.rawValue)
        case .source(_, let source): .string(source.rawValue)
        }
    }

    /// What the popup shows for a check (nothing for a field of an unsupported page).
    private func popupValue(_ check: DecisionCheck, _ view: PopupView) -> JSONValue? {
        let settings = view.settings
        return switch check {
        case .scope: view.selectedScope.map { .string($0.text) } ?? .null
        case .source(let field, _): settings.map { .string($0.source(of: field).rawValue) }
        case .theme: settings.map { .string($0.theme.rawValue) }
        case .mode: settings.map { .string($0.mode.rawValue) }
        case .nativeDarkPolicy: settings.map { .string($0.nativeDarkPolicy.rawValue) }
        case .enabled, .reason: nil
        }
    }

    private func compare(_ what: String, _ expected: JSONValue, _ actual: JSONValue?) -> [String] {
        expected == actual ? [] : ["\(what): expected \(render(expected)), got \(actual.map(render) ?? "nothing")"]
    }

    // MARK: - Convergence

    /// Invariant 4: every visible tab, the open popup, the app if it is running and in front,
    /// and the cache once its outbox is empty agree with the shared document. Call it after a
    /// reconciliation point with a healthy handler (`settle` first).
    /// What the visible tabs show against the shared document (nothing when there is no
    /// readable document): each tab whose decision is not the product's for it (`disagreeing`),
    /// and each tab that shows the product's decision where the reference decision differs
    /// (`unlikeReference`, invariant 12).
    struct TabViews {
        var disagreeing: [String] = []
        var unlikeReference: [Violation] = []
    }

    static func tabViews(_ simulation: Simulation, resolver: Resolver? = nil, steadySince: EpochMillis? = nil) -> TabViews {
        let resolver = resolver ?? simulation.files.containerFile(FileContainer.documentName)
            .flatMap { try? DocumentCodec.decode($0).document }.map { Resolver(document: $0) }
        var views = TabViews()
        // The extension's own pages apply what they apply: no decision of theirs can be read
        // (invariant 16 and `expect tab ... page` check them instead).
        guard let resolver, !simulation.safari.runsOwnPages else { return views }
        let session = simulation.storedSession
        for id in simulation.visibleTabs {
            guard let tab = simulation.tabs[id] else { continue }
            let context = DecisionContext(appearance: simulation.appearance, now: simulation.now, utcOffsetMinutes: 0,
                                          pausedUntil: session?.pausedUntil, pageIsNativelyDark: tab.nativeDark)
            let expected = resolver.decide(url: tab.url, context: context)
            if let since = steadySince {
                // A decision that changed with time since then (a schedule boundary, the end of
                // a pause) is the alarm's to bring, which Safari may delay: not checked.
                var then = context
                then.now = since
                if resolver.decide(url: tab.url, context: then) != expected { continue }
            }
            if tab.applied != expected {
                let shown = tab.applied.map { difference($0.json, from: expected.json) } ?? "nothing"
                views.disagreeing.append("tab \(id.rawValue) shows \(shown), the shared document gives \(difference(expected.json, from: tab.applied?.json))")
            } else if let problem = simulation.monitor.reference.problem(tab: id.rawValue, url: tab.url, shows: expected, document: resolver.document,
                                                                         context: context) {
                views.unlikeReference.append(problem)
            }
        }
        return views
    }

    /// Invariant 4's findings and invariant 12's.
    struct Convergence {
        var problems: [String] = []
        var unlikeReference: [Violation] = []
    }

    /// `expect converged`: both invariants' findings.
    static func convergence(_ simulation: Simulation) -> [String] {
        let found = convergenceProblems(simulation)
        return found.problems + found.unlikeReference.map(\.description)
    }

    static func convergenceProblems(_ simulation: Simulation) -> Convergence {
        var problems: [String] = []
        guard let bytes = simulation.files.containerFile(FileContainer.documentName) else { return Convergence(problems: ["there is no shared document"]) }
        let document: SettingsDocument
        do { document = try DocumentCodec.decode(bytes).document } catch { return Convergence(problems: ["the shared document does not parse: \(error)"]) }
        let resolver = Resolver(document: document)
        let views = tabViews(simulation, resolver: resolver)
        problems += views.disagreeing
        if let tab = simulation.popupTab, let view = simulation.popup, let url = simulation.tabs[tab]?.url,
           case .success(let address) = PageAddress.parse(url) {
            let settings = resolver.settings(for: address)
            let shown = view.settings?.theme
            if shown != settings.theme {
                problems.append("the popup shows theme \(shown.map { "\"\($0)\"" } ?? "nothing"), the shared document gives \(settings.theme)")
            }
        }
        if simulation.appIsRunning && simulation.appInForeground, let view = simulation.appView {
            let expected = AppView(document)
            if view != expected { problems.append("the app shows \(render(view.json)), the shared document gives \(render(expected.json))") }
        }
        if let local = simulation.storedLocal, local.outbox.isEmpty, let cache = local.cache, cache != document {
            problems.append("the cache (revision \(cache.revision)) differs from the shared document (revision \(document.revision))")
        }
        return Convergence(problems: problems, unlikeReference: views.unlikeReference)
    }
}

/// Compact JSON, as failures show values.
func render(_ value: JSONValue) -> String { String(decoding: JSONWriter.compact(value), as: UTF8.self) }

/// The members of an object in which it differs from `other` (one level of nesting flattened,
/// as `source.theme`), as `theme=gray source.theme=site`; the whole value when there is no
/// other to compare with or nothing differs member by member.
func difference(_ value: JSONValue, from other: JSONValue?) -> String {
    func flat(_ value: JSONValue) -> [String: JSONValue]? {
        guard case .object(let members) = value else { return nil }
        var flat: [String: JSONValue] = [:]
        for (key, member) in members {
            if case .object(let inner) = member {
                for (name, value) in inner { flat[key + "." + name] = value }
            } else {
                flat[key] = member
            }
        }
        return flat
    }
    guard let other, let mine = flat(value), let theirs = flat(other) else { return render(value) }
    let differing = Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }
    guard !differing.isEmpty else { return render(value) }
    return differing.map { key in
        guard let member = mine[key] else { return "\(key)=(none)" }
        if case .string(let text) = member { return "\(key)=\(text)" }
        return "\(key)=\(render(member))"
    }.joined(separator: " ")
}
