import ProcessKit
import SiteSettings

/// The user's edits in a run and what came of them: each edit's number, when the app took it,
/// and the answer the app or the popup gave, as the oracle and the expectations read them.
struct EditLedger {
    /// The answer to each user edit, by the number `appEdit`, `popupEdit` or `popupForget`
    /// returned: saved (the app wrote it; the popup made it durable in the outbox) or refused.
    /// An edit with no answer was lost with its process or is still under way.
    private(set) var answers: [Int: Bool] = [:]
    /// What the app answered each of its edits, by edit number (none: no answer yet).
    private(set) var appAnswers: [Int: AppAnswer] = [:]
    /// The record each answered popup change went to, as the background reports it.
    private(set) var popupScopes: [Int: String] = [:]
    /// When the app took each of its edits (it stamps them then).
    private(set) var appTimes: [Int: EpochMillis] = [:]
    /// The app's answer to its last edit (`editSaved` or `editRefused`).
    private(set) var lastAppAnswer: AppWire.Output?
    private var nextNumber = 1
    /// The app's edits delivered to its current incarnation and not yet answered, oldest first
    /// (the app answers its edits in order).
    private var appUnanswered: [Int] = []

    /// The number of a new edit.
    mutating func newNumber() -> Int {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// The app took an edit: it owes an answer, after those it owes already.
    mutating func appTook(_ edit: Int, at now: EpochMillis) {
        appUnanswered.append(edit)
        appTimes[edit] = now
    }

    /// The app answered its oldest edit still unanswered (`editSaved` or `editRefused`).
    mutating func appAnswered(_ answer: AppWire.Output) {
        lastAppAnswer = answer
        guard !appUnanswered.isEmpty else { return }
        let edit = appUnanswered.removeFirst()
        switch answer {
        case .editRefused(.storageFailure, _):
            // A storage failure may have struck after the write took effect: no answer
            // for the oracle, though the app told the user it failed.
            appAnswers[edit] = .refused
        case .editRefused:
            appAnswers[edit] = .refused
            answers[edit] = false
        default:
            appAnswers[edit] = .saved
            answers[edit] = true
        }
    }

    /// The background reported what became of a popup change: `saved` nil when the save
    /// failed, perhaps after it took effect (no answer); `scope` the record it went to.
    mutating func popupAnswered(_ edit: Int, saved: Bool?, scope: String?) {
        if let saved { answers[edit] = saved }
        if let scope { popupScopes[edit] = scope }
    }

    /// The app is gone: the edits it took and did not answer never will be.
    mutating func appGone() { appUnanswered = [] }
}
