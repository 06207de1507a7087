import Testing
@testable import SiteSettings

struct ResolverTests {
    /// Domain, host and page records for one registrable domain, each overriding different fields.
    private static let scoped = """
        {"defaults": {"mode": "on", "theme": "gray", "nativeDarkPolicy": "respect"},
         "sites": {".example.org": {"mode": "off", "nativeDarkPolicy": "override", "modifiedAt": 1},
                   "docs.example.org": {"theme": "sepia", "modifiedAt": 1},
                   "docs.example.org/guide/intro": {"theme": "invert", "modifiedAt": 1},
                   "[2001:db8::1]/admin": {"mode": "off", "modifiedAt": 1},
                   "192.0.2.7": {"theme": "dark", "modifiedAt": 1},
                   "xn--bcher-kva.example": {"theme": "sepia", "modifiedAt": 1},
                   ".city.kawasaki.jp": {"theme": "dark", "modifiedAt": 1},
                   ".kawasaki.jp": {"theme": "sepia", "modifiedAt": 1}}}
        """

    private func settings(_ url: String) throws -> EffectiveSettings {
        let resolver = Resolver(document: try Fixture.decode(Self.scoped))
        guard case .success(let address) = PageAddress.parse(url) else {
            Issue.record("cannot parse \(url)")
            return resolver.settings(for: PageAddress(host: try HostName.parse("invalid.example"), path: "/"))
        }
        return resolver.settings(for: address)
    }

    /// (URL, key of the record used, mode, theme, policy, sources of mode/theme/policy)
    @Test(arguments: [
        ("https://docs.example.org/guide/intro", "docs.example.org/guide/intro", Mode.on, Theme.invert, NativeDarkPolicy.respect, "dsd"),
        ("https://docs.example.org/guide/./x/../intro?q=1#top", "docs.example.org/guide/intro", .on, .invert, .respect, "dsd"),
        ("https://docs.example.org/guide/intro/", "docs.example.org", .on, .sepia, .respect, "dsd"),
        ("https://docs.example.org/other", "docs.example.org", .on, .sepia, .respect, "dsd"),
        ("http://DOCS.Example.ORG.:8080/", "docs.example.org", .on, .sepia, .respect, "dsd"),
        ("https://example.org/", ".example.org", .off, .gray, .override, "sds"),
        ("https://a.b.example.org/guide/intro", ".example.org", .off, .gray, .override, "sds"),
        ("https://example.com/", nil, .on, .gray, .respect, "ddd"),
        ("https://notexample.org/", nil, .on, .gray, .respect, "ddd"),
        ("https://[2001:DB8:0::1]:443/admin", "[2001:db8::1]/admin", .off, .gray, .respect, "sdd"),
        ("https://[2001:db8::1]/", nil, .on, .gray, .respect, "ddd"),
        ("https://192.0.2.7/page", "192.0.2.7", .on, .dark, .respect, "dsd"),
        ("https://bücher.example/", "xn--bcher-kva.example", .on, .sepia, .respect, "dsd"),
        ("https://BÜCHER.example/", "xn--bcher-kva.example", .on, .sepia, .respect, "dsd"),
        ("https://xn--bcher-kva.example/", "xn--bcher-kva.example", .on, .sepia, .respect, "dsd"),
        // *.kawasaki.jp with the exception !city.kawasaki.jp: www.city.kawasaki.jp belongs to
        // city.kawasaki.jp, not to kawasaki.jp, although both names are registrable.
        ("https://www.city.kawasaki.jp/", ".city.kawasaki.jp", .on, .dark, .respect, "dsd"),
        ("https://kawasaki.jp/", ".kawasaki.jp", .on, .sepia, .respect, "dsd"),
        ("https://foo.bar.kawasaki.jp/", nil, .on, .gray, .respect, "ddd"),
    ] as [(String, String?, Mode, Theme, NativeDarkPolicy, String)])
    func theMostSpecificRecordWinsAndNothingMergesAcrossScopes(
        url: String, scope: String?, mode: Mode, theme: Theme, policy: NativeDarkPolicy, sources: String
    ) throws {
        let result = try settings(url)
        #expect(result.scope?.text == scope)
        #expect(result.mode == mode)
        #expect(result.theme == theme)
        #expect(result.nativeDarkPolicy == policy)
        let letters = String([result.modeSource, result.themeSource, result.nativeDarkPolicySource].map { $0 == .site ? "s" : "d" })
        #expect(letters == sources)
    }
}

struct DecisionTests {
    private static let document = """
        {"defaults": {"mode": "auto", "theme": "gray", "nativeDarkPolicy": "respect",
                      "schedule": {"start": "20:00", "end": "06:00"}},
         "sites": {"on.example": {"mode": "on", "modifiedAt": 1},
                   "off.example": {"mode": "off", "modifiedAt": 1},
                   "sched.example": {"mode": "scheduled", "modifiedAt": 1},
                   "override.example": {"mode": "on", "nativeDarkPolicy": "override", "theme": "sepia", "modifiedAt": 1}}}
        """

    /// 2026-03-01T00:00:00Z
    private static let midnight: EpochMillis = 1_772_323_200_000
    private static func at(_ hhmm: String, offset: Int = 0) -> EpochMillis {
        midnight + Int64(TimeOfDay(hhmm)!.minutes) * 60_000 - Int64(offset) * 60_000
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var url: String
        var appearance: Appearance = .light
        var now: EpochMillis = DecisionTests.at("12:00")
        var offset = 0
        var pausedUntil: EpochMillis?
        var nativeDark = false
        var enabled: Bool
        var reason: DecisionReason
        var testDescription: String { "\(url) \(appearance) \(reason)" }
    }

    @Test(arguments: [
        Case(url: "about:blank", appearance: .dark, enabled: false, reason: .unsupportedURL),
        Case(url: "file:///Users/me/page.html", appearance: .dark, enabled: false, reason: .unsupportedURL),
        Case(url: "safari-web-extension://abc/popup.html", enabled: false, reason: .unsupportedURL),
        Case(url: "https://", enabled: false, reason: .unsupportedURL),
        Case(url: "not a url", enabled: false, reason: .unsupportedURL),
        Case(url: "https://on.example/", pausedUntil: DecisionTests.at("12:01"), enabled: false, reason: .paused),
        Case(url: "https://on.example/", pausedUntil: DecisionTests.at("12:00"), enabled: true, reason: .modeOn),
        Case(url: "file:///x", pausedUntil: DecisionTests.at("13:00"), enabled: false, reason: .unsupportedURL),
        Case(url: "https://on.example/", enabled: true, reason: .modeOn),
        Case(url: "https://off.example/", appearance: .dark, enabled: false, reason: .modeOff),
        Case(url: "https://any.example/", appearance: .dark, enabled: true, reason: .autoDark),
        Case(url: "https://any.example/", appearance: .light, enabled: false, reason: .autoLight),
        Case(url: "https://sched.example/", now: DecisionTests.at("20:00"), enabled: true, reason: .scheduleActive),
        Case(url: "https://sched.example/", now: DecisionTests.at("19:59"), enabled: false, reason: .scheduleInactive),
        Case(url: "https://sched.example/", now: DecisionTests.at("23:59"), enabled: true, reason: .scheduleActive),
        Case(url: "https://sched.example/", now: DecisionTests.at("00:00"), enabled: true, reason: .scheduleActive),
        Case(url: "https://sched.example/", now: DecisionTests.at("05:59"), enabled: true, reason: .scheduleActive),
        Case(url: "https://sched.example/", now: DecisionTests.at("06:00"), enabled: false, reason: .scheduleInactive),
        Case(url: "https://sched.example/", now: DecisionTests.at("21:00", offset: 120), offset: 120, enabled: true, reason: .scheduleActive),
        Case(url: "https://sched.example/", now: DecisionTests.at("21:00", offset: 120) - 2 * 3_600_000, offset: 120, enabled: false, reason: .scheduleInactive),
        Case(url: "https://sched.example/", now: DecisionTests.at("05:30", offset: -300), offset: -300, enabled: true, reason: .scheduleActive),
        Case(url: "https://on.example/", nativeDark: true, enabled: false, reason: .nativeDark),
        Case(url: "https://any.example/", appearance: .dark, nativeDark: true, enabled: false, reason: .nativeDark),
        Case(url: "https://any.example/", appearance: .light, nativeDark: true, enabled: false, reason: .autoLight),
        Case(url: "https://override.example/", nativeDark: true, enabled: true, reason: .modeOn),
        Case(url: "https://off.example/", nativeDark: true, enabled: false, reason: .modeOff),
        Case(url: "https://on.example/", pausedUntil: DecisionTests.at("23:00"), nativeDark: true, enabled: false, reason: .paused),
    ])
    func theDecisionFollowsTheDocumentedPrecedence(_ c: Case) throws {
        let resolver = Resolver(document: try Fixture.decode(Self.document))
        let context = DecisionContext(appearance: c.appearance, now: c.now, utcOffsetMinutes: c.offset,
                                      pausedUntil: c.pausedUntil, pageIsNativelyDark: c.nativeDark)
        let decision = resolver.decide(url: c.url, context: context)
        #expect(decision.enabled == c.enabled)
        #expect(decision.reason == c.reason)
    }

    @Test func theSameInputsAlwaysGiveTheSameDecision() throws {
        let document = try Fixture.decode(Self.document)
        let context = DecisionContext(appearance: .dark, now: Self.at("21:00"), pageIsNativelyDark: false)
        let first = Resolver(document: document).decide(url: "https://override.example/a", context: context)
        for _ in 0..<10 {
            #expect(Resolver(document: document).decide(url: "https://override.example/a", context: context) == first)
        }
        #expect(first.theme == .sepia)
    }

    @Test func anEmptyScheduleWindowIsNeverActive() {
        let window = Schedule(start: TimeOfDay("08:00")!, end: TimeOfDay("08:00")!)
        #expect(!window.contains(TimeOfDay("08:00")!))
        #expect(!window.contains(TimeOfDay("12:00")!))
    }
}
