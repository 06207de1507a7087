import Testing
@testable import SiteSettings

struct LegacyTests {
    @Test(arguments: [(true, Mode.on), (false, Mode.off)])
    func theOldBooleanMigratesToModeWithTheInvertTheme(enabled: Bool, mode: Mode) {
        let document = Legacy.migrate(colorInvertEnabled: enabled, at: 1_783_936_800_000, documentId: "ID")
        #expect(document.defaults.mode == mode)
        #expect(document.defaults.theme == .invert)
        #expect(document.sites.isEmpty)
        #expect(document.documentId == "ID")
        #expect(Legacy.isEnabled(document) == enabled)
    }

    @Test func toggleFlipsTheDefaultModeBetweenOnAndOff() throws {
        var document = Legacy.migrate(colorInvertEnabled: true, at: 1_000_000_000_000, documentId: "ID")
        try document.apply(Legacy.toggle(document, stamp: Fixture.popup(1_000_000_000_001)))
        #expect(document.defaults.mode == .off)
        #expect(!Legacy.isEnabled(document))
        try document.apply(Legacy.toggle(document, stamp: Fixture.popup(1_000_000_000_002, edit: 2)))
        #expect(document.defaults.mode == .on)
        document.defaults.mode = .auto
        #expect(!Legacy.isEnabled(document))
        #expect(Legacy.toggle(document, stamp: Fixture.popup(3)) == .setDefaults(DefaultsValues(mode: .on), stamp: Fixture.popup(3)))
    }
}

struct ControlPlaneTests {
    private let document: SettingsDocument = try! Fixture.decode("""
        {"defaults": {"mode": "auto", "theme": "gray", "nativeDarkPolicy": "respect"},
         "sites": {"a.example": {"theme": "gray", "mode": "on", "modifiedAt": 1},
                   "b.example": {"theme": "sepia", "modifiedAt": 1},
                   "c.example": {"mode": "scheduled", "nativeDarkPolicy": "respect", "modifiedAt": 1},
                   "d.example": {"theme": "aurora", "mode": "off", "modifiedAt": 1}}}
        """)

    @Test func overridesEqualToTheCurrentDefaultAreReportedAsRedundant() {
        let redundant = document.redundantOverrides().map { "\($0.key.text):\($0.fields.map(\.rawValue).joined(separator: ","))" }
        #expect(redundant == ["a.example:theme", "c.example:nativeDarkPolicy"])
    }

    @Test func aProposedDefaultChangeListsTheSitesThatWouldChange() {
        let theme = document.sitesAffected(by: DefaultsValues(theme: .dark)).map(\.key.text)
        #expect(theme == ["c.example", "d.example"])
        let mode = document.sitesAffected(by: DefaultsValues(mode: .on)).map(\.key.text)
        #expect(mode == ["b.example"])
        let schedule = document.sitesAffected(by: DefaultsValues(schedule: Schedule(start: TimeOfDay("21:00")!, end: TimeOfDay("07:00")!)))
        #expect(schedule.map(\.key.text) == ["c.example"])
        #expect(schedule.first?.fields == [.schedule])
        #expect(document.sitesAffected(by: DefaultsValues(theme: .gray)).isEmpty)
    }
}

struct TimestampTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0),
        ("2026-03-01T09:00:00Z", 1_772_355_600_000),
        ("2026-03-01T10:00:00+01:00", 1_772_355_600_000),
        ("2026-03-01T09:00:00.250Z", 1_772_355_600_250),
        ("2024-02-29T12:00Z", 1_709_208_000_000),
        ("1969-12-31T23:59:59Z", -1000),
    ] as [(String, Int64)])
    func isoTimesParse(text: String, millis: Int64) {
        #expect(Timestamp.parse(text) == millis)
    }

    @Test(arguments: ["2026-02-29T00:00:00Z", "2026-03-01 09:00:00Z", "2026-03-01T09:00:00", "2026-13-01T00:00:00Z",
                      "2026-03-01T24:00:00Z", "2026-03-01T09:00:00+1:00", "yesterday", ""])
    func malformedTimesAreRefused(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func formattingRoundTrips() {
        for millis: Int64 in [0, 1_772_355_600_250, -1000, 253_402_300_799_999] {
            #expect(Timestamp.parse(Timestamp.format(millis)) == millis)
        }
    }
}

struct DocumentIDTests {
    @Test func identifiersComeFromTheSeedAlone() {
        #expect(DocumentID.derive(seed: 42, sequence: 0) == DocumentID.derive(seed: 42, sequence: 0))
        #expect(DocumentID.derive(seed: 42, sequence: 0) != DocumentID.derive(seed: 42, sequence: 1))
        #expect(DocumentID.derive(seed: 42, sequence: 0) != DocumentID.derive(seed: 43, sequence: 0))
        let ids = Set((0..<1000).map { DocumentID.derive(seed: 7, sequence: $0) })
        #expect(ids.count == 1000)
        let id = DocumentID.derive(seed: 1, sequence: 2)
        #expect(id.count == 36)
        #expect(Array(id)[14] == "4")
    }
}
