import ProcessKit
import SiteSettings
import Testing

/// The handler's logic driven directly, as a machine: every test states the complete list of
/// directives, so an extra or a missing one fails.
struct NativeHandlerMachineTests {
    static let now: EpochMillis = 1_783_940_000_000
    static let stored: [UInt8] = Array("""
        {"schemaVersion": 1, "documentId": "DOC-1", "revision": 42,
         "defaults": {"mode": "auto", "theme": "gray", "nativeDarkPolicy": "respect", "schedule": {"start": "20:00", "end": "06:00"}},
         "sites": {"docs.example.com": {"theme": "sepia", "modifiedAt": 1783936800000},
                   "studio.example": {"mode": "off", "modifiedAt": 1783936920000}},
         "tombstones": {}}
        """.utf8)

    private func message(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    private func document(_ bytes: [UInt8]) throws -> SettingsDocument { try DocumentCodec.decode(bytes).document }

    @Test func aSnapshotRequestReadsWithoutTheLockAndAnswersTheDocument() throws {
        var machine = NativeHandlerMachine()
        #expect(machine.handle(.requestArrived(try message(#"{"type": "getSnapshot"}"#), now: Self.now, seed: 1)) == [.container(.readDocument)])
        let reply = machine.handle(.container(.documentRead(Self.stored)))
        #expect(reply == [.reply(.snapshot(try document(Self.stored)))])
        #expect(machine.isFinished)
    }

    @Test func aHandlerKeepsNothingInItsStaticsButTheFlawedOneAnswersTheNextReadFromThem() throws {
        var first = NativeHandlerMachine()
        _ = first.handle(.requestArrived(try message(#"{"type": "getSnapshot"}"#), now: Self.now, seed: 1))
        _ = first.handle(.container(.documentRead(Self.stored)))
        #expect(first.statics == NativeHandlerMachine.Statics(), "nothing kept for the next request")

        var flawed = NativeHandlerMachine()
        flawed.flaws = [.handlerKeepsDocumentInStatic]
        _ = flawed.handle(.requestArrived(try message(#"{"type": "getSnapshot"}"#), now: Self.now, seed: 1))
        _ = flawed.handle(.container(.documentRead(Self.stored)))
        var next = NativeHandlerMachine()
        next.flaws = [.handlerKeepsDocumentInStatic]
        next.statics = flawed.statics
        #expect(next.handle(.requestArrived(try message(#"{"type": "getSnapshot"}"#), now: Self.now, seed: 1)) ==
                [.reply(.snapshot(try document(Self.stored)))], "answered from the static, with no read")
    }

    @Test func aKnownVersionIsAnsweredNotModifiedAndADifferentIdIsNot() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "getSnapshot", "known": {"documentId": "DOC-1", "revision": 42}}"#), now: Self.now, seed: 1))
        #expect(machine.handle(.container(.documentRead(Self.stored))) == [.reply(.notModified(DocumentVersion(documentId: "DOC-1", revision: 42)))])

        var other = NativeHandlerMachine()
        _ = other.handle(.requestArrived(try message(#"{"type": "getSnapshot", "known": {"documentId": "DOC-2", "revision": 42}}"#), now: Self.now, seed: 1))
        #expect(other.handle(.container(.documentRead(Self.stored))) == [.reply(.snapshot(try document(Self.stored)))])
    }

    @Test func aPatchIsMergedUnderTheLockWrittenThenNotifiedAndAnswered() throws {
        var machine = NativeHandlerMachine()
        let patch = #"{"type": "patch", "scope": "Docs.Example.com", "set": {"mode": "on"}, "reset": ["theme"], "at": 1783939999000, "edit": 3}"#
        #expect(machine.handle(.requestArrived(try message(patch), now: Self.now, seed: 1)) == [.container(.lock)])
        #expect(machine.handle(.container(.locked)) == [.container(.readDocument)])
        var expected = try document(Self.stored)
        try expected.apply(.changeSite(try ScopeKey.parse("docs.example.com"), set: SiteValues(mode: .on), reset: [.theme],
                                       stamp: Stamp(at: 1_783_939_999_000, origin: .extension, edit: 3)))
        #expect(machine.handle(.container(.documentRead(Self.stored))) == [.container(.writeDocument(DocumentCodec.encode(expected)))])
        #expect(machine.handle(.container(.documentWritten)) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.postChangeNotification, .reply(.applied(DocumentVersion(documentId: "DOC-1", revision: 43), changed: true))])
        #expect(machine.isFinished)
    }

    @Test func aPatchThatChangesNothingWritesNothingAndDoesNotNotify() throws {
        var machine = NativeHandlerMachine()
        let stale = #"{"type": "patch", "scope": "docs.example.com", "set": {"theme": "gray"}, "at": 1783936700000, "edit": 1}"#
        _ = machine.handle(.requestArrived(try message(stale), now: Self.now, seed: 1))
        _ = machine.handle(.container(.locked))
        #expect(machine.handle(.container(.documentRead(Self.stored))) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.reply(.applied(DocumentVersion(documentId: "DOC-1", revision: 42), changed: false))])
    }

    @Test(arguments: [
        (#"[1]"#, "document: expected an object"),
        (#"{"type": 5}"#, "type: expected a string"),
        (#"{"type": "dance"}"#, "type: unknown message type 'dance' (known: getSnapshot, patch, deleteSite, getEnabled, toggleEnabled)"),
        (#"{"type": "patch", "scope": "../../x", "set": {"mode": "on"}, "at": 1, "edit": 1}"#, "scope: a domain key has no path"),
        (#"{"type": "patch", "scope": "a..b/x", "set": {"mode": "on"}, "at": 1, "edit": 1}"#, "scope: empty label in host"),
        (#"{"type": "patch", "scope": "a.example", "set": {"theme": "neon"}, "at": 1, "edit": 1}"#, "set.theme: unknown theme 'neon'"),
        (#"{"type": "patch", "scope": "a.example", "set": {"mode": "on"}, "reset": ["mode"], "at": 1, "edit": 1}"#, "reset: field 'mode' is both set and reset"),
        (#"{"type": "patch", "scope": "a.example", "set": {}, "at": 1, "edit": 1}"#, "document: a patch must set or reset at least one field"),
        (#"{"type": "patch", "scope": "a.example", "set": {"mode": "on"}, "at": -1, "edit": 1}"#, "at: time -1 is negative"),
        (#"{"type": "patch", "scope": "a.example", "set": {"mode": "on"}, "at": 1783940060001, "edit": 1}"#, "at: time 1783940060001 is more than 60000 ms after now (1783940000000)"),
        (#"{"type": "patch", "scope": "a.example", "set": {"mode": "on"}, "at": 1783939999000}"#, "edit: expected the edit's number, a non-negative integer"),
        (#"{"type": "patch", "scope": "a.example", "set": {"mode": "on"}, "at": 99999999999, "edit": 1}"#, "at: time 99999999999 is before 10^11 ms (1973-03-03)"),
        (#"{"type": "patch", "scope": "a.example", "set": {"mode": "on"}, "at": 1, "edit": 1, "extra": true}"#, "extra: unknown member"),
        (#"{"type": "deleteSite", "scope": ".co.uk", "at": 1, "edit": 1}"#, "scope: 'co.uk' is a public suffix, not a registrable domain"),
        (#"{"type": "getSnapshot", "known": {"documentId": "", "revision": 1}}"#, "known.documentId: expected a document id string of 1 to 128 bytes"),
    ])
    func anInvalidMessageIsAnsweredWithAnErrorAndTouchesNothing(json: String, problem: String) throws {
        var machine = NativeHandlerMachine()
        let directives = machine.handle(.requestArrived(try message(json), now: Self.now, seed: 1))
        #expect(directives == [.reply(.error(.invalidMessage, problem))])
        #expect(machine.isFinished)
    }

    @Test func aDamagedDocumentIsSetAsideAndTheLastGoodCopyUsed() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "patch", "scope": "new.example", "set": {"theme": "dark"}, "at": 1783939999000, "edit": 1}"#), now: Self.now, seed: 1))
        _ = machine.handle(.container(.locked))
        #expect(machine.handle(.container(.documentRead(Array(#"{"sites": {"#.utf8)))) == [.container(.setAsideDocument)])
        #expect(machine.handle(.container(.documentSetAside(name: "settings.damaged-1.json"))) == [.container(.readPreviousDocument)])
        let directives = machine.handle(.container(.previousDocumentRead(Self.stored)))
        guard case .container(.writeDocument(let bytes))? = directives.first, directives.count == 1 else {
            Issue.record("expected one write, got \(directives)")
            return
        }
        let written = try document(bytes)
        #expect(written.sites[try ScopeKey.parse("studio.example")] != nil)
        #expect(written.sites[try ScopeKey.parse("new.example")]?.values.theme == .dark)
        #expect(written.revision == 43)
        #expect(written.documentId != "DOC-1", "a recovered document is a new document")
        #expect(written.documentId == DocumentID.created(seed: 1, at: Self.now, recovered: true, revision: 42))
    }

    @Test func aNewerSchemaIsNeverRewritten() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "deleteSite", "scope": "a.example", "at": 1783939999000, "edit": 1}"#), now: Self.now, seed: 1))
        _ = machine.handle(.container(.locked))
        let directives = machine.handle(.container(.documentRead(Array(#"{"schemaVersion": 9, "sites": []}"#.utf8))))
        #expect(directives == [.container(.unlock)])
        guard case .reply(.error(.readOnly, _))? = machine.handle(.container(.unlocked)).first else {
            Issue.record("expected a read-only error")
            return
        }
    }

    @Test func theFirstVersionsBooleanIsMigratedUnderTheLockByAToggle() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "toggleEnabled"}"#), now: Self.now, seed: 7))
        _ = machine.handle(.container(.locked))
        #expect(machine.handle(.container(.documentRead(nil))) == [.container(.readPreviousDocument)])
        #expect(machine.handle(.container(.previousDocumentRead(nil))) == [.container(.readLegacyPreferences)])
        let directives = machine.handle(.container(.legacyPreferencesRead(true)))
        guard case .container(.writeDocument(let bytes))? = directives.first else {
            Issue.record("expected a write, got \(directives)")
            return
        }
        let written = try document(bytes)
        #expect(written.defaults.mode == .off)
        #expect(written.defaults.theme == .invert)
        #expect(written.documentId == DocumentID.created(seed: 7, at: Self.now))
        #expect(machine.handle(.container(.documentWritten)) == [.container(.unlock)])
        #expect(machine.handle(.container(.unlocked)) == [.postChangeNotification, .reply(.enabled(false))])
    }

    @Test func withNoDocumentAReadAnswersFromTheFirstVersionsBoolean() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "getEnabled"}"#), now: Self.now, seed: 1))
        #expect(machine.handle(.container(.documentRead(nil))) == [.container(.readPreviousDocument)])
        #expect(machine.handle(.container(.previousDocumentRead(nil))) == [.container(.readLegacyPreferences)])
        #expect(machine.handle(.container(.legacyPreferencesRead(true))) == [.reply(.enabled(true))])
    }

    @Test func withNoDocumentButALastGoodCopyAReadAnswersFromTheCopy() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "getEnabled"}"#), now: Self.now, seed: 1))
        var good = SettingsDocument(documentId: "DOC-1", revision: 4)
        good.defaults.mode = .off
        #expect(machine.handle(.container(.documentRead(nil))) == [.container(.readPreviousDocument)])
        #expect(machine.handle(.container(.previousDocumentRead(DocumentCodec.encode(good)))) == [.reply(.enabled(false))])
    }

    @Test func getEnabledAnswersWhetherTheDefaultModeIsOn() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "getEnabled"}"#), now: Self.now, seed: 1))
        #expect(machine.handle(.container(.documentRead(Self.stored))) == [.reply(.enabled(false))])
    }

    @Test func aStorageFailureAnswersAnErrorAndReleasesTheLock() throws {
        var machine = NativeHandlerMachine()
        _ = machine.handle(.requestArrived(try message(#"{"type": "deleteSite", "scope": "studio.example", "at": 1783939999000, "edit": 1}"#), now: Self.now, seed: 1))
        _ = machine.handle(.container(.locked))
        _ = machine.handle(.container(.documentRead(Self.stored)))
        #expect(machine.handle(.container(.failed(.writeDocument, errno: 28))) == [.container(.unlock)])
        // Readers are told to look again: the write may have stuck before the failure.
        #expect(machine.handle(.container(.unlocked)) == [.postChangeNotification, .reply(.error(.storageFailure, "writeDocument failed (errno 28)"))])
    }

    @Test func lateAndUnexpectedInputsAreIgnored() throws {
        var machine = NativeHandlerMachine()
        #expect(machine.handle(.container(.documentWritten)) == [])
        _ = machine.handle(.requestArrived(try message(#"{"type": "getEnabled"}"#), now: Self.now, seed: 1))
        _ = machine.handle(.container(.documentRead(Self.stored)))
        #expect(machine.handle(.requestArrived(try message(#"{"type": "getEnabled"}"#), now: Self.now, seed: 1)) == [])
    }
}

struct ContainerExecutorTests {
    @Test func aWriteStopsAtWriteTempThenRenameAndKeepsThePreviousCopy() {
        var executor = ContainerExecutor(storage: SimulatedContainer(files: [FileContainer.documentName: [1]]), gate: RecordingGate())
        #expect(executor.run(.lock) == .locked)
        #expect(executor.run(.readDocument) == .documentRead([1]))
        #expect(executor.run(.writeDocument([2])) == .documentWritten)
        #expect(executor.run(.unlock) == .unlocked)
        #expect(executor.gate.points == [.lock, .read, .writeTemp, .rename, .unlock])
        #expect(executor.storage.files == [FileContainer.documentName: [2], FileContainer.previousName: [1]])
    }

    @Test func aFailureInjectedAtRenameLeavesTheDocumentAsItWas() {
        var executor = ContainerExecutor(storage: SimulatedContainer(files: [FileContainer.documentName: [1]]), gate: RecordingGate(failures: [1: 28]))
        #expect(executor.run(.writeDocument([2])) == .failed(.writeDocument, errno: 28))
        #expect(executor.storage.document == [1])
    }

    @Test func theHandlerRunsToCompletionOnTheExecutor() throws {
        var executor = ContainerExecutor(storage: SimulatedContainer(files: [FileContainer.documentName: NativeHandlerMachineTests.stored]), gate: RecordingGate())
        var machine = NativeHandlerMachine()
        let request = try JSONParser.parse(#"{"type": "patch", "scope": "a.example", "set": {"mode": "off"}, "at": 1783939999000, "edit": 1}"#)
        let directives = machine.run(.requestArrived(request, now: NativeHandlerMachineTests.now, seed: 1), on: &executor)
        #expect(directives == [.postChangeNotification, .reply(.applied(DocumentVersion(documentId: "DOC-1", revision: 43), changed: true))])
        #expect(executor.gate.points == [.lock, .read, .writeTemp, .rename, .unlock])
        #expect(!executor.storage.isLocked)
    }
}
