@testable import HarnessCore
import SiteSettings
import Testing

struct OracleTests {
    static let start: SettingsDocument = {
        var document = SettingsDocument(documentId: "DOC-1", revision: 3)
        document.defaults.theme = .gray
        document.sites[try! ScopeKey.parse("a.example")] = SiteRecord(values: SiteValues(theme: .sepia), changedAt: [.theme: Stamp(at: 1)])
        return document
    }()

    /// The start with `change` made to it by hand.
    private func document(_ change: (inout SettingsDocument) -> Void) -> SettingsDocument {
        var document = Self.start
        change(&document)
        return document
    }

    private func site(_ key: String) -> ScopeKey { try! ScopeKey.parse(key) }

    @Test func theStartingDocumentIsPredictedWhenNothingWasEdited() {
        let oracle = Oracle(start: Self.start)
        #expect(oracle.check(Self.start, answers: [:]).isEmpty)
        let lost = document { $0.sites[site("a.example")] = nil }
        #expect(oracle.check(lost, answers: [:]).map(\.description) == ["site a.example theme: the user's edits give sepia, the shared document has absent (which no edit gave) (invariant 2)"])
    }

    @Test func aSavedEditMustBeThereAndARefusedOneMustNot() {
        var oracle = Oracle(start: Self.start)
        oracle.record(number: 1, at: 10, origin: .popup, values: [Oracle.site("b.example", "mode"): "off"], line: 7)
        let landed = document { $0.sites[site("b.example")] = SiteRecord(values: SiteValues(mode: .off), changedAt: [.mode: Stamp(at: 10)]) }
        #expect(oracle.check(landed, answers: [1: true]).isEmpty)
        // The message names the edit that was lost, and where the value found came from.
        #expect(oracle.check(Self.start, answers: [1: true]).map(\.description) == ["site b.example mode: the user's edits give off (the popup's edit on line 7, saved), the shared document has absent (its starting value) (invariant 2)"])
        oracle.record(number: 2, at: 5, origin: .app, values: [Oracle.site("b.example", "mode"): "on"], line: 4)
        let older = document { $0.sites[site("b.example")] = SiteRecord(values: SiteValues(mode: .on), changedAt: [.mode: Stamp(at: 5)]) }
        #expect(oracle.check(older, answers: [1: true, 2: true]).map(\.description) == ["site b.example mode: the user's edits give off (the popup's edit on line 7, saved), the shared document has on (as the app's edit on line 4 gave it) (invariant 2)"])
        #expect(oracle.check(landed, answers: [1: false]).count == 1, "a refused edit landed")
        // No answer: lost with its process or still on its way, so either is right.
        #expect(oracle.check(landed, answers: [:]).isEmpty)
        #expect(oracle.check(Self.start, answers: [:]).isEmpty)
    }

    @Test func theLastEditWinsAndAtTheSameInstantTheAppWins() {
        var oracle = Oracle(start: Self.start)
        let theme = Oracle.defaults("theme")
        oracle.record(number: 1, at: 20, origin: .app, values: [theme: "dark"])
        oracle.record(number: 2, at: 20, origin: .popup, values: [theme: "sepia"])
        oracle.record(number: 3, at: 10, origin: .app, values: [theme: "invert"])
        let answers = [1: true, 2: true, 3: true]
        #expect(oracle.check(document { $0.defaults.theme = .dark }, answers: answers).isEmpty)
        #expect(oracle.check(document { $0.defaults.theme = .sepia }, answers: answers).count == 1)
    }

    @Test func aDeletionClearsEveryFieldUntilANewerEditSetsOne() {
        var oracle = Oracle(start: Self.start)
        oracle.record(number: 1, at: 20, origin: .app, values: Oracle.deletion(of: "a.example"))
        oracle.record(number: 2, at: 10, origin: .popup, values: [Oracle.site("a.example", "mode"): "off"])
        let deleted = document { $0.sites[site("a.example")] = nil }
        #expect(oracle.check(deleted, answers: [1: true, 2: true]).isEmpty)
        oracle.record(number: 3, at: 30, origin: .popup, values: [Oracle.site("a.example", "mode"): "off"])
        let recreated = document { $0.sites[site("a.example")] = SiteRecord(values: SiteValues(mode: .off), changedAt: [.mode: Stamp(at: 30)]) }
        #expect(oracle.check(recreated, answers: [1: true, 2: true, 3: true]).isEmpty)
        #expect(oracle.check(deleted, answers: [1: true, 2: true, 3: true]).count == 1)
    }

    @Test func aValueNoEditOfThatFieldGaveIsStray() {
        var oracle = Oracle(start: Self.start)
        oracle.record(number: 1, at: 10, origin: .app, values: [Oracle.site("b.example", "theme"): "dark"])
        // b.example's theme went to c.example as well: an edit to one site changed another.
        let leaked = document {
            $0.sites[site("b.example")] = SiteRecord(values: SiteValues(theme: .dark), changedAt: [.theme: Stamp(at: 10)])
            $0.sites[site("c.example")] = SiteRecord(values: SiteValues(theme: .dark), changedAt: [.theme: Stamp(at: 10)])
        }
        #expect(oracle.strayValues(in: leaked).map(\.description) == ["site c.example theme is dark, which no edit of it gave (invariant 3)"])
        // A site losing a value nobody reset is stray too.
        #expect(oracle.strayValues(in: document { $0.sites[site("a.example")] = nil }).count == 1)
    }

    @Test func anEditMadeBeforeTheStartingValueWasWrittenDoesNotReplaceIt() {
        var oracle = Oracle(start: Self.start)
        let theme = Oracle.site("a.example", "theme")
        oracle.record(number: 1, at: 0, origin: .app, values: [theme: "dark"])
        #expect(oracle.check(Self.start, answers: [1: true]).isEmpty, "a.example's theme was written at 1, after the edit")
        oracle.record(number: 2, at: 5, origin: .app, values: [theme: "invert"])
        #expect(oracle.check(Self.start, answers: [1: true, 2: true]).count == 1)
    }

    @Test func theFirstVersionsBooleanStartsTheDefaults() {
        let oracle = Oracle(legacyEnabled: false)
        var migrated = SettingsDocument()
        migrated.defaults.mode = .off
        migrated.defaults.theme = .invert
        #expect(oracle.check(migrated, answers: [:]).isEmpty)
        migrated.defaults.mode = .on
        #expect(oracle.check(migrated, answers: [:]).count == 1)
    }
}
