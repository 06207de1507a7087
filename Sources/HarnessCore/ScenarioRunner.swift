#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// Plays a scenario on a `Simulation`. Setup steps (`platform`, `epoch`, `seed`, `shared`,
/// `cache`) come first; each action then lets its consequences play out except native replies,
/// which wait (so a tab's first answer can be checked before native corrects it), and `settle`
/// plays out everything. Expectations compare what a tab applied, what the popup and the app show,
/// and the shared document.
public final class ScenarioRunner {
    /// What a run found.
    public struct Outcome: Sendable {
        public var failures: [String]
        public var steps: Int
        /// Virtual time from the epoch to the end of the run.
        public var virtualTime: EpochMillis
        public var trace: [String]
        /// Every arrival of a process at a yield point before healing, in order.
        public var arrivals: [Simulation.YieldArrival]
        /// How many changes waited to be flushed at each flush of the simulated disk, at each
        /// arrival at a yield point, and after the last step (in-process transport; before healing).
        public var unsyncedAtFlushes: [Int]
        public var unsyncedAtArrivals: [Int]
        public var unsyncedAtEnd: Int
        public var passed: Bool { failures.isEmpty }
    }

    public let scenario: Scenario
    private let transport: Simulation.Transport
    private let executables: String
    private let directory: String
    private let folder: String
    private let flaws: Set<Flaw>
    private let crashAt: Simulation.YieldArrival?
    private let powerCut: Simulation.PowerCutPlan?
    private var platform = Simulation.Platform.iOS
    private var initialProfile = Simulation.defaultProfile
    private var epoch: EpochMillis = 1_772_355_600_000
    private var seed: UInt64
    private var shared: SettingsDocument?
    private var cache: SettingsDocument?
    /// The first version's boolean in the group's preferences, if the scenario plants one.
    private var legacyEnabled: Bool?
    /// `shared damaged`: the document on disk is cut off halfway, its last good copy beside it.
    private var damaged = false
    private var simulation: Simulation?
    private var failures: [String] = []
    /// The oracle before any edit, and the edits the user made, in order.
    private var startOracle = Oracle(start: nil)
    private var userEdits: [UserEdit] = []

    /// An edit as the user made it, for the oracle.
    private struct UserEdit {
        enum Target {
            case defaults
            case site(String)
            /// A popup change: the record the background says it used, else the one the popup
            /// showed as selected when the user made it (none: it cannot be told).
            case popupSite(shown: String?)
        }
        var number: Int?
        var answer: Oracle.Answer = .unknown
        var origin: Oracle.Origin
        var at: EpochMillis
        var target: Target
        /// Field names and new values (nil clears the field).
        var values: [String: String?]
    }

    /// The oracle with every edit so far. A popup change is stamped with the time of the
    /// user's action; the app's with the time the app took it (it may have been busy).
    private var oracle: Oracle {
        var oracle = startOracle
        for edit in userEdits {
            var at = edit.at
            if let number = edit.number, let taken = simulation?.appEditTimes[number] { at = taken }
            let owner: String?
            switch edit.target {
            case .defaults: owner = nil
            case .site(let key): owner = key
            case .popupSite(let shown):
                guard let key = edit.number.flatMap({ simulation?.popupEditScopes[$0] }) ?? shown else { continue }
                owner = key
            }
            var values: [Oracle.Field: String?] = [:]
            for (name, value) in edit.values { values[owner.map { Oracle.site($0, name) } ?? Oracle.defaults(name)] = value }
            oracle.record(number: edit.number, answer: edit.answer, at: at, origin: edit.origin, values: values)
        }
        return oracle
    }
    /// Invariant 5 violations already taken from the simulation, and every problem reported.
    private var reportedViolations = 0
    private var reportedProblems: Set<String> = []

    /// `folder` is where files a scenario names (`shared file PATH`) are found; by default the
    /// folder of the scenario's name, read as a path.
    /// `crashAt` kills a process at one arrival at a yield point, and `powerCut` (in-process)
    /// cuts the power at one flush; the scenario's expectations are then not checked (they
    /// describe the run without it), only the invariants.
    public init(_ scenario: Scenario, transport: Simulation.Transport, seed: UInt64, executables: String, directory: String,
                folder: String? = nil, flaws: Set<Flaw> = [], crashAt: Simulation.YieldArrival? = nil,
                powerCut: Simulation.PowerCutPlan? = nil) {
        self.scenario = scenario
        self.flaws = flaws
        self.crashAt = crashAt
        self.powerCut = powerCut
        self.folder = folder ?? scenario.name.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        self.transport = transport
        self.seed = seed
        self.executables = executables
        self.directory = directory
    }

    /// Runs every step. A step that cannot run as written is a `ScenarioError` (a usage error);
    /// a failed expectation is recorded and the run goes on.
    /// Invariants 1, 3 and 5 are checked after every step; after the last, the run is healed
    /// (faults off, everything answered, Safari in front) and all five are checked.
    public func run() throws(ScenarioError) -> Outcome {
        defer { simulation?.teardown() }
        for step in scenario.steps {
            try perform(step)
            if simulation != nil { checkInvariants(after: step) }
        }
        let last = scenario.steps.last ?? Scenario.Step(line: 0, words: ["(end)"])
        let simulation = try started(at: last)
        simulation.settle()
        let virtualTime = simulation.now - epoch
        let unsyncedAtEnd = transport == .inProcess ? simulation.disk.unsynced.count : 0
        simulation.cutPowerAtTheEnd()
        try checkFaultsWereReached(simulation)
        let arrivals = simulation.arrivals, unsyncedAtArrivals = simulation.unsyncedAtArrivals
        let unsyncedAtFlushes = simulation.disk.unsyncedAtFlushes
        simulation.heal()
        checkInvariants(after: last, healed: true)
        return Outcome(failures: failures, steps: scenario.steps.count, virtualTime: virtualTime, trace: simulation.trace.lines,
                       arrivals: arrivals, unsyncedAtFlushes: unsyncedAtFlushes, unsyncedAtArrivals: unsyncedAtArrivals,
                       unsyncedAtEnd: unsyncedAtEnd)
    }

    /// The first trace line whose time is earlier than the line before it, if any.
    static func clockRanBackwards(_ lines: [String]) -> String? {
        var last: EpochMillis = .min
        for line in lines {
            guard let time = line.split(separator: " ", maxSplits: 1).first.flatMap({ EpochMillis($0) }) else { continue }
            if time < last { return line }
            last = time
        }
        return nil
    }

    /// A planned fault that never happened is a mistake in the scenario or the command line
    /// (a usage error), not a pass: a reproduction that reproduces nothing must say so. In a
    /// sweep's run the scenario's own faults may be pre-empted by the sweep's, so only the
    /// sweep's must have happened.
    private func checkFaultsWereReached(_ simulation: Simulation) throws(ScenarioError) {
        if let crashAt, !simulation.crashAtReached {
            throw ScenarioError(file: scenario.name, line: 0, message: "no process reached \(crashAt): nothing was crashed")
        }
        if let powerCut, simulation.powerCutPending {
            throw ScenarioError(file: scenario.name, line: 0, message: "the run never got to \(powerCut): the power was never cut")
        }
        guard crashAt == nil && powerCut == nil, let fault = simulation.faultsNeverReached.first else { return }
        // The step that planned it: the last one naming this kind, process and point.
        let step = scenario.steps.last { $0.words.count > 3 && $0.words[0] == fault.kind && $0.words[1] == fault.process && $0.words[3] == fault.point.rawValue }
            ?? scenario.steps.last!
        let message = "'\(fault)' was never reached: the \(fault.process) never got to \(fault.point.rawValue) after it"
        // A flaw may skip the very step a fault waits for (no lock, no write): that run shows a
        // difference, reported as a failure, which a flaw test does not count as a catch.
        if !flaws.isEmpty { return fail(step, message) }
        throw ScenarioError(file: scenario.name, line: step.line, message: message)
    }

    /// Invariants 1, 3 and 5 (and, once healed, 2 and 4), each problem a failure at `step`.
    private func checkInvariants(after step: Scenario.Step, healed: Bool = false) {
        guard let simulation else { return }
        let label = healed ? "after the run (healed)" : "after this step"
        // A broken invariant is reported where it is first seen, not again after every step.
        for problem in invariantProblems(simulation, healed: healed) where reportedProblems.insert(problem).inserted {
            fail(step, "\(label): \(problem)")
        }
    }

    func invariantProblems(_ simulation: Simulation, healed: Bool) -> [String] {
        var problems: [String] = []
        let violations = simulation.violations
        problems += violations.dropFirst(reportedViolations)
        reportedViolations = violations.count
        let plantedDamage = simulation.plantedDamage
        let bytes = simulation.containerFile(FileContainer.documentName)
        var document: SettingsDocument?
        if let bytes, bytes != plantedDamage {
            do { document = try DocumentCodec.decode(bytes).document } catch {
                problems.append("the shared document does not parse: \(error) (invariant 1)")
            }
        }
        if let plantedDamage, bytes != plantedDamage,
           !(1...16).contains(where: { simulation.containerFile("settings.damaged-\($0).json") == plantedDamage }) {
            problems.append("the damaged shared document was replaced without being set aside (invariant 1)")
        }
        if let previous = simulation.containerFile(FileContainer.previousName), previous != plantedDamage,
           (try? DocumentCodec.decode(previous)) == nil {
            problems.append("the last good copy (\(FileContainer.previousName)) does not parse (invariant 1)")
        }
        let localName = ExtensionStore<ExtensionFolder, RecordingGate>.localName
        for (profile, bytes) in simulation.storageFiles(localName).sorted(by: { $0.key < $1.key }) {
            let owner = profile == Simulation.defaultProfile ? "the background's" : "profile \(profile)'s background's"
            guard let local = (try? JSONParser.parse(bytes)).flatMap(LocalStorage.decode) else {
                problems.append("\(owner) \(localName) does not parse (invariant 1)")
                continue
            }
            if healed && !local.outbox.isEmpty {
                // With a healthy handler and each profile in front once, every waiting patch must have gone out.
                problems.append("\(owner) outbox still holds \(local.outbox.count) patch(es) after healing (invariant 4)")
            }
        }
        let oracle = self.oracle
        if let document { problems += oracle.strayValues(in: document) }
        if healed, let backwards = Self.clockRanBackwards(simulation.trace.lines) {
            // Not one of the five: the harness's own clock must never run backwards.
            problems.append("virtual time ran backwards: \(backwards)")
        }
        if healed {
            if let document {
                problems += oracle.check(document, answers: simulation.editAnswers)
            } else if simulation.editAnswers.values.contains(true) {
                problems.append("edits were saved but there is no shared document (invariant 2)")
            }
            if document != nil { problems += convergence(simulation).map { $0 + " (invariant 4)" } }
        }
        return problems
    }

    // MARK: - Steps

    private func perform(_ step: Scenario.Step) throws(ScenarioError) {
        let words = step.words
        func word(_ index: Int, _ what: String) throws(ScenarioError) -> String {
            guard index < words.count else { throw error(step, "missing \(what) after '\(words[..<index].joined(separator: " "))'") }
            return words[index]
        }
        func choose(_ index: Int, _ options: [String]) throws(ScenarioError) -> String {
            let value = try word(index, options.joined(separator: "|"))
            guard options.contains(value) else {
                throw ScenarioError(file: scenario.name, line: step.line, message: "unknown word '\(value)' (expected \(options.joined(separator: ", ")))",
                                    suggestion: nearestWord(value, in: options))
            }
            return value
        }
        switch words[0] {
        case "platform":
            try setup(step)
            platform = try choose(1, ["ios", "macos"]) == "ios" ? .iOS : .macOS
        case "profile" where simulation == nil:
            // Before the first action: the profile in front at the start (its storage gets the cache).
            initialProfile = try profileName(try word(1, "a profile name"), step)
        case "epoch":
            try setup(step)
            guard let time = Timestamp.parse(try word(1, "an ISO 8601 time")) else { throw error(step, "'\(words[1])' is not an ISO 8601 time") }
            epoch = time
        case "seed":
            try setup(step)
            guard let value = UInt64(try word(1, "a number")) else { throw error(step, "'\(words[1])' is not a seed") }
            seed = value
        case "shared" where words.count > 1 && words[1] == "damaged":
            try setup(step)
            guard words.count == 2 else { throw error(step, "write 'shared damaged' alone on its line") }
            damaged = true
        case "shared" where words.count > 1 && words[1] == "legacy":
            try setup(step)
            legacyEnabled = try choose(2, ["enabled", "disabled"]) == "enabled"
        case "shared" where words.count > 1 && words[1] == "file", "cache" where words.count > 1 && words[1] == "file":
            try setup(step)
            let document = try documentFile(try word(2, "a path"), step)
            if words[0] == "cache" { cache = document } else { shared = document }
        case "shared", "cache":
            try setup(step)
            var document = (words[0] == "cache" ? cache ?? shared : shared) ?? SettingsDocument(documentId: DocumentID.created(seed: seed, at: epoch), revision: 1)
            try change(&document, step, from: 1)
            if words[0] == "cache" {
                document.revision = max(0, (shared?.revision ?? 1) - 1)
                cache = document
            } else {
                shared = document
            }
        case "settle":
            try started(at: step).settle()
        case "advance":
            try started(at: step).advance(by: try duration(try word(1, "a duration"), step))
        case "expect":
            if crashAt == nil && powerCut == nil { try expect(step) }
        default:
            try act(step, choose: choose)
            simulation?.settle(deferring: .nativeReply)
        }
    }

    private func act(_ step: Scenario.Step, choose: (Int, [String]) throws(ScenarioError) -> String) throws(ScenarioError) {
        let simulation = try started(at: step)
        let words = step.words
        func argument(_ index: Int, _ what: String) throws(ScenarioError) -> String {
            guard index < words.count else { throw error(step, "missing \(what)") }
            return words[index]
        }
        switch words[0] {
        case "app":
            switch try choose(1, ["launch", "foreground", "background", "kill", "set", "reset", "delete"]) {
            case "launch": simulation.launchApp()
            case "foreground": simulation.appForeground()
            case "background": simulation.appBackground()
            case "kill": simulation.killApp()
            case "set":
                if try choose(2, ["default", "site"]) == "default" {
                    let set = try settings(step, from: 3, allowSchedule: true)
                    let number = simulation.appEdit(.object(["kind": .string("setDefaults"), "set": set]))
                    record(number, .app, .defaults, set: set)
                } else {
                    let key = try argument(3, "a site key")
                    let set = try settings(step, from: 4, allowSchedule: false)
                    let number = simulation.appEdit(.object(["kind": .string("changeSite"), "scope": .string(key), "set": set]))
                    record(number, .app, .site(try scopeKey(key, step).text), set: set)
                }
            case "reset":
                _ = try choose(2, ["site"])
                let key = try argument(3, "a site key")
                let reset = try fields(step, from: 4)
                let number = simulation.appEdit(.object(["kind": .string("changeSite"), "scope": .string(key), "reset": .array(reset.map(JSONValue.string))]))
                record(number, .app, .site(try scopeKey(key, step).text), reset: reset)
            default:
                _ = try choose(2, ["site"])
                let key = try argument(3, "a site key")
                let number = simulation.appEdit(.object(["kind": .string("deleteSite"), "scope": .string(key)]))
                userEdits.append(UserEdit(number: number, origin: .app, at: simulation.now, target: .site(try scopeKey(key, step).text),
                                          values: Self.deletion))
            }
        case "safari":
            switch try choose(1, ["foreground", "background", "restart"]) {
            case "foreground": simulation.safariForeground()
            case "background": simulation.safariBackground()
            default: simulation.safariRestart()
            }
        case "tab":
            let verb = try choose(1, ["open", "activate", "reload", "navigate", "close", "native-dark"])
            let tab = TabID(try argument(2, "a tab name"))
            switch verb {
            case "open":
                let window = words.dropFirst(4).first { $0.hasPrefix("window=") }.flatMap { Int($0.dropFirst(7)) }
                simulation.openTab(tab, url: try argument(3, "a URL"), nativeDark: words.dropFirst(4).contains("native-dark"), window: window)
            case "activate": simulation.activateTab(tab)
            case "reload": simulation.reloadTab(tab)
            case "navigate": simulation.navigateTab(tab, to: try argument(3, "a URL"))
            case "close": simulation.closeTab(tab)
            default: simulation.setNativeDark(tab, try choose(3, ["on", "off"]) == "on")
            }
        case "popup":
            // The record a popup change goes to: the one the popup shows as selected.
            let selected: String? = if case .string(let key)? = simulation.popup?.objectValue?["selectedScope"] { key } else { nil }
            switch try choose(1, ["open", "scope", "set", "reset", "forget", "pause", "close"]) {
            case "open": simulation.openPopup(on: TabID(try argument(2, "a tab name")))
            case "scope": simulation.choosePopupScope(try scopeKey(try argument(2, "a site key"), step).text)
            case "set":
                let set = try settings(step, from: 2, allowSchedule: false)
                let number = simulation.popupEdit(set: set)
                record(number, .popup, .popupSite(shown: selected), set: set)
            case "reset":
                let reset = try fields(step, from: 2)
                let number = simulation.popupEdit(reset: reset)
                record(number, .popup, .popupSite(shown: selected), reset: reset)
            case "forget":
                let number = simulation.popupForget()
                userEdits.append(UserEdit(number: number, origin: .popup, at: simulation.now, target: .popupSite(shown: selected), values: Self.deletion))
            case "pause": simulation.popupPause(for: try duration(try argument(2, "a duration"), step))
            default: simulation.closePopup()
            }
        case "background":
            switch try choose(1, ["unload", "kill", "freeze", "thaw"]) {
            case "unload": simulation.unloadBackground()
            case "kill": simulation.killBackground()
            case "freeze": simulation.freezeBackground()
            default: simulation.thawBackground()
            }
        case "handler":
            switch try choose(1, ["healthy", "slow", "hung", "crashing", "garbage"]) {
            case "healthy": simulation.handlerBehaviour = .healthy
            case "garbage": simulation.handlerBehaviour = .garbage
            case "slow": simulation.handlerBehaviour = .slow(try duration(try argument(2, "a duration"), step))
            case "hung": simulation.handlerBehaviour = .hung
            default: simulation.handlerBehaviour = .crashing(afterWrite: try choose(2, ["before-write", "after-write"]) == "after-write")
            }
        case "hold", "crash", "fail":
            let process = try choose(1, ["app", "background", "handler"])
            _ = try choose(2, ["at"])
            let point = try yieldPoint(try choose(3, YieldPoint.allCases.map(\.rawValue)))
            switch words[0] {
            case "hold": simulation.hold(process, at: point)
            case "crash": simulation.crash(process, at: point)
            default:
                _ = try choose(4, ["with"])
                let errno: Int32 = try choose(5, ["ENOSPC", "EIO"]) == "ENOSPC" ? 28 : 5
                var after = false
                if words.count > 6 { after = try choose(6, ["after"]) == "after" }
                if after && ![.writeTemp, .rename, .storageWriteTemp, .storageRename].contains(point) {
                    throw error(step, "'after' needs a point that writes: write-temp, rename, storage-write-temp or storage-rename")
                }
                simulation.failStorage(process, at: point, errno: errno, after: after)
            }
        case "release":
            simulation.release(try choose(1, ["app", "background", "handler"]))
        case "profile":
            simulation.switchProfile(try profileName(try argument(1, "a profile name"), step))
        case "appearance":
            simulation.setAppearance(try choose(1, ["light", "dark"]) == "dark" ? .dark : .light)
        case "legacy":
            let toggle = try choose(1, ["get-enabled", "toggle"]) == "toggle"
            simulation.legacyMessage(toggle ? "toggleEnabled" : "getEnabled")
            if toggle {
                // The old extension shows the flipped state the handler answered; with no
                // answer, either state may be stored.
                if case .bool(let enabled)? = simulation.lastLegacyAnswer?.objectValue?["enabled"] {
                    userEdits.append(UserEdit(answer: .saved, origin: .popup, at: simulation.now, target: .defaults, values: ["mode": enabled ? "on" : "off"]))
                } else {
                    for value in ["on", "off"] {
                        userEdits.append(UserEdit(origin: .popup, at: simulation.now, target: .defaults, values: ["mode": value]))
                    }
                }
            }
        default:
            throw error(step, "'\(words[0])' cannot be used here")
        }
    }

    /// Every field of a site cleared: "delete this site".
    private static let deletion: [String: String?] = Dictionary(uniqueKeysWithValues: SiteField.allCases.map { ($0.rawValue, String?.none) })

    /// Keeps an edit for the oracle: `set` as the step's JSON object, `reset` as field names.
    private func record(_ number: Int, _ origin: Oracle.Origin, _ target: UserEdit.Target, set: JSONValue = .object([:]), reset: [String] = []) {
        var values: [String: String?] = [:]
        for (name, value) in set.objectValue ?? [:] {
            switch value {
            case .string(let text): values[name] = text
            case .object(let schedule):
                if case .string(let start)? = schedule["start"], case .string(let end)? = schedule["end"] { values[name] = "\(start)-\(end)" }
            default: break
            }
        }
        for name in reset { values[name] = String?.none }
        userEdits.append(UserEdit(number: number, origin: origin, at: simulation?.now ?? epoch, target: target, values: values))
    }

    // MARK: - Expectations

    private func expect(_ step: Scenario.Step) throws(ScenarioError) {
        let simulation = try started(at: step)
        let words = step.words
        guard words.count >= 2 else { throw error(step, "missing what to expect (tab, shared, first-decision, app, popup)") }
        switch words[1] {
        case "tab":
            guard words.count >= 3 else { throw error(step, "missing a tab name") }
            guard let decision = simulation.tabs[TabID(words[2])]?.applied?.objectValue else {
                return fail(step, "tab \(words[2]) has applied no decision")
            }
            try compareDecision(step, "tab \(words[2])", decision, words.dropFirst(3))
        case "first-decision":
            guard words.count >= 4 else { throw error(step, "write 'expect first-decision TAB before native-reply' or 'expect first-decision TAB theme=sepia'") }
            if words.count == 5, words[3] == "before", words[4] == "native-reply" {
                let replies = simulation.tabs[TabID(words[2])]?.nativeRepliesBeforeFirstDecision
                if replies != 0 { fail(step, "tab \(words[2])'s first decision came after \(replies.map(String.init) ?? "no decision,") native replies") }
            } else {
                guard let decision = simulation.tabs[TabID(words[2])]?.firstDecision?.objectValue else {
                    return fail(step, "tab \(words[2]) has applied no decision since it loaded")
                }
                try compareDecision(step, "tab \(words[2])'s first decision", decision, words.dropFirst(3))
            }
        case "shared":
            let document = try? DocumentCodec.decode(simulation.containerFile("settings.json") ?? []).document
            guard words.count >= 3 else { throw error(step, "missing defaults, site or tombstone") }
            switch words[2] {
            case "defaults":
                let defaults = document?.defaults ?? Defaults.builtIn
                for word in words.dropFirst(3) {
                    let (key, expected) = try pair(word, step)
                    compare(step, "shared defaults \(key)", expected, defaultsValue(defaults, key))
                }
            case "site":
                guard words.count >= 4 else { throw error(step, "missing a site key") }
                let key = try scopeKey(words[3], step)
                let record = document?.sites[key]
                if words.dropFirst(4).first == "absent" {
                    if record != nil { fail(step, "shared site \(key.text): expected absent, found \(record!.values)") }
                    return
                }
                guard let record else { return fail(step, "shared site \(key.text) is absent") }
                for word in words.dropFirst(4) {
                    let (field, expected) = try pair(word, step)
                    if expected == .string("absent") {
                        if let value = siteValue(record.values, field) { fail(step, "shared site \(key.text) \(field): expected absent, found \(value)") }
                    } else {
                        compare(step, "shared site \(key.text) \(field)", expected, siteValue(record.values, field))
                    }
                }
            case "tombstone":
                guard words.count >= 4 else { throw error(step, "missing a site key") }
                let key = try scopeKey(words[3], step)
                if document?.tombstones[key] == nil { fail(step, "shared has no tombstone for \(key.text)") }
            default:
                throw ScenarioError(file: scenario.name, line: step.line, message: "unknown word '\(words[2])'",
                                    suggestion: nearestWord(words[2], in: ["defaults", "site", "tombstone"]))
            }
        case "app":
            guard words.count >= 3 else { throw error(step, "missing sites or site") }
            var sites: [JSONValue] = []
            if case .array(let items)? = simulation.appView?.objectValue?["sites"] { sites = items }
            let keys: [JSONValue] = sites.compactMap { $0.objectValue?["key"] }
            if words[2] == "sites" {
                let expected = words.dropFirst(3).flatMap { $0.split(separator: ",").map { JSONValue.string(String($0)) } }
                compare(step, "app sites", .array(expected), .array(keys))
            } else if words[2] == "site", words.count >= 4 {
                let key = try scopeKey(words[3], step)
                guard let row = sites.first(where: { $0.objectValue?["key"] == JSONValue.string(key.text) })?.objectValue else {
                    return fail(step, "the app does not list \(key.text)")
                }
                for word in words.dropFirst(4) {
                    let (field, expected) = try pair(word, step)
                    compare(step, "app site \(key.text) \(field)", expected, row["overrides"]?.objectValue?[field])
                }
            } else {
                throw error(step, "write 'expect app sites KEY,KEY' or 'expect app site KEY field=value'")
            }
        case "converged":
            for problem in convergence(simulation) { fail(step, problem) }
        case "legacy":
            guard words.count >= 3, ["enabled", "disabled"].contains(words[2]) else { throw error(step, "write 'expect legacy enabled' or 'expect legacy disabled'") }
            compare(step, "the first version's enabled", .bool(words[2] == "enabled"), simulation.lastLegacyAnswer?.objectValue?["enabled"])
        case "popup":
            guard let view = simulation.popup?.objectValue else { return fail(step, "no popup is showing") }
            for word in words.dropFirst(2) {
                let (key, expected) = try pair(word, step)
                let actual: JSONValue? = if key.hasPrefix("source.") {
                    view["fields"]?.objectValue?[String(key.dropFirst(7))]?.objectValue?["source"]
                } else if key == "scope" {
                    view["selectedScope"]
                } else {
                    view["fields"]?.objectValue?[key]?.objectValue?["value"]
                }
                compare(step, "popup \(key)", expected, actual)
            }
        default:
            throw ScenarioError(file: scenario.name, line: step.line, message: "unknown expectation '\(words[1])'",
                                suggestion: nearestWord(words[1], in: ["tab", "shared", "first-decision", "app", "popup", "converged", "legacy"]))
        }
    }

    /// `enabled`, `disabled`, `theme=sepia`, `source.theme=default` against a decision.
    private func compareDecision(_ step: Scenario.Step, _ what: String, _ decision: [String: JSONValue], _ words: ArraySlice<String>) throws(ScenarioError) {
        for word in words {
            let (key, expected) = try pair(word, step, bare: ["enabled": "true", "disabled": "false"])
            let actual: JSONValue? = key.hasPrefix("source.") ? decision["source"]?.objectValue?[String(key.dropFirst(7))] : decision[key == "disabled" ? "enabled" : key]
            compare(step, "\(what) \(key)", expected, actual)
        }
    }

    /// Invariant 4: every visible tab, the open popup, the app if it is running and in front,
    /// and the cache once its outbox is empty agree with the shared document. Call it after a
    /// reconciliation point with a healthy handler (`settle` first).
    func convergence(_ simulation: Simulation) -> [String] {
        var problems: [String] = []
        guard let bytes = simulation.containerFile(FileContainer.documentName) else { return ["there is no shared document"] }
        let document: SettingsDocument
        do { document = try DocumentCodec.decode(bytes).document } catch { return ["the shared document does not parse: \(error)"] }
        let resolver = Resolver(document: document)
        let session = simulation.storageFile(ExtensionStore<ExtensionFolder, RecordingGate>.sessionName)
            .flatMap { try? JSONParser.parse($0) }.flatMap(SessionStorage.decode)
        for id in simulation.visibleTabs {
            guard let tab = simulation.tabs[id] else { continue }
            let context = DecisionContext(appearance: simulation.appearance, now: simulation.now, utcOffsetMinutes: 0,
                                          pausedUntil: session?.pausedUntil, pageIsNativelyDark: tab.nativeDark)
            let expected = resolver.decide(url: tab.url, context: context).json
            if tab.applied != expected {
                problems.append("tab \(id.rawValue) shows \(tab.applied.map(render) ?? "nothing"), the shared document gives \(render(expected))")
            }
        }
        if let tab = simulation.popupTab, let view = simulation.popup?.objectValue, let url = simulation.tabs[tab]?.url,
           case .success(let address) = PageAddress.parse(url) {
            let settings = resolver.settings(for: address)
            let shown = view["fields"]?.objectValue?["theme"]?.objectValue?["value"]
            if shown != .string(settings.theme.rawValue) {
                problems.append("the popup shows theme \(shown.map(render) ?? "nothing"), the shared document gives \(settings.theme)")
            }
        }
        if simulation.appIsRunning && simulation.appInForeground, let view = simulation.appView {
            let expected = AppView(document).json
            if view != expected { problems.append("the app shows \(render(view)), the shared document gives \(render(expected))") }
        }
        if let stored = simulation.storageFile(ExtensionStore<ExtensionFolder, RecordingGate>.localName).flatMap({ try? JSONParser.parse($0) }),
           let local = LocalStorage.decode(stored), local.outbox.isEmpty, let cache = local.cache, cache != document {
            problems.append("the cache (revision \(cache.revision)) differs from the shared document (revision \(document.revision))")
        }
        return problems
    }

    private func compare(_ step: Scenario.Step, _ what: String, _ expected: JSONValue, _ actual: JSONValue?) {
        guard expected != actual else { return }
        fail(step, "\(what): expected \(render(expected)), got \(actual.map(render) ?? "nothing")")
    }

    private func render(_ value: JSONValue) -> String { String(decoding: JSONWriter.compact(value), as: UTF8.self) }

    private func fail(_ step: Scenario.Step, _ message: String) {
        let tail = simulation?.trace.lines.suffix(8).map { "    " + $0 }.joined(separator: "\n") ?? ""
        failures.append("\(scenario.name):\(step.line): \(step.text)\n  \(message)\n  trace so far (last lines):\n\(tail)")
    }

    // MARK: - Values

    private func setup(_ step: Scenario.Step) throws(ScenarioError) {
        if simulation != nil { throw error(step, "'\(step.words[0])' must come before the first action") }
    }

    private func started(at step: Scenario.Step?) throws(ScenarioError) -> Simulation {
        if let simulation { return simulation }
        mkdir(directory, 0o755)
        let simulation = Simulation(platform: platform, transport: transport, seed: seed, epoch: epoch, executables: executables,
                                    directory: directory, profile: initialProfile)
        simulation.flaws = flaws
        simulation.crashAt = crashAt
        if let powerCut { simulation.cutPower(powerCut) }
        let good = shared ?? SettingsDocument(documentId: DocumentID.created(seed: seed, at: epoch), revision: 1)
        if damaged {
            let bytes = DocumentCodec.encode(good)
            let plantedDamage = Array(bytes.prefix(bytes.count / 2))
            simulation.plantedDamage = plantedDamage
            simulation.writeContainerFile(FileContainer.previousName, bytes)
            simulation.writeContainerFile(FileContainer.documentName, plantedDamage)
            startOracle = Oracle(start: good)
        } else if let shared {
            simulation.writeContainerFile(FileContainer.documentName, DocumentCodec.encode(shared))
            startOracle = Oracle(start: shared)
        } else if let legacyEnabled {
            startOracle = Oracle(legacyEnabled: legacyEnabled)
        }
        if let legacyEnabled {
            simulation.writeContainerFile(FileContainer.legacyPreferencesName, JSONWriter.compact(.object([Legacy.enabledKey: .bool(legacyEnabled)])))
        }
        if let cache {
            simulation.writeStorageFile("local.json", JSONWriter.compact(LocalStorage(cache: cache, snapshotVersion: cache.version).json))
        }
        self.simulation = simulation
        return simulation
    }

    private func error(_ step: Scenario.Step, _ message: String) -> ScenarioError {
        ScenarioError(file: scenario.name, line: step.line, message: message)
    }

    /// A settings document from a file, its path relative to the scenario's folder.
    private func documentFile(_ path: String, _ step: Scenario.Step) throws(ScenarioError) -> SettingsDocument {
        let full = path.hasPrefix("/") || folder.isEmpty ? path : folder + "/" + path
        let bytes: [UInt8]?
        do { bytes = try FileIO.read(full, name: path) } catch { throw self.error(step, "\(path): \(error)") }
        guard let bytes else { throw self.error(step, "\(path): no such file") }
        do { return try DocumentCodec.decode(bytes).document } catch { throw self.error(step, "\(path): \(error)") }
    }

    /// `defaults k=v ...` or `site KEY k=v ...` applied to a starting document.
    private func change(_ document: inout SettingsDocument, _ step: Scenario.Step, from index: Int) throws(ScenarioError) {
        let words = step.words
        guard index < words.count else { throw error(step, "missing defaults or site") }
        let stamp = Stamp(at: epoch)
        do {
            if words[index] == "defaults" {
                let values = try settings(step, from: index + 1, allowSchedule: true)
                for (key, value) in values.objectValue ?? [:] {
                    guard case .string(let text) = value else { continue }
                    switch key {
                    case "mode": document.defaults.mode = Mode(rawValue: text)!
                    case "theme": document.defaults.theme = Theme(rawValue: text)
                    case "nativeDarkPolicy": document.defaults.nativeDarkPolicy = NativeDarkPolicy(rawValue: text)!
                    default: document.defaults.schedule = schedule(text)!
                    }
                }
            } else if words[index] == "site", index + 1 < words.count {
                let key = try scopeKey(words[index + 1], step)
                let set = try settings(step, from: index + 2, allowSchedule: false).objectValue ?? [:]
                var values = document.sites[key]?.values ?? SiteValues()
                if case .string(let mode)? = set["mode"] { values.mode = Mode(rawValue: mode) }
                if case .string(let theme)? = set["theme"] { values.theme = Theme(rawValue: theme) }
                if case .string(let policy)? = set["nativeDarkPolicy"] { values.nativeDarkPolicy = NativeDarkPolicy(rawValue: policy) }
                var changed: [SiteField: Stamp] = [:]
                for field in values.fields { changed[field] = stamp }
                document.sites[key] = SiteRecord(values: values, changedAt: changed)
            } else {
                throw ScenarioError(file: scenario.name, line: step.line, message: "unknown word '\(words[index])'",
                                    suggestion: nearestWord(words[index], in: ["defaults", "site"]))
            }
        }
    }

    /// `mode=on theme=gray nativeDarkPolicy=respect schedule=20:00-06:00` as a JSON object, each
    /// value checked.
    private func settings(_ step: Scenario.Step, from index: Int, allowSchedule: Bool) throws(ScenarioError) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for word in step.words.dropFirst(index) {
            let (key, value) = try pair(word, step)
            guard case .string(let text) = value else { throw error(step, "'\(word)' needs a word after '='") }
            let known = allowSchedule ? ["mode", "theme", "nativeDarkPolicy", "schedule"] : ["mode", "theme", "nativeDarkPolicy"]
            guard known.contains(key) else {
                throw ScenarioError(file: scenario.name, line: step.line, message: "unknown field '\(key)'", suggestion: nearestWord(key, in: known))
            }
            let valid = switch key {
            case "mode": Mode(rawValue: text) != nil
            case "theme": Theme(rawValue: text).isKnown
            case "nativeDarkPolicy": NativeDarkPolicy(rawValue: text) != nil
            default: schedule(text) != nil
            }
            guard valid else { throw error(step, "'\(text)' is not a valid \(key)") }
            if key == "schedule", let window = schedule(text) {
                object[key] = .object(["start": .string(window.start.description), "end": .string(window.end.description)])
            } else {
                object[key] = .string(text)
            }
        }
        if object.isEmpty { throw error(step, "missing field=value pairs") }
        return .object(object)
    }

    private func fields(_ step: Scenario.Step, from index: Int) throws(ScenarioError) -> [String] {
        let names = Array(step.words.dropFirst(index))
        if names.isEmpty { throw error(step, "missing the fields to reset") }
        for name in names where SiteField(rawValue: name) == nil {
            throw ScenarioError(file: scenario.name, line: step.line, message: "unknown field '\(name)'",
                                suggestion: nearestWord(name, in: SiteField.allCases.map(\.rawValue)))
        }
        return names
    }

    /// `key=value` (a bare word may stand for a pair, as `enabled` for `enabled=true`).
    private func pair(_ word: String, _ step: Scenario.Step, bare: [String: String] = [:]) throws(ScenarioError) -> (String, JSONValue) {
        if let value = bare[word] { return (word, .bool(value == "true")) }
        let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw error(step, "'\(word)' is not key=value") }
        switch parts[1] {
        case "true": return (parts[0], .bool(true))
        case "false": return (parts[0], .bool(false))
        case "null": return (parts[0], .null)
        default: return (parts[0], .string(parts[1]))
        }
    }

    /// A Safari profile's name: lower-case letters, digits and hyphens.
    private func profileName(_ text: String, _ step: Scenario.Step) throws(ScenarioError) -> String {
        let allowed = text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
        guard !text.isEmpty, text.utf8.count <= 32, allowed else { throw error(step, "'\(text)' is not a profile name (lower-case letters, digits, '-')") }
        return text
    }

    private func scopeKey(_ text: String, _ step: Scenario.Step) throws(ScenarioError) -> ScopeKey {
        do { return try ScopeKey.parse(text) } catch { throw ScenarioError(file: scenario.name, line: step.line, message: "\(text): \(error)") }
    }

    private func schedule(_ text: String) -> Schedule? {
        let parts = text.split(separator: "-").map(String.init)
        guard parts.count == 2, let start = TimeOfDay(parts[0]), let end = TimeOfDay(parts[1]) else { return nil }
        return Schedule(start: start, end: end)
    }

    private func yieldPoint(_ text: String) throws(ScenarioError) -> YieldPoint { YieldPoint(rawValue: text)! }

    /// `30s`, `500ms`, `2m`, `1h`.
    private func duration(_ text: String, _ step: Scenario.Step) throws(ScenarioError) -> EpochMillis {
        let units: [(String, EpochMillis)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (unit, scale) in units where text.hasSuffix(unit) {
            if let value = Int64(text.dropLast(unit.count)), value >= 0, value < 10_000_000 { return value * scale }
        }
        throw error(step, "'\(text)' is not a duration (30s, 500ms, 2m, 1h)")
    }

    private func defaultsValue(_ defaults: Defaults, _ key: String) -> JSONValue? {
        switch key {
        case "mode": .string(defaults.mode.rawValue)
        case "theme": .string(defaults.theme.rawValue)
        case "nativeDarkPolicy": .string(defaults.nativeDarkPolicy.rawValue)
        case "schedule": .string("\(defaults.schedule.start)-\(defaults.schedule.end)")
        default: nil
        }
    }

    private func siteValue(_ values: SiteValues, _ field: String) -> JSONValue? {
        switch field {
        case "mode": values.mode.map { .string($0.rawValue) }
        case "theme": values.theme.map { .string($0.rawValue) }
        case "nativeDarkPolicy": values.nativeDarkPolicy.map { .string($0.rawValue) }
        default: nil
        }
    }
}

extension JSONValue {
    /// The members of an object, or nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
