@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

struct NativeFuzzTests {
    @Test func aSeededBatchIsHandledAsItsLabelsSay() {
        let tally = NativeFuzz.runInProcess(seed: 7, from: 0, count: 3_000)
        #expect(tally.wrong == 0, "\(tally.examples)")
        #expect(tally.sent == 3_000 && tally.answered == 3_000)
        #expect(tally.applied > 1_000 && tally.rejected > 1_000)
    }

    @Test func theMutationsCoverTheCatalogue() {
        var kinds: Set<String> = []
        for index in 0..<3_000 {
            let kind = NativeFuzz.mutant(seed: 7, index: index).kind
            kinds.insert(kind.split(separator: "/").last.map { String($0.split(separator: ":")[0]) } ?? kind)
        }
        for expected in ["truncated", "invalid-utf8", "raw-nul", "unknown-type", "deep-nesting", "unknown-member", "not-an-object",
                         "hostile-scope", "huge-scope", "future-time", "negative-time", "time-in-seconds", "wrong-type", "missing",
                         "unknown-theme", "set-and-reset", "bad-known", "time-at-the-tolerance", "patch", "getSnapshot", "toggleEnabled"] {
            #expect(kinds.contains(expected), "no \(expected) message in the first 3,000")
        }
    }

    @Test func theSameSeedAndIndexGiveTheSameMessage() {
        for index in [0, 1, 999, 123_456] {
            #expect(NativeFuzz.mutant(seed: 3, index: index).bytes == NativeFuzz.mutant(seed: 3, index: index).bytes)
        }
        #expect(NativeFuzz.mutant(seed: 3, index: 5).bytes != NativeFuzz.mutant(seed: 4, index: 5).bytes)
    }

    /// The judge can fail: a refused valid message, an accepted invalid one, and an invalid one
    /// that changed a file are each counted as wrong.
    @Test func theJudgeCountsEveryWrongAnswer() {
        let valid = NativeFuzz.Mutant(bytes: Array(#"{"type":"getEnabled"}"#.utf8), valid: true, kind: "getEnabled")
        let invalid = NativeFuzz.Mutant(bytes: Array(#"{"type":"nope"}"#.utf8), valid: false, kind: "unknown-type")
        let files = [FileContainer.documentName: NativeFuzz.document]
        let refusal = NativeFuzz.Answer.reply(NativeReply.error(.invalidMessage, "no").json)
        // The sample document's default mode is auto: not enabled.
        let fine = NativeFuzz.Answer.reply(NativeReply.enabled(false).json)
        var tally = NativeFuzz.Tally()
        NativeFuzz.judge(valid, index: 0, answer: refusal, before: files, after: files, into: &tally)
        NativeFuzz.judge(invalid, index: 1, answer: fine, before: files, after: files, into: &tally)
        NativeFuzz.judge(invalid, index: 2, answer: refusal, before: files, after: [FileContainer.documentName: [1]], into: &tally)
        NativeFuzz.judge(valid, index: 3, answer: .none("died"), before: files, after: files, into: &tally)
        #expect(tally.wrong == 4 && tally.applied == 0 && tally.rejected == 0 && tally.answered == 3)
        NativeFuzz.judge(valid, index: 4, answer: fine, before: files, after: files, into: &tally)
        NativeFuzz.judge(invalid, index: 5, answer: .errorFrame("unreadable"), before: files, after: files, into: &tally)
        #expect(tally.wrong == 4 && tally.applied == 1 && tally.rejected == 1)
        // A valid read answered with the wrong value is wrong too.
        NativeFuzz.judge(valid, index: 6, answer: .reply(NativeReply.enabled(true).json), before: files, after: files, into: &tally)
        #expect(tally.wrong == 5)
    }
}
