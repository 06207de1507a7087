import SiteSettings

/// The reference extension's content script in one page, as a value: when it asks the
/// background for the page's decision, and what it does with what comes back. It asks when it
/// starts in a page and whenever the page becomes visible again (`visibilitychange`); it applies
/// every decision the background sends it, asked for or not. When the background dies before
/// answering, Safari resolves the script's `runtime.sendMessage` with nothing (`undefined`, no
/// error: WebKit's `runtimeSendMessage` collects replies in an `EagerCallbackAggregator`
/// whose default is an empty reply), and so it does when no listener takes the question (a new
/// version's background that has not registered its listeners yet). The script asks again, at
/// once after the first empty answer and then after a pause, a few times in a row at most, so
/// that a background that dies at every start is not woken for ever, and one still loading has
/// time to register its listeners.
///
/// Safari (the harness) runs one per page and feeds it what happened; like the other machines
/// it reads no clock and starts nothing.
public struct ContentScriptMachine: Equatable, Sendable {
    /// Something that happened to the script.
    public enum Input: Equatable, Sendable {
        /// It starts in the page: the page loaded, or a new version of the extension was
        /// injected into it, or Safari restored it.
        case started
        /// The page became visible (its tab activated, Safari in front).
        case becameVisible
        /// The background sent a decision: the answer to its question, or one it pushed.
        case decisionArrived(Decision)
        /// Its question came back empty: the background died before answering, or no listener
        /// took it.
        case emptyAnswer
        /// The pause it took before asking again (`askAfter`) is over.
        case pauseEnded
    }

    /// What the script does.
    public enum Directive: Equatable, Sendable {
        /// `runtime.sendMessage`: ask the background for the page's decision.
        case ask
        /// Ask again once this many milliseconds have passed (`setTimeout`); `pauseEnded` says so.
        case askAfter(Int)
        /// Apply the decision to the page.
        case apply(Decision)
        /// Its questions came back empty this many times in a row: it stops asking until the
        /// page becomes visible again or reloads.
        case stopAsking(emptyAnswers: Int)
    }

    /// How many empty answers in a row the script asks again after.
    public static let asksAfterEmptyAnswers = 3

    /// The pause before it asks again after its first, second and third empty answer in a row,
    /// in milliseconds: none after the first (a background that died under the question is
    /// loaded again by the next), then half a second and two: a background that loads a new
    /// version has that long to register its listeners (2.5 s in all, half the background's
    /// native timeout, within which every page must have its decision).
    public static let pausesBeforeAskingAgain = [0, 500, 2_000]

    /// Known bugs switched on for this run (the one that concerns a content script:
    /// `content-script-asks-once`).
    public let flaws: Set<Flaw>
    /// It asked and has had no decision since.
    public private(set) var waitingForAnswer = false
    /// Empty answers since its last decision or its last fresh question.
    public private(set) var emptyAnswersInARow = 0
    /// It waits for the end of a pause before asking again.
    public private(set) var pausing = false

    public init(flaws: Set<Flaw> = []) {
        self.flaws = flaws
    }

    /// Acts on what happened; returns what the script does, in order.
    public mutating func handle(_ input: Input) -> [Directive] {
        switch input {
        case .started, .becameVisible:
            emptyAnswersInARow = 0
            waitingForAnswer = true
            pausing = false
            return [.ask]
        case .decisionArrived(let decision):
            emptyAnswersInARow = 0
            waitingForAnswer = false
            pausing = false
            return [.apply(decision)]
        case .pauseEnded:
            guard pausing, waitingForAnswer else { return [] }
            pausing = false
            return [.ask]
        case .emptyAnswer:
            guard waitingForAnswer else { return [] }
            emptyAnswersInARow += 1
            if flaws.contains(.contentScriptAsksOnce) { return [] }
            guard emptyAnswersInARow <= Self.asksAfterEmptyAnswers else {
                waitingForAnswer = false
                return [.stopAsking(emptyAnswers: emptyAnswersInARow)]
            }
            let pause = Self.pausesBeforeAskingAgain[emptyAnswersInARow - 1]
            guard pause > 0 else { return [.ask] }
            pausing = true
            return [.askAfter(pause)]
        }
    }
}
