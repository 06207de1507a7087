@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The soak's record of the user's edits, and the oracle it gives.
struct SoakEditsTests {
    private let t: EpochMillis = 1_772_355_600_000

    private func document(_ edits: [Edit]) throws -> SettingsDocument {
        var document = SettingsDocument()
        for edit in edits { _ = try document.apply(edit) }
        return document
    }

    @Test func whileRunningAPopupChangeInTheOutboxVouchesForNothingButAfterHealingItMustBeThere() throws {
        let edits = SoakEdits()
        let number = edits.record(.popup, at: t, .popup(possible: ["p.example/", "p.example", ".p.example"]), values: ["theme": "sepia"])
        edits.popupAnswer(number, saved: true, scope: "p.example")
        let without = SettingsDocument()
        #expect(edits.oracle().check(without, answers: edits.answers(healed: false)).isEmpty)
        #expect(!edits.oracle().check(without, answers: edits.answers(healed: true)).isEmpty)
        let with = try document([.changeSite(try ScopeKey.parse("p.example"), set: SiteValues(theme: .sepia), reset: [], stamp: Stamp(at: t))])
        #expect(edits.oracle().check(with, answers: edits.answers(healed: true)).isEmpty)
    }

    @Test func anAppSaveVouchesAtOnceAndALaterUnansweredEditMayReplaceIt() throws {
        let edits = SoakEdits()
        let saved = edits.record(.app, at: t, .defaults, values: ["theme": "gray"])
        edits.answer(saved, saved: true)
        #expect(edits.oracle().check(SettingsDocument(), answers: edits.answers(healed: false)).count == 1)
        _ = edits.record(.app, at: t + 1, .defaults, values: ["theme": "sepia"])
        let sepia = try document([.setDefaults(DefaultsValues(theme: .sepia), stamp: Stamp(at: t + 1, origin: .app))])
        #expect(edits.oracle().check(sepia, answers: edits.answers(healed: false)).isEmpty)
    }

    @Test func aToggleIsKnownByItsAnswerAndEitherStateUntilThen() throws {
        let edits = SoakEdits()
        let toggle = edits.record(.popup, at: t, .toggle)
        let on = try document([.setDefaults(DefaultsValues(mode: .on), stamp: Stamp(at: t, origin: .extension))])
        let off = try document([.setDefaults(DefaultsValues(mode: .off), stamp: Stamp(at: t, origin: .extension))])
        #expect(edits.oracle().check(on, answers: edits.answers(healed: false)).isEmpty)
        #expect(edits.oracle().check(off, answers: edits.answers(healed: false)).isEmpty)
        edits.toggled(toggle, enabled: true)
        #expect(edits.oracle().check(on, answers: edits.answers(healed: false)).isEmpty)
        #expect(edits.oracle().check(off, answers: edits.answers(healed: false)).count == 1)
        #expect(edits.acknowledged == 1)
    }
}
