import ProcessKit
import SiteSettings
import Testing

struct AppWireTests {
    /// One event of every kind, with random payloads.
    static func everyEvent(_ samples: inout WireSamples) -> [AppWire.Event] {
        [.launched, .cameToForeground, .changeNotificationArrived,
         .userEdited(.setDefaults(samples.defaultsValues())),
         .userEdited(.changeSite(scope: samples.typedScope(), set: samples.siteValues(), reset: samples.fields())),
         .userEdited(.deleteSite(scope: samples.typedScope()))]
    }

    static func everyOutput(_ samples: inout WireSamples) -> [AppWire.Output] {
        [.showView(samples.appView()),
         .editSaved(revision: samples.int64(Int64.min...Int64.max), changed: samples.bool()),
         .editRefused(samples.pick(NativeErrorCode.allCases), samples.text()),
         .messageExtension]
    }

    @Test func everyEventReadsBackAsItWasSent() throws {
        for seed in UInt64(0)..<300 {
            var samples = WireSamples(seed: seed)
            for event in Self.everyEvent(&samples) {
                let sent = try throughBytes(AppWire.encode(event))
                #expect(try AppWire.decode(sent) == event, "seed \(seed): \(sent)")
            }
        }
    }

    @Test func everyTravellingDirectiveReadsBackAsItWasSent() throws {
        for seed in UInt64(0)..<300 {
            var samples = WireSamples(seed: seed)
            for output in Self.everyOutput(&samples) {
                let sent = try throughBytes(AppWire.json(output))
                #expect(try AppWire.directive(sent) == output, "seed \(seed): \(sent)")
            }
        }
    }

    @Test func containerWorkNeverTravels() {
        #expect(AppWire.output(.container(.readDocument)) == nil)
        #expect(AppWire.output(.messageExtension) == .messageExtension)
    }

    @Test func eventsAreWrittenAsTheHarnessHasAlwaysSentThem() throws {
        #expect(AppWire.encode(.launched) == (try json(#"{"type": "launched"}"#)))
        #expect(AppWire.encode(.cameToForeground) == (try json(#"{"type": "cameToForeground"}"#)))
        #expect(AppWire.encode(.changeNotificationArrived) == (try json(#"{"type": "changeNotificationArrived"}"#)))
        let defaults = DefaultsValues(mode: .scheduled, theme: .gray, schedule: Schedule(start: TimeOfDay("20:00")!, end: TimeOfDay("06:30")!))
        #expect(AppWire.encode(.userEdited(.setDefaults(defaults))) == (try json("""
            {"type": "userEdited", "edit": {"kind": "setDefaults",
             "set": {"mode": "scheduled", "theme": "gray", "schedule": {"start": "20:00", "end": "06:30"}}}}
            """)))
        #expect(AppWire.encode(.userEdited(.setDefaults(DefaultsValues()))) == (try json(#"{"type": "userEdited", "edit": {"kind": "setDefaults", "set": {}}}"#)))
        // A change that only sets has no `reset`; one that only resets has no `set`.
        #expect(AppWire.encode(.userEdited(.changeSite(scope: "Docs.Example.COM.", set: SiteValues(theme: .sepia, nativeDarkPolicy: .override), reset: []))) == (try json("""
            {"type": "userEdited", "edit": {"kind": "changeSite", "scope": "Docs.Example.COM.", "set": {"theme": "sepia", "nativeDarkPolicy": "override"}}}
            """)))
        #expect(AppWire.encode(.userEdited(.changeSite(scope: "a.example", set: SiteValues(), reset: [.theme, .mode]))) == (try json("""
            {"type": "userEdited", "edit": {"kind": "changeSite", "scope": "a.example", "reset": ["theme", "mode"]}}
            """)))
        #expect(AppWire.encode(.userEdited(.deleteSite(scope: ".example.org"))) == (try json(#"{"type": "userEdited", "edit": {"kind": "deleteSite", "scope": ".example.org"}}"#)))
    }

    @Test func directivesAreWrittenAsBefore() throws {
        #expect(AppWire.json(.editSaved(revision: 43, changed: true)) == (try json(#"{"type": "editSaved", "revision": 43, "changed": true}"#)))
        #expect(AppWire.json(.editRefused(.readOnly, "newer")) == (try json(#"{"type": "editRefused", "code": "readOnly", "message": "newer"}"#)))
        #expect(AppWire.json(.messageExtension) == (try json(#"{"type": "messageExtension"}"#)))
        var document = SettingsDocument(documentId: "doc-1", revision: 7)
        try document.apply(.changeSite(try ScopeKey.parse("docs.example.com"), set: SiteValues(theme: .sepia), reset: [],
                                       stamp: Stamp(at: 1_783_936_800_000, origin: .app, edit: 7)))
        #expect(AppWire.json(.showView(AppView(document))) == (try json("""
            {"type": "showView", "view": {"documentId": "doc-1", "revision": 8, "readOnly": false,
             "defaults": {"mode": "auto", "theme": "dark", "nativeDarkPolicy": "respect", "schedule": "20:00-06:00"},
             "sites": [{"key": "docs.example.com", "overrides": {"theme": "sepia"}, "inherited": ["mode", "nativeDarkPolicy"], "redundant": []}]}}
            """)))
    }

    @Test func theMachineGetsCanonicalKeysAndSortedResets() throws {
        let now: EpochMillis = 1_783_940_000_000
        let edit = AppWire.Event.userEdited(.changeSite(scope: "Docs.Example.COM.", set: SiteValues(), reset: [.theme, .mode]))
        #expect(try AppWire.input(for: edit, now: now, seed: 9)
            == .userEdited(.changeSite(try ScopeKey.parse("docs.example.com"), set: SiteValues(), reset: [.mode, .theme]), now: now))
        #expect(try AppWire.input(for: .launched, now: now, seed: 9) == .launched(now: now, seed: 9))
        #expect(try AppWire.input(for: .cameToForeground, now: now, seed: 9) == .cameToForeground(now: now))
        #expect(try AppWire.input(for: .changeNotificationArrived, now: now, seed: 9) == .changeNotificationArrived(now: now))
    }

    @Test func inputsThatCannotBeReadNameTheMemberAtFault() throws {
        func input(_ text: String) throws -> String? {
            let value = try json(text)
            return failure { () throws(NativeMessageError) in try AppWire.input(for: try AppWire.decode(value), now: 0, seed: 0) }
        }
        #expect(try input(#"{"type": "userEdited", "edit": {"kind": "deleteSite", "scope": ".co.uk"}}"#)
            == "edit.scope: 'co.uk' is a public suffix, not a registrable domain")
        #expect(try input(#"{"type": "userEdited", "edit": {"kind": "deleteSite", "scope": 3}}"#) == "edit.scope: expected a scope key string")
        #expect(try input(#"{"type": "userEdited", "edit": {"kind": "changeSite", "scope": "a.example", "reset": ["mode", "mode"]}}"#)
            == "edit.reset[1]: field 'mode' listed twice")
        #expect(try input(#"{"type": "userEdited", "edit": {"kind": "setDefaults", "set": {"schedule": {"start": "25:00", "end": "06:00"}}}}"#)
            == #"edit.set.schedule: expected {"start": "HH:MM", "end": "HH:MM"}"#)
        #expect(try input(#"{"type": "userEdited", "edit": {"kind": "changeSite", "scope": "a.example", "set": {"theme": "plaid"}}}"#)
            == "edit.set.theme: unknown theme 'plaid'")
        #expect(try input(#"{"type": "started"}"#) == "type: expected launched, cameToForeground, changeNotificationArrived or userEdited")
    }

    @Test func aMalformedDirectiveIsRefusedNamingTheMemberAtFault() throws {
        #expect(failure { try AppWire.directive(try! json(#"{"type": "editSaved", "revision": "43", "changed": true}"#)) }
            == "revision: expected an integer")
        #expect(failure { try AppWire.directive(try! json(#"{"type": "editRefused", "code": "tired", "message": ""}"#)) }
            == "code: expected one of invalidMessage, readOnly, tooLarge, storageFailure")
        #expect(failure { try AppWire.directive(try! json("""
            {"type": "showView", "view": {"revision": 1, "readOnly": false, "sites": [],
             "defaults": {"mode": "bright", "theme": "dark", "nativeDarkPolicy": "respect", "schedule": "20:00-06:00"}}}
            """)) } == "view.defaults.mode: expected one of on, off, auto, scheduled")
        #expect(failure { try AppWire.directive(try! json("""
            {"type": "showView", "view": {"revision": 1, "readOnly": false,
             "defaults": {"mode": "on", "theme": "dark", "nativeDarkPolicy": "respect", "schedule": "20:00-06:00"},
             "sites": [{"key": "a.example", "overrides": {}, "inherited": ["colour"], "redundant": []}]}}
            """)) } == "view.sites[0].inherited[0]: expected one of mode, theme, nativeDarkPolicy")
        #expect(failure { try AppWire.directive(try! json(#"{"type": "messageExtension", "extra": 1}"#)) } == "extra: unknown member")
        #expect(failure { try AppWire.directive(try! json(#"{"type": "redraw"}"#)) } == "type: unknown directive 'redraw'")
    }
}
