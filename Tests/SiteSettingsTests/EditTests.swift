import Testing
@testable import SiteSettings

struct EditTests {
    private func base() throws -> SettingsDocument { try Fixture.decode(Fixture.articleShape) }

    @Test func aSiteRecordHoldsOnlyTheFieldsTheUserChanged() throws {
        var document = try base()
        try document.apply(Fixture.set("new.example", SiteValues(theme: .dark), Fixture.popup(1_783_940_000_000)))
        let record = try #require(document.sites[Fixture.key("new.example")])
        #expect(record.values == SiteValues(theme: .dark))
        #expect(record.changedAt.keys.sorted() == [.theme])
    }

    @Test func resettingAFieldRemovesItAndTheDefaultFlowsThrough() throws {
        var document = try base()
        try document.apply(Fixture.reset("docs.example.com", [.theme], Fixture.popup(1_783_940_000_000)))
        #expect(document.sites[Fixture.key("docs.example.com")] == nil)
        try document.apply(.setDefaults(DefaultsValues(theme: .invert), stamp: Fixture.app(1_783_940_100_000)))
        let decision = Resolver(document: document).decide(url: "https://docs.example.com/", context: DecisionContext(appearance: .dark, now: 0))
        #expect(decision.theme == .invert)
        #expect(decision.settings.themeSource == .default)
    }

    @Test func removingTheLastOverrideRemovesTheRecordAndLeavesATombstone() throws {
        var document = try base()
        try document.apply(Fixture.set("docs.example.com", SiteValues(mode: .on), Fixture.popup(1_783_940_000_000)))
        try document.apply(Fixture.reset("docs.example.com", [.theme], Fixture.popup(1_783_940_000_001, edit: 2)))
        #expect(document.sites[Fixture.key("docs.example.com")]?.values == SiteValues(mode: .on))
        try document.apply(Fixture.reset("docs.example.com", [.mode], Fixture.popup(1_783_940_000_002, edit: 3)))
        #expect(document.sites[Fixture.key("docs.example.com")] == nil)
        #expect(document.tombstones[Fixture.key("docs.example.com")]?[.mode] == Fixture.popup(1_783_940_000_002, edit: 3))
        #expect(!String(decoding: DocumentCodec.encode(document), as: UTF8.self).contains(#""sites":{"docs"#))
    }

    @Test func everyChangeIncrementsTheRevisionOnceAndARepeatChangesNothing() throws {
        var document = try base()
        let patch = Fixture.set("docs.example.com", SiteValues(mode: .off), Fixture.popup(1_783_940_000_000, edit: 4))
        #expect(try document.apply(patch))
        #expect(document.revision == 43)
        let before = document
        #expect(try document.apply(patch) == false)
        #expect(document == before)
    }

    @Test func anOlderDelayedPatchCannotUndoANewerChangeOfTheSameField() throws {
        var document = try base()
        try document.apply(Fixture.set("docs.example.com", SiteValues(theme: .dark), Fixture.app(2_000_000_000_000)))
        let changed = try document.apply(Fixture.set("docs.example.com", SiteValues(theme: .gray, nativeDarkPolicy: .override), Fixture.popup(1_900_000_000_000)))
        #expect(changed)
        #expect(document.sites[Fixture.key("docs.example.com")]?.values == SiteValues(theme: .dark, nativeDarkPolicy: .override))
    }

    @Test func anOlderDelayedPatchCannotUndoANewerReset() throws {
        var document = try base()
        try document.apply(Fixture.reset("docs.example.com", [.theme], Fixture.app(2_000_000_000_000)))
        #expect(try document.apply(Fixture.set("docs.example.com", SiteValues(theme: .gray), Fixture.popup(1_900_000_000_000))) == false)
        #expect(document.sites[Fixture.key("docs.example.com")] == nil)
    }

    @Test func aDeletionIsNotUndoneByAnOlderPatchButANewerOneRecreatesTheSite() throws {
        var document = try base()
        let studio = Fixture.key("studio.example")
        try document.apply(.deleteSite(studio, stamp: Fixture.app(2_000_000_000_000)))
        #expect(document.sites[studio] == nil)
        #expect(document.tombstones[studio] != nil)
        #expect(try document.apply(Fixture.set("studio.example", SiteValues(theme: .sepia), Fixture.popup(1_999_999_999_999))) == false)
        #expect(document.sites[studio] == nil)
        try document.apply(Fixture.set("studio.example", SiteValues(theme: .sepia), Fixture.popup(2_000_000_000_001)))
        #expect(document.sites[studio]?.values == SiteValues(theme: .sepia))
        #expect(document.tombstones[studio] == nil)
    }

    @Test func aResetEmptiedRecordStillTakesADelayedPatchOfAFieldNeverReset() throws {
        var document = try base()
        try document.apply(Fixture.reset("docs.example.com", [.theme], Fixture.app(2_000_000_000_000)))
        #expect(try document.apply(Fixture.set("docs.example.com", SiteValues(mode: .off), Fixture.popup(1_900_000_000_000))))
        #expect(document.sites[Fixture.key("docs.example.com")]?.values == SiteValues(mode: .off))
    }

    @Test func aPatchNeverTouchesASiteItDoesNotName() throws {
        var document = try base()
        let others = document.sites.filter { $0.key.text != "docs.example.com" }
        try document.apply(Fixture.set("docs.example.com", SiteValues(mode: .on), Fixture.popup(1_783_940_000_000)))
        try document.apply(.deleteSite(Fixture.key("docs.example.com"), stamp: Fixture.popup(1_783_940_000_001, edit: 2)))
        #expect(document.sites.filter { $0.key.text != "docs.example.com" } == others)
    }

    @Test func defaultsMergePerFieldSoAnOlderEditOfOneFieldKeepsANewerEditOfAnother() throws {
        var document = try base()
        try document.apply(.setDefaults(DefaultsValues(theme: .dark), stamp: Fixture.app(2_000_000_000_000)))
        try document.apply(.setDefaults(DefaultsValues(mode: .on, theme: .sepia), stamp: Fixture.popup(1_900_000_000_000)))
        #expect(document.defaults.theme == .dark)
        #expect(document.defaults.mode == .on)
    }

    @Test func atEqualTimesTheAppWinsThenTheHigherEditNumberInEitherOrder() throws {
        let key = "docs.example.com"
        let appEdit = Fixture.set(key, SiteValues(theme: .dark), Fixture.app(5_000_000_000_000, edit: 1))
        let popupEdit = Fixture.set(key, SiteValues(theme: .gray), Fixture.popup(5_000_000_000_000, edit: 9))
        for order in [[appEdit, popupEdit], [popupEdit, appEdit]] {
            var document = try base()
            for edit in order { try document.apply(edit) }
            #expect(document.sites[Fixture.key(key)]?.values.theme == .dark)
        }
        let first = Fixture.set(key, SiteValues(theme: .gray), Fixture.popup(5_000_000_000_000, edit: 1))
        let second = Fixture.set(key, SiteValues(theme: .invert), Fixture.popup(5_000_000_000_000, edit: 2))
        for order in [[first, second], [second, first]] {
            var document = try base()
            for edit in order { try document.apply(edit) }
            #expect(document.sites[Fixture.key(key)]?.values.theme == .invert)
        }
    }

    /// Edits arrive in any order (a delayed patch, a retried one): the result is the same.
    @Test func theOrderOfArrivalDoesNotChangeTheResult() throws {
        let edits: [Edit] = [
            Fixture.set("docs.example.com", SiteValues(mode: .on), Fixture.popup(10_000_000_000_000, edit: 1)),
            Fixture.reset("docs.example.com", [.mode, .theme], Fixture.app(10_000_000_000_005, edit: 1)),
            .deleteSite(Fixture.key("studio.example"), stamp: Fixture.app(10_000_000_000_003, edit: 2)),
            Fixture.set("studio.example", SiteValues(theme: .gray), Fixture.popup(10_000_000_000_004, edit: 2)),
            Fixture.set("studio.example", SiteValues(mode: .on), Fixture.popup(10_000_000_000_001, edit: 3)),
            .setDefaults(DefaultsValues(theme: .sepia), stamp: Fixture.app(10_000_000_000_002, edit: 3)),
        ]
        var results: Set<[UInt8]> = []
        for permutation in permutations(edits) {
            var document = try base()
            for edit in permutation { try document.apply(edit) }
            document.revision = 0
            results.insert(DocumentCodec.encode(document))
        }
        #expect(results.count == 1)
        var document = try base()
        for edit in edits { try document.apply(edit) }
        #expect(document.sites[Fixture.key("studio.example")]?.values == SiteValues(theme: .gray))
        #expect(document.sites[Fixture.key("docs.example.com")] == nil)
        #expect(document.defaults.theme == .sepia)
    }

    @Test func editsNamingAnUnknownThemeOrSettingAndResettingAFieldAreRefused() throws {
        var document = try base()
        let before = document
        #expect(throws: EditError.unknownTheme("aurora")) {
            try document.apply(Fixture.set("a.example", SiteValues(theme: Theme(rawValue: "aurora")), Fixture.popup(1)))
        }
        #expect(throws: EditError.setAndReset(.mode)) {
            try document.apply(.changeSite(Fixture.key("a.example"), set: SiteValues(mode: .on), reset: [.mode], stamp: Fixture.popup(1)))
        }
        #expect(throws: EditError.negativeTime(-1)) {
            try document.apply(.deleteSite(Fixture.key("a.example"), stamp: Fixture.popup(-1)))
        }
        #expect(document == before)
    }

    @Test func anEditThatWouldPassOneMebibyteIsRefusedAndChangesNothing() throws {
        var document = SettingsDocument()
        var stamp: Int64 = 1_783_936_800_000
        func addSites(_ count: Int) {
            for _ in 0..<count {
                stamp += 1
                document.sites[Fixture.key("site\(stamp).example")] = SiteRecord(values: SiteValues(mode: .on), changedAt: [.mode: Stamp(at: stamp)])
            }
        }
        let empty = DocumentCodec.encode(document).count
        addSites(1000)
        let perSite = (DocumentCodec.encode(document).count - empty + 999) / 1000
        addSites((DocumentCodec.maximumBytes - 1500 - DocumentCodec.encode(document).count) / perSite)
        let start = DocumentCodec.encode(document).count
        #expect(start <= DocumentCodec.maximumBytes && start > DocumentCodec.maximumBytes - 20_000)
        var edit = 0
        var refused: EditError?
        while refused == nil && edit < 1000 {
            edit += 1
            let before = document
            do {
                try document.apply(Fixture.set("another\(edit).example", SiteValues(mode: .on, theme: .sepia, nativeDarkPolicy: .override), Fixture.popup(stamp, edit: UInt64(edit))))
            } catch {
                refused = error
                #expect(document == before)
            }
        }
        guard case .tooLarge(let bytes) = try #require(refused) else {
            Issue.record("expected tooLarge, got \(String(describing: refused))")
            return
        }
        #expect(bytes > DocumentCodec.maximumBytes)
        #expect(DocumentCodec.encode(document).count <= DocumentCodec.maximumBytes)
    }
}

func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    var result: [[T]] = []
    for (i, item) in items.enumerated() {
        var rest = items
        rest.remove(at: i)
        for tail in permutations(rest) { result.append([item] + tail) }
    }
    return result
}
