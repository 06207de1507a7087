import ProcessKit
import SiteSettings

/// Two backgrounds on one schedule (an extension's JavaScript and the built-in one): after
/// every `settle` and once healed, what a user and the other processes can see must agree.
/// That is the visible tabs' decisions, the front profile's cache and outbox in the documented
/// layout, and the shared document, with revisions and document ids left out (two runs number
/// their saves alike only by chance), and with them the edit numbers of the app's stamps, which
/// are the revisions the app wrote at.
package enum Differential {
    /// What the run shows at one moment, as canonical JSON text.
    static func observation(of simulation: Simulation) -> String {
        var tabs: [String: JSONValue] = [:]
        for tab in simulation.visibleTabs { tabs[tab.rawValue] = simulation.tabs[tab]?.applied.map(\.json) ?? .null }
        var local = simulation.storedLocal
        local?.snapshotVersion = nil
        if var cache = local?.cache {
            anonymize(&cache)
            local?.cache = cache
        }
        var shared = simulation.files.containerFile(FileContainer.documentName).flatMap { try? DocumentCodec.decode($0).document }
        if var document = shared {
            anonymize(&document)
            shared = document
        }
        let observed: JSONValue = .object(["tabs": .object(tabs), "storage.local": local?.json ?? .null,
                                           "shared": shared.map(DocumentCodec.json) ?? .null])
        return String(decoding: JSONWriter.compact(observed), as: UTF8.self)
    }

    private static func anonymize(_ document: inout SettingsDocument) {
        document.revision = 0
        document.documentId = nil
        func unnumbered(_ stamp: Stamp) -> Stamp { stamp.origin == .app ? Stamp(at: stamp.at, origin: .app) : stamp }
        document.defaults.changedAt = document.defaults.changedAt.mapValues(unnumbered)
        document.sites = document.sites.mapValues { record in
            var record = record
            record.changedAt = record.changedAt.mapValues(unnumbered)
            return record
        }
        document.tombstones = document.tombstones.mapValues { $0.mapValues(unnumbered) }
    }

    /// The first moment two runs' observations part, said as a failure's message; nil when they
    /// agree throughout. `ours` names the run under test, `reference` the other.
    static func difference(_ ours: [ScenarioRunner.Observation], _ reference: [ScenarioRunner.Observation],
                                   ours name: String, reference referenceName: String) -> (line: Int, message: String)? {
        for (mine, theirs) in zip(ours, reference) where mine.text != theirs.text || mine.line != theirs.line {
            return (mine.line, "\(mine.healed ? "after the run (healed)" : "after this settle"), \(name) and \(referenceName) differ: "
                    + describe(mine.text, theirs.text, ours: name, reference: referenceName))
        }
        guard ours.count != reference.count else { return nil }
        let line = (ours.count < reference.count ? reference : ours)[min(ours.count, reference.count)].line
        return (line, "\(name) observed \(ours.count) moments and \(referenceName) \(reference.count): one run stopped short")
    }

    /// The members that differ, each side by side, by their path (`tabs.t1.theme`); the first
    /// few only.
    private static func describe(_ a: String, _ b: String, ours: String, reference: String) -> String {
        guard let left = try? JSONParser.parse(Array(a.utf8)), let right = try? JSONParser.parse(Array(b.utf8)) else { return "\(a) against \(b)" }
        var parts: [String] = []
        func text(_ value: JSONValue?) -> String { value.map { String(decoding: JSONWriter.compact($0), as: UTF8.self) } ?? "nothing" }
        func compare(_ left: JSONValue?, _ right: JSONValue?, at path: String) {
            guard left != right, parts.count < 6 else { return }
            if case .object(let l)? = left, case .object(let r)? = right {
                for key in Set(l.keys).union(r.keys).sorted() { compare(l[key], r[key], at: path.isEmpty ? key : path + "." + key) }
            } else {
                parts.append("\(path): \(ours) has \(text(left)), \(reference) has \(text(right))")
            }
        }
        compare(left, right, at: "")
        return parts.joined(separator: "; ")
    }
}

extension Differential {
    /// Plays `scenario` again with the built-in background in process, as `reference` runs
    /// it, and adds to `outcome` (the run under test, which recorded its observations) the
    /// first moment the two part, as a `difference` failure.
    package static func check(_ outcome: inout ScenarioRunner.Outcome, of scenario: Scenario, reference runner: ScenarioRunner) throws(ScenarioErrors) {
        func cannotCompare(_ reason: String, at line: Scenario.Line?) {
            outcome.marks.failures.append(RunMarks.Failure(line: line?.number ?? 0, step: line?.text ?? "", property: .run, message: reason, afterHealing: false,
                                                           traceIndex: outcome.log.entries.count, at: outcome.epoch))
            outcome.failures.append("\(scenario.name)\(line.map { ":\($0.number)" } ?? ""): \(reason)")
        }
        // The decisions tabs show are what is compared, and an extension's own pages show none.
        if let pages = scenario.lines.first(where: { if case .extensionFolder(_, pages: true) = $0.step { true } else { false } }) {
            cannotCompare("a differential run compares the decisions tabs show, and this scenario's extension runs its own pages, which show none", at: pages)
            return
        }
        runner.recordsObservations = true
        runner.ignoresExtensionStep = true
        let reference = try runner.run()
        if let reason = reference.skipped {
            cannotCompare("the built-in background's run could not be played: \(reason)", at: scenario.lines.first)
            return
        }
        guard let (line, message) = difference(outcome.observations, reference.observations, ours: "the extension", reference: "the built-in background") else {
            return
        }
        let step = scenario.lines.first { $0.number == line }?.text ?? ""
        outcome.marks.failures.append(RunMarks.Failure(line: line, step: step, property: .difference, message: message, afterHealing: false,
                                                       traceIndex: outcome.log.entries.count, at: outcome.epoch + outcome.virtualTime))
        outcome.failures.append("\(scenario.name):\(line): \(step)\n  \(message)")
    }
}
