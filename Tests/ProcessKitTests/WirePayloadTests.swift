import ProcessKit
import SiteSettings
import Testing

/// The payloads directives carry, read back from their JSON.
struct WirePayloadTests {
    @Test func everyPayloadReadsBackWhole() throws {
        for seed in UInt64(0)..<500 {
            var s = WireSamples(seed: seed)
            let decision = s.decision(), popup = s.popupView(), view = s.appView(), reply = s.reply(), request = s.request()
            #expect(try Decision.decode(throughBytes(decision.json)) == decision, "seed \(seed)")
            #expect(try PopupView.decode(throughBytes(popup.json)) == popup, "seed \(seed)")
            #expect(try AppView.decode(throughBytes(view.json)) == view, "seed \(seed)")
            #expect(try NativeReply.decode(throughBytes(reply.json)) == reply, "seed \(seed)")
            #expect(try NativeRequest.decode(throughBytes(request.json)) == request, "seed \(seed)")
        }
    }

    @Test func aDecisionShowsItsSchedule() throws {
        let decision = Resolver(document: SettingsDocument()).decide(url: "https://docs.example.com/", context: DecisionContext(appearance: .dark, now: 0))
        #expect(decision.json == (try json("""
            {"enabled": true, "theme": "dark", "reason": "autoDark", "scope": null, "mode": "auto", "nativeDarkPolicy": "respect",
             "schedule": "20:00-06:00", "source": {"mode": "default", "theme": "default", "nativeDarkPolicy": "default"}}
            """)))
    }

    @Test func aPopupForASupportedURLShowsTheRecordItsValuesComeFromAndTheSchedule() throws {
        var document = SettingsDocument()
        try document.apply(.changeSite(try ScopeKey.parse(".example.com"), set: SiteValues(theme: .sepia), reset: [], stamp: Stamp(at: 1_783_936_800_000)))
        let address = try PageAddress.parse("https://docs.example.com/guide").get()
        let view = PopupView(tab: TabID("t1"), url: "https://docs.example.com/guide", unsupported: false, scopes: address.scopeKeys(),
                             selectedScope: try ScopeKey.parse("docs.example.com"),
                             settings: Resolver(document: document).settings(for: address), pausedUntil: nil)
        #expect(view.json == (try json("""
            {"tab": "t1", "url": "https://docs.example.com/guide", "unsupported": false,
             "scopes": ["docs.example.com/guide", "docs.example.com", ".example.com"], "selectedScope": "docs.example.com",
             "pausedUntil": null, "recordScope": ".example.com", "schedule": "20:00-06:00",
             "fields": {"mode": {"value": "auto", "source": "default"}, "theme": {"value": "sepia", "source": "site"},
                        "nativeDarkPolicy": {"value": "respect", "source": "default"}}}
            """)))
        let unsupported = PopupView(tab: TabID("t2"), url: "about:blank", unsupported: true, scopes: [], selectedScope: nil,
                                    settings: nil, pausedUntil: 1_783_936_900_000)
        #expect(unsupported.json == (try json("""
            {"tab": "t2", "url": "about:blank", "unsupported": true, "scopes": [], "selectedScope": null, "pausedUntil": 1783936900000}
            """)))
    }

    @Test func theAppsViewHoldsTheDefaultValuesNotWhenTheyChanged() throws {
        var document = SettingsDocument(documentId: "doc-1")
        try document.apply(.setDefaults(DefaultsValues(theme: .gray), stamp: Stamp(at: 1_783_936_800_000, origin: .app, edit: 1)))
        let view = AppView(document)
        #expect(view.defaults.theme == .gray)
        #expect(view.defaults.changedAt.isEmpty)
        #expect(try AppView.decode(throughBytes(view.json)) == view)
    }

    @Test func aRequestIsReadAsSentEvenWhereTheHandlerWouldRefuseIt() throws {
        // No field at all, a time before 1973 and reset fields out of order: the handler refuses
        // the first two and sorts the third, but the wire carries them as they are.
        let empty = NativeRequest.patch(scope: try ScopeKey.parse("a.example"), set: SiteValues(), reset: [],
                                        stamp: Stamp(at: 5, origin: .extension, edit: 1))
        #expect(NativeRequest.decode(empty.json) == empty)
        let unsorted = NativeRequest.patch(scope: try ScopeKey.parse("a.example"), set: SiteValues(), reset: [.theme, .mode],
                                           stamp: Stamp(at: 1_783_936_800_000, origin: .extension, edit: 2))
        #expect(NativeRequest.decode(unsorted.json) == unsorted)
        #expect(failure { try NativeRequest.parse(empty.json, now: 1_783_936_800_000) } != nil)
    }
}
