import ProcessKit
import SiteSettings

/// A tab as Safari keeps it: its page, the content script running in it (product code, with the
/// look it last applied to the page), and what the checks need to know of its waits.
struct SafariTab: Sendable {
    /// The window it is in (macOS has several, all visible at once; iOS shows one).
    var window: Int
    var url: String
    var nativeDark: Bool
    /// The look on the page: the decision its content script last applied (a script injected
    /// by an update or a restore finds the page as the last one left it).
    var applied: Decision?
    /// The content script in the page.
    var script: ContentScriptMachine
    /// Its content script asked and Safari has not resolved the question: no decision came,
    /// and no background died under it since.
    var questionPending = false
    /// Its questions that came back empty in a row, as Safari resolved them (a background died
    /// before answering, or had no listener); none since its last decision or fresh question.
    var emptyAnswersInARow = 0
    /// Of those, the questions no listener took (the background lacked one): the extension's
    /// own doing, which excuses no wait.
    var unheardQuestions = 0
    /// Since when the page has been waiting for an answer it can get (liveness 6: within the
    /// background's native timeout); nil while it waits for nothing or cannot be answered.
    var waitingSince: EpochMillis?
    /// Its last question died with its background (a fault the scenario chose): the next one it
    /// asks, at once, after a pause or afresh, gets a whole timeout.
    var questionDied = false
    /// When its content script's pause before asking again ends (`ContentScriptMachine.askAfter`);
    /// nil when it takes none.
    var asksAgainAt: EpochMillis?
    /// When its content script last applied a decision.
    var decidedAt: EpochMillis?
    /// When it applied its first decision since it (re)loaded.
    var firstDecisionAt: EpochMillis?
    /// The first decision it applied since it (re)loaded: a flash of the wrong look shows here.
    var firstDecision: Decision?
    /// How many native replies the background had received by its first decision
    /// (invariant 5: a background with a cache answers before any).
    var nativeRepliesBeforeFirstDecision: Int?
    /// Native replies delivered when the page (re)loaded, to count those before its first decision.
    var repliesAtLoad = 0

    /// A decision came, or the page asks afresh: no empty answer counts any more.
    mutating func answersInARowForgotten() {
        emptyAnswersInARow = 0
        unheardQuestions = 0
    }

    init(window: Int, url: String, nativeDark: Bool, script: ContentScriptMachine, repliesAtLoad: Int) {
        self.window = window
        self.script = script
        self.url = url
        self.nativeDark = nativeDark
        self.repliesAtLoad = repliesAtLoad
    }
}
