import ProcessKit
import SiteSettings
import Synchronization

/// The user's edits in a soak and what became of each, for the oracle (invariant 2).
///
/// Every edit is recorded before its frame is written, stamped with the time in that frame:
/// the time the app, the background or the handler took it. So any edit that can be on disk is
/// known here, and the oracle's rule (each field ends with the value of the last edit made to
/// it; a saved edit must be there unless a later one replaced it) applies as it does in
/// step-by-step runs. While the run goes on, only answers that mean "on the shared document"
/// count: the app's saves and the first version's toggles; a popup change saved in the outbox
/// has not reached the document yet. After healing, every answer counts.
final class SoakEdits: Sendable {
    enum Target: Sendable {
        case defaults
        case site(String)
        /// A popup change: the record the background names when it answers, until then any of
        /// its page's records.
        case popup(possible: [String])
        /// The first version's `toggleEnabled`: it flips `defaults.mode`, so what it stored is
        /// known only from its answer.
        case toggle
    }

    private struct Edit: Sendable {
        var number: Int
        var origin: Oracle.Origin
        var at: EpochMillis
        var target: Target
        var values: [String: String?]
    }

    private struct State {
        var edits: [Edit] = []
        /// Answers by edit number: saved or refused (the latest, for a popup change answered twice).
        var answers: [Int: Bool] = [:]
        var popupScopes: [Int: String] = [:]
        /// What each answered toggle left `defaults.mode` as.
        var toggled: [Int: Bool] = [:]
        var next = 1
    }

    private let state = Mutex(State())

    /// Records an edit about to be sent and returns its number (a popup change's message number too).
    func record(_ origin: Oracle.Origin, at: EpochMillis, _ target: Target, values: [String: String?] = [:]) -> Int {
        state.withLock { state in
            let number = state.next
            state.next += 1
            state.edits.append(Edit(number: number, origin: origin, at: at, target: target, values: values))
            return number
        }
    }

    func answer(_ number: Int, saved: Bool) {
        state.withLock { $0.answers[number] = saved }
    }

    func popupAnswer(_ number: Int, saved: Bool?, scope: String?) {
        state.withLock { state in
            // No answer (`saved` nil): the save failed and may or may not have reached the disk.
            if let saved { state.answers[number] = saved }
            if let scope { state.popupScopes[number] = scope }
        }
    }

    func toggled(_ number: Int, enabled: Bool) {
        state.withLock { state in
            state.toggled[number] = enabled
            state.answers[number] = true
        }
    }

    /// Edits acknowledged: saved by the app, in the outbox for the popup, answered toggles.
    var acknowledged: Int { state.withLock { $0.answers.values.count(where: { $0 }) } }

    /// The answers that vouch for the shared document now: all of them once `healed`, else the
    /// app's and the toggles'. Take them before reading the document, and the oracle after:
    /// an edit answered after the read may have landed after it too, and one sent after the
    /// oracle was built cannot be on a document read before it.
    func answers(healed: Bool) -> [Int: Bool] {
        state.withLock { state in
            guard !healed else { return state.answers }
            var answers: [Int: Bool] = [:]
            for edit in state.edits where edit.origin == .app || state.toggled[edit.number] != nil {
                answers[edit.number] = state.answers[edit.number]
            }
            return answers
        }
    }

    /// The oracle over every edit recorded so far, from a run that began with no document.
    func oracle() -> Oracle {
        let (edits, scopes, toggled) = state.withLock { ($0.edits, $0.popupScopes, $0.toggled) }
        var oracle = Oracle(start: nil)
        for edit in edits {
            switch edit.target {
            case .defaults:
                oracle.record(number: edit.number, at: edit.at, origin: edit.origin, values: Self.fields(edit.values) { Oracle.defaults($0) })
            case .site(let key):
                oracle.record(number: edit.number, at: edit.at, origin: edit.origin, values: Self.fields(edit.values) { Oracle.site(key, $0) })
            case .popup(let possible):
                if let key = scopes[edit.number] {
                    oracle.record(number: edit.number, at: edit.at, origin: .popup, values: Self.fields(edit.values) { Oracle.site(key, $0) })
                } else {
                    // Its record cannot be told: each of its page's records may or may not hold it.
                    for key in possible {
                        oracle.record(number: nil, at: edit.at, origin: .popup, values: Self.fields(edit.values) { Oracle.site(key, $0) })
                    }
                }
            case .toggle:
                if let enabled = toggled[edit.number] {
                    oracle.record(number: edit.number, at: edit.at, origin: .popup, source: "legacy",
                                  values: [Oracle.defaults("mode"): enabled ? "on" : "off"])
                } else {
                    for value in ["on", "off"] {
                        oracle.record(number: nil, at: edit.at, origin: .popup, source: "legacy", values: [Oracle.defaults("mode"): value])
                    }
                }
            }
        }
        return oracle
    }

    private static func fields(_ values: [String: String?], _ field: (String) -> Oracle.Field) -> [Oracle.Field: String?] {
        Dictionary(uniqueKeysWithValues: values.map { (field($0.key), $0.value) })
    }
}
