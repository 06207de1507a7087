import ProcessKit
import SiteSettings
import Testing

struct AppMachineTests {
    static let now: EpochMillis = 1_783_940_000_000

    @Test func launchReadsTheDocumentWithoutTheLockAndShowsIt() throws {
        var machine = AppMachine()
        #expect(machine.handle(.launched(now: Self.now, seed: 1)) == [.container(.readDocument)])
        let document = try DocumentCodec.decode(NativeHandlerMachineTests.stored).document
        #expect(machine.handle(.container(.documentRead(NativeHandlerMachineTests.stored))) == [.showView(AppView(document))])
    }

    @Test func theViewListsOverridesInheritedFieldsAndRedundantOnes() throws {
        var document = try DocumentCodec.decode(NativeHandlerMachineTests.stored).document
        try document.apply(.changeSite(try ScopeKey.parse("a.example"), set: SiteValues(theme: .gray), reset: [], stamp: Stamp(at: 1_783_936_800_000)))
        let view = AppView(document)
        #expect(view.sites.map(\.key.text) == ["a.example", "docs.example.com", "studio.example"])
        #expect(view.sites[0].overrides == SiteValues(theme: .gray))
        #expect(view.sites[0].inherited == [.mode, .nativeDarkPolicy])
        #expect(view.sites[0].redundant == [.theme])
        #expect(view.sites[1].redundant == [])
    }

    @Test func anEditIsAppliedUnderTheLockToTheDocumentAsItIsOnDisk() throws {
        var machine = AppMachine()
        _ = machine.handle(.launched(now: Self.now, seed: 1))
        _ = machine.handle(.container(.documentRead(NativeHandlerMachineTests.stored)))
        let edit = AppMachine.UserEdit.setDefaults(DefaultsValues(theme: .dark))
        #expect(machine.handle(.userEdited(edit, now: Self.now + 5)) == [.container(.lock)])
        #expect(machine.handle(.container(.locked)) == [.container(.readDocument)])
        // Meanwhile the handler wrote a popup change: the app applies its edit on top of it.
        var onDisk = try DocumentCodec.decode(NativeHandlerMachineTests.stored).document
        try onDisk.apply(.changeSite(try ScopeKey.parse("b.example"), set: SiteValues(mode: .off), reset: [], stamp: Stamp(at: Self.now + 1, origin: .extension, edit: 1)))
        var expected = onDisk
        try expected.apply(.setDefaults(DefaultsValues(theme: .dark), stamp: Stamp(at: Self.now + 5, origin: .app, edit: 43)))
        #expect(machine.handle(.container(.documentRead(DocumentCodec.encode(onDisk)))) == [.container(.writeDocument(DocumentCodec.encode(expected)))])
        #expect(machine.handle(.container(.documentWritten)) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.showView(AppView(expected)), .editSaved(revision: 44, changed: true), .messageExtension])
        #expect(expected.sites[try ScopeKey.parse("b.example")]?.values.mode == .off)
    }

    @Test func aLaunchThatFindsOnlyTheOldBooleanMigratesIt() throws {
        var machine = AppMachine()
        _ = machine.handle(.launched(now: Self.now, seed: 3))
        #expect(machine.handle(.container(.documentRead(nil))) == [.container(.lock)])
        #expect(machine.handle(.container(.locked)) == [.container(.readDocument)])
        #expect(machine.handle(.container(.documentRead(nil))) == [.container(.readPreviousDocument)])
        #expect(machine.handle(.container(.previousDocumentRead(nil))) == [.container(.readLegacyPreferences)])
        var migrated = Legacy.migrate(colorInvertEnabled: true, at: Self.now, documentId: DocumentID.created(seed: 3, at: Self.now))
        migrated.revision = 1
        #expect(machine.handle(.container(.legacyPreferencesRead(true))) == [.container(.writeDocument(DocumentCodec.encode(migrated)))])
        #expect(machine.handle(.container(.documentWritten)) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.showView(AppView(migrated))])
    }

    @Test func aLaunchThatFindsOnlyTheLastGoodCopyRecoversIt() throws {
        // A writer died after setting a damaged document aside and before writing its recovery.
        var machine = AppMachine()
        _ = machine.handle(.launched(now: Self.now, seed: 3))
        _ = machine.handle(.container(.documentRead(nil)))
        _ = machine.handle(.container(.locked))
        _ = machine.handle(.container(.documentRead(nil)))
        var good = SettingsDocument(documentId: "DOC-1", revision: 4)
        good.defaults.theme = .sepia
        let directives = machine.handle(.container(.previousDocumentRead(DocumentCodec.encode(good))))
        guard case .container(.writeDocument(let bytes))? = directives.first else {
            Issue.record("expected the recovered copy to be written, got \(directives)")
            return
        }
        let written = try DocumentCodec.decode(bytes).document
        #expect(written.defaults.theme == .sepia)
        #expect(written.documentId != "DOC-1", "a recovered document gets a new id")
    }

    @Test func aLaunchWithNothingStoredShowsTheBuiltInDefaultsAndWritesNothing() {
        var machine = AppMachine()
        _ = machine.handle(.launched(now: Self.now, seed: 3))
        _ = machine.handle(.container(.documentRead(nil)))
        _ = machine.handle(.container(.locked))
        _ = machine.handle(.container(.documentRead(nil)))
        _ = machine.handle(.container(.previousDocumentRead(nil)))
        #expect(machine.handle(.container(.legacyPreferencesRead(nil))) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.showView(AppView(SettingsDocument()))])
    }

    @Test func inputsThatArriveDuringContainerWorkWaitForIt() throws {
        var machine = AppMachine()
        _ = machine.handle(.launched(now: Self.now, seed: 1))
        #expect(machine.handle(.cameToForeground(now: Self.now + 1)) == [])
        let document = try DocumentCodec.decode(NativeHandlerMachineTests.stored).document
        #expect(machine.handle(.container(.documentRead(NativeHandlerMachineTests.stored))) == [.showView(AppView(document)), .container(.readDocument)])
    }

    @Test func aRefusedEditIsAnsweredAndChangesNothing() throws {
        var machine = AppMachine()
        _ = machine.handle(.launched(now: Self.now, seed: 1))
        _ = machine.handle(.container(.documentRead(NativeHandlerMachineTests.stored)))
        _ = machine.handle(.userEdited(.setDefaults(DefaultsValues(theme: Theme(rawValue: "aurora"))), now: Self.now))
        _ = machine.handle(.container(.locked))
        #expect(machine.handle(.container(.documentRead(NativeHandlerMachineTests.stored))) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.editRefused(.invalidMessage, EditError.unknownTheme("aurora").description)])
    }
}
