import ProcessKit
import SiteSettings
import Testing

/// The reference content script's policy, by inputs and the complete list of what it does.
struct ContentScriptMachineTests {
    private let decision = Resolver(document: SettingsDocument()).decide(
        url: "https://docs.example.com/",
        context: DecisionContext(appearance: .light, now: 0, utcOffsetMinutes: 0, pausedUntil: nil, pageIsNativelyDark: false))

    @Test func itAsksWhenItStartsAndWhenThePageShowsAndAppliesEveryDecision() {
        var script = ContentScriptMachine()
        #expect(script.handle(.started) == [.ask])
        #expect(script.waitingForAnswer)
        #expect(script.handle(.decisionArrived(decision)) == [.apply(decision)])
        #expect(!script.waitingForAnswer)
        // A decision pushed unasked is applied too; an empty answer to no question does nothing.
        #expect(script.handle(.decisionArrived(decision)) == [.apply(decision)])
        #expect(script.handle(.emptyAnswer) == [])
        #expect(script.handle(.becameVisible) == [.ask])
    }

    @Test func anEmptyAnswerIsAskedAgainAtOnceThenAfterPausesThreeTimesInARowThenItStopsUntilThePageShowsAgain() {
        var script = ContentScriptMachine()
        _ = script.handle(.started)
        #expect(script.handle(.emptyAnswer) == [.ask])
        #expect(script.handle(.emptyAnswer) == [.askAfter(500)])
        #expect(script.pausing)
        #expect(script.handle(.pauseEnded) == [.ask])
        #expect(script.handle(.pauseEnded) == [], "a pause ends once")
        #expect(script.handle(.emptyAnswer) == [.askAfter(2_000)])
        #expect(script.handle(.pauseEnded) == [.ask])
        #expect(script.emptyAnswersInARow == ContentScriptMachine.asksAfterEmptyAnswers)
        #expect(script.handle(.emptyAnswer) == [.stopAsking(emptyAnswers: 4)])
        #expect(!script.waitingForAnswer)
        #expect(script.handle(.emptyAnswer) == [], "it asked nothing more")
        #expect(script.handle(.becameVisible) == [.ask])
        #expect(script.emptyAnswersInARow == 0)
        #expect(script.handle(.emptyAnswer) == [.ask])
    }

    /// A decision, or a fresh question as the page shows, ends a pause: its end asks nothing.
    @Test func aDecisionOrAFreshQuestionEndsAPause() {
        var script = ContentScriptMachine()
        _ = script.handle(.started)
        _ = script.handle(.emptyAnswer)
        #expect(script.handle(.emptyAnswer) == [.askAfter(500)])
        #expect(script.handle(.decisionArrived(decision)) == [.apply(decision)])
        #expect(script.handle(.pauseEnded) == [])
        _ = script.handle(.becameVisible)
        _ = script.handle(.emptyAnswer)
        #expect(script.handle(.emptyAnswer) == [.askAfter(500)])
        #expect(script.handle(.becameVisible) == [.ask])
        #expect(script.handle(.pauseEnded) == [])
    }

    @Test func withTheAsksOnceFlawAnEmptyAnswerIsTheEnd() {
        var script = ContentScriptMachine(flaws: [.contentScriptAsksOnce])
        #expect(script.handle(.started) == [.ask])
        #expect(script.handle(.emptyAnswer) == [])
        #expect(script.waitingForAnswer, "it still has no decision")
    }
}
