@testable import HarnessCore
import SiteSettings
import Testing

/// The reference decision at the edges of each rule, and invariant 12 catching a decision that
/// is not the reference's.
struct ReferenceDecisionTests {
    /// 2026-03-01T00:00:00Z.
    static let midnight: EpochMillis = 1_772_323_200_000
    static func at(_ hours: Int, _ minutes: Int, seconds: Int = 0) -> EpochMillis {
        midnight + EpochMillis(hours * 3_600_000 + minutes * 60_000 + seconds * 1000)
    }

    static func document(_ json: String) throws -> SettingsDocument { try DocumentCodec.decode(Array(json.utf8)).document }

    static let sites = """
        {"revision": 7,
         "defaults": {"mode": "on", "theme": "gray", "nativeDarkPolicy": "respect", "schedule": {"start": "20:00", "end": "06:00"}},
         "sites": {"docs.example.com/guide": {"theme": "sepia", "modifiedAt": 1783936800},
                   "docs.example.com": {"mode": "off", "nativeDarkPolicy": "override", "modifiedAt": 1783936800},
                   ".example.com": {"theme": "invert", "mode": "auto", "modifiedAt": 1783936800},
                   ".city.kawasaki.jp": {"theme": "sepia", "modifiedAt": 1783936800},
                   ".a.b.kawasaki.jp": {"theme": "invert", "modifiedAt": 1783936800},
                   "xn--bcher-kva.example": {"theme": "sepia", "modifiedAt": 1783936800},
                   "192.0.2.1": {"mode": "off", "modifiedAt": 1783936800},
                   "192.0.2.1/a/b": {"theme": "sepia", "modifiedAt": 1783936800},
                   "[2001:db8::1]": {"theme": "invert", "modifiedAt": 1783936800},
                   "www.ck": {"theme": "sepia", "modifiedAt": 1783936800},
                   "example.net/a/c": {"theme": "invert", "modifiedAt": 1783936800},
                   "unknown.example": {"theme": "neon", "modifiedAt": 1783936800}}}
        """

    // MARK: - Reading a URL

    static let readable: [(String, String, String, String?)] = [
        ("https://a.b.Docs.Example.co.uk:8443/x/../guide?q#f", "a.b.docs.example.co.uk", "/guide", ".example.co.uk"),
        ("http://Docs.Example.COM./", "docs.example.com", "/", ".example.com"),
        ("https://docs.example.com", "docs.example.com", "/", ".example.com"),
        ("https://user:pw@docs.example.com/a", "docs.example.com", "/a", ".example.com"),
        ("https://co.uk/", "co.uk", "/", nil),
        ("https://localhost/", "localhost", "/", nil),
        ("https://192.0.2.1/a", "192.0.2.1", "/a", nil),
        ("https://[2001:DB8:0:0:0:0:0:1]:443/", "[2001:db8::1]", "/", nil),
        ("https://[2001:db8:0:1:0:0:1:0]/", "[2001:db8:0:1::1:0]", "/", nil),
        ("https://bücher.example/", "xn--bcher-kva.example", "/", ".xn--bcher-kva.example"),
        ("https://BÜCHER.example/", "xn--bcher-kva.example", "/", ".xn--bcher-kva.example"),
        ("https://例え.テスト/", "xn--r8jz45g.xn--zckzah", "/", ".xn--r8jz45g.xn--zckzah"),
        // Wildcard and exception rules: *.kawasaki.jp, !city.kawasaki.jp; *.ck, !www.ck; *.bd.
        ("https://www.city.kawasaki.jp/", "www.city.kawasaki.jp", "/", ".city.kawasaki.jp"),
        ("https://city.kawasaki.jp/", "city.kawasaki.jp", "/", ".city.kawasaki.jp"),
        ("https://b.kawasaki.jp/", "b.kawasaki.jp", "/", nil),
        ("https://a.b.kawasaki.jp/", "a.b.kawasaki.jp", "/", ".a.b.kawasaki.jp"),
        ("https://kawasaki.jp/", "kawasaki.jp", "/", ".kawasaki.jp"),
        ("https://a.www.ck/", "a.www.ck", "/", ".www.ck"),
        ("https://other.ck/", "other.ck", "/", nil),
        ("https://example.bd/", "example.bd", "/", nil),
        ("https://a.example.bd/", "a.example.bd", "/", ".a.example.bd"),
        ("https://x.blogspot.com/", "x.blogspot.com", "/", ".x.blogspot.com"),
        // Dot segments, %2e among them.
        ("https://e.example/a/./b/../c", "e.example", "/a/c", ".e.example"),
        ("https://e.example/a/%2E%2e/b/%2e/c", "e.example", "/b/c", ".e.example"),
        ("https://e.example/a/b/..", "e.example", "/a/", ".e.example"),
        ("https://e.example/../..", "e.example", "/", ".e.example"),
        ("https://e.example/a/.%2E", "e.example", "/", ".e.example"),
        ("https://e.example/a//b/", "e.example", "/a//b/", ".e.example"),
        ("https://e.example/a..b/.c", "e.example", "/a..b/.c", ".e.example"),
        // Read as the URL Standard reads these schemes.
        (" https:\\\\e.example\\a\\..\\b ", "e.example", "/b", ".e.example"),
        ("HTTPS:e.example", "e.example", "/", ".e.example"),
    ]

    @Test(arguments: readable)
    func aURLIsReadToItsKeys(url: String, host: String, path: String, domain: String?) throws {
        let address = try #require(ReferenceAddress.read(url))
        #expect(address.host == host)
        #expect(address.path == path)
        let keys = ReferenceDecision.keys(of: address, suffixes: .embedded)
        #expect(keys == [host + path, host] + (domain.map { [$0] } ?? []))
    }

    static let unsupported = ["about:blank", "ftp://docs.example.com/", "file:///etc/hosts", "https://", "https:///", "https://?q", "https://docs..example.com/",
                      "https://.example.com/", "https://a b.example/", "https://[2001:db8::1/", "https://[1:2:3:4:5:6:7:8:9]/",
                      "https://example.com:99999/", "https://example.com:8a/", "https://1.2.3/", "https://256.1.1.1/", "docs.example.com",
                      "https://" + String(repeating: "a", count: 64) + ".example/"]

    @Test(arguments: unsupported)
    func aURLThatIsNotHTTPOrHasNoValidHostIsUnsupported(url: String) {
        #expect(ReferenceAddress.read(url) == nil)
    }

    /// Beside the rules' own edges, the product gives every URL above the reference's decision,
    /// under each appearance, with and without a page's own dark theme.
    @Test func theProductAgreesWithTheReferenceOnEveryURLAbove() throws {
        let document = try Self.document(Self.sites)
        let resolver = Resolver(document: document)
        for url in Self.readable.map(\.0) + Self.unsupported + Self.cases.map(\.url) {
            for appearance in Appearance.allCases {
                for nativeDark in [false, true] {
                    let context = DecisionContext(appearance: appearance, now: Self.at(12, 0), pageIsNativelyDark: nativeDark)
                    let reference = ReferenceDecision.decide(url: url, document: document, context: context)
                    let product = ReferenceDecision(resolver.decide(url: url, context: context))
                    #expect(reference.agrees(with: product), "\(url): \(reference.differences(from: product))")
                }
            }
        }
    }

    @Test func theEmbeddedRulesAreTheListsRules() {
        let rules = PublicSuffixRules.embedded
        #expect(rules.count == 9506)
        #expect(rules.contains("*.kawasaki.jp") && rules.contains("!city.kawasaki.jp") && rules.contains("co.uk"))
        #expect(!rules.contains("kawasaki.jp"))
    }

    @Test func aListInTheDatFormatIsReadAsItsRules() {
        let list = ReferenceSuffixList(datText: "// a tiny list\nuk\nco.uk\n*.Example.co.uk extra words\n!www.example.co.uk\nbücher\n")
        #expect(list.registrableDomain(of: "a.b.example.co.uk") == "a.b.example.co.uk")
        #expect(list.registrableDomain(of: "a.www.example.co.uk") == "www.example.co.uk")
        #expect(list.registrableDomain(of: "a.xn--bcher-kva") == "a.xn--bcher-kva")
        #expect(list.registrableDomain(of: "xn--bcher-kva") == nil)
    }

    @Test(arguments: [("bücher", "bcher-kva"), ("例え", "r8jz45g"), ("テスト", "zckzah"), ("mañana", "maana-pta"),
                      ("ü", "tda"), ("☃-⌘", "--dqo34k")])
    func punycodeEncodesAsRFC3492Says(label: String, encoded: String) {
        #expect(ReferencePunycode.encode(Array(label.unicodeScalars)) == encoded)
    }

    // MARK: - Deciding

    struct Case: CustomStringConvertible, Sendable {
        var url: String
        var appearance: Appearance = .light
        var now: EpochMillis = ReferenceDecisionTests.at(12, 0)
        var offset = 0
        var pausedUntil: EpochMillis?
        var nativeDark = false
        var defaults: String?
        /// `enabled reason theme scope`, and the sources `mode,theme,policy` (s or d).
        var expected: String
        var description: String { "\(url) \(expected)" }
    }

    static let cases: [Case] = [
        // Scope precedence: the page's record alone (its missing fields from the defaults, not the host's).
        Case(url: "https://docs.example.com/guide", expected: "true modeOn sepia docs.example.com/guide d,s,d"),
        Case(url: "https://docs.example.com/x/../guide?q=1#top", expected: "true modeOn sepia docs.example.com/guide d,s,d"),
        Case(url: "https://docs.example.com/guide/", expected: "false modeOff gray docs.example.com s,d,s"),
        Case(url: "https://docs.example.com/", expected: "false modeOff gray docs.example.com s,d,s"),
        Case(url: "https://www.example.com/", expected: "false autoLight invert .example.com s,s,d"),
        Case(url: "https://www.example.com/", appearance: .dark, expected: "true autoDark invert .example.com s,s,d"),
        Case(url: "http://example.com:8080/", appearance: .dark, expected: "true autoDark invert .example.com s,s,d"),
        Case(url: "https://news.example.org/", expected: "true modeOn gray none d,d,d"),
        // The Public Suffix List's wildcard and exception rules.
        Case(url: "https://www.city.kawasaki.jp/", expected: "true modeOn sepia .city.kawasaki.jp d,s,d"),
        Case(url: "https://x.a.b.kawasaki.jp/", expected: "true modeOn invert .a.b.kawasaki.jp d,s,d"),
        Case(url: "https://b.kawasaki.jp/", expected: "true modeOn gray none d,d,d"),
        Case(url: "https://www.ck/", expected: "true modeOn sepia www.ck d,s,d"),
        // IDN, IP hosts (host and page keys only).
        Case(url: "https://BÜCHER.example./", expected: "true modeOn sepia xn--bcher-kva.example d,s,d"),
        Case(url: "https://192.0.2.1/a/b", expected: "true modeOn sepia 192.0.2.1/a/b d,s,d"),
        Case(url: "https://192.0.2.1/a/./b", expected: "true modeOn sepia 192.0.2.1/a/b d,s,d"),
        Case(url: "https://192.0.2.1/a/", expected: "false modeOff gray 192.0.2.1 s,d,d"),
        Case(url: "https://[2001:db8:0::1]:8443/", expected: "true modeOn invert [2001:db8::1] d,s,d"),
        Case(url: "https://example.net/a/b/%2e%2E/c", expected: "true modeOn invert example.net/a/c d,s,d"),
        // Unsupported URLs are off before anything else, a pause too.
        Case(url: "about:blank", pausedUntil: at(13, 0), expected: "false unsupportedUrl"),
        Case(url: "ftp://docs.example.com/", expected: "false unsupportedUrl"),
        Case(url: "https://docs..example.com/", expected: "false unsupportedUrl"),
        // The pause ends at its time: now < pausedUntil.
        Case(url: "https://news.example.org/", now: at(12, 0), pausedUntil: at(12, 0, seconds: 1) - 999, expected: "false paused gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(12, 0), pausedUntil: at(12, 0), expected: "true modeOn gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(12, 0) + 1, pausedUntil: at(12, 0), expected: "true modeOn gray none d,d,d"),
        // The schedule's window [start, end), over midnight, read at the offset.
        Case(url: "https://news.example.org/", now: at(20, 0), defaults: "scheduled 20:00-06:00", expected: "true scheduleActive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(20, 0) - 1, defaults: "scheduled 20:00-06:00", expected: "false scheduleInactive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(6, 0) - 1, defaults: "scheduled 20:00-06:00", expected: "true scheduleActive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(6, 0), defaults: "scheduled 20:00-06:00", expected: "false scheduleInactive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(0, 0), defaults: "scheduled 20:00-06:00", expected: "true scheduleActive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(9, 0), defaults: "scheduled 09:00-09:01", expected: "true scheduleActive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(9, 1), defaults: "scheduled 09:00-09:01", expected: "false scheduleInactive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(9, 0), defaults: "scheduled 09:00-09:00", expected: "false scheduleInactive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(19, 30), offset: 60, defaults: "scheduled 20:00-06:00", expected: "true scheduleActive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(5, 30), offset: -60, defaults: "scheduled 20:00-06:00", expected: "true scheduleActive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: at(7, 0), offset: -60, defaults: "scheduled 20:00-06:00", expected: "false scheduleInactive gray none d,d,d"),
        Case(url: "https://news.example.org/", now: 0, offset: -30, defaults: "scheduled 23:30-23:31", expected: "true scheduleActive gray none d,d,d"),
        // A natively dark page under respect is left alone; under override it is not; off stays off.
        Case(url: "https://news.example.org/", nativeDark: true, expected: "false nativeDark gray none d,d,d"),
        Case(url: "https://docs.example.com/", appearance: .dark, nativeDark: true, expected: "false modeOff gray docs.example.com s,d,s"),
        Case(url: "https://www.example.com/", appearance: .dark, nativeDark: true, expected: "false nativeDark invert .example.com s,s,d"),
        Case(url: "https://news.example.org/", pausedUntil: at(13, 0), nativeDark: true, expected: "false paused gray none d,d,d"),
        // Unknown themes render as the default theme, or the built-in dark when that is unknown
        // too, and come from the default.
        Case(url: "https://unknown.example/", expected: "true modeOn gray unknown.example d,d,d"),
        Case(url: "https://unknown.example/", defaults: "on neon", expected: "true modeOn dark unknown.example d,d,d"),
        Case(url: "https://news.example.org/", defaults: "on neon", expected: "true modeOn dark none d,d,d"),
    ]

    @Test(arguments: cases)
    func theDecisionFollowsTheRules(_ test: Case) throws {
        var json = Self.sites
        if let defaults = test.defaults {
            let words = defaults.split(separator: " ")
            var block = #""mode": "\#(words[0])", "theme": "gray", "nativeDarkPolicy": "respect", "schedule": {"start": "20:00", "end": "06:00"}"#
            if words[1].contains(":") {
                let times = words[1].split(separator: "-")
                block = block.replacing(#""start": "20:00", "end": "06:00""#, with: #""start": "\#(times[0])", "end": "\#(times[1])""#)
            } else {
                block = block.replacing(#""theme": "gray""#, with: #""theme": "\#(words[1])""#)
            }
            json = json.replacing(#""mode": "on", "theme": "gray", "nativeDarkPolicy": "respect", "schedule": {"start": "20:00", "end": "06:00"}"#, with: block)
        }
        let document = try Self.document(json)
        let context = DecisionContext(appearance: test.appearance, now: test.now, utcOffsetMinutes: test.offset, pausedUntil: test.pausedUntil,
                                      pageIsNativelyDark: test.nativeDark)
        let decision = ReferenceDecision.decide(url: test.url, document: document, context: context)
        var shown = "\(decision.enabled) \(decision.reason)"
        if let settings = decision.settings {
            let sources = [settings.modeSource, settings.themeSource, settings.nativeDarkPolicySource].map { $0 == "site" ? "s" : "d" }
            shown += " \(settings.theme) \(settings.scope ?? "none") " + sources.joined(separator: ",")
        }
        #expect(shown == test.expected)
        // The product agrees on every case.
        let product = ReferenceDecision(Resolver(document: document).decide(url: test.url, context: context))
        #expect(decision.agrees(with: product), "\(decision.differences(from: product))")
    }

    @Test func theMinuteOfTheDayFloorsBeforeTheEpoch() {
        #expect(ReferenceDecision.minuteOfDay(now: 0, utcOffsetMinutes: 0) == 0)
        #expect(ReferenceDecision.minuteOfDay(now: -1, utcOffsetMinutes: 0) == 1439)
        #expect(ReferenceDecision.minuteOfDay(now: 59_999, utcOffsetMinutes: -1) == 1439)
        #expect(ReferenceDecision.minuteOfDay(now: Self.at(23, 59, seconds: 59), utcOffsetMinutes: 1) == 0)
    }

    // MARK: - Invariant 12

    /// A tab that shows a decision the reference does not give (here the product's own decision
    /// for another appearance, as a mistake in reading the appearance would make it) breaks
    /// invariant 12, with the URL, both decisions and the records; the right one does not.
    @Test func aConvergedTabShowingAnotherDecisionThanTheReferenceBreaksInvariantTwelve() throws {
        let document = try Self.document(Self.sites)
        let check = ReferenceCheck()
        let url = "https://www.example.com/"
        let context = DecisionContext(appearance: .light, now: Self.at(12, 0))
        let right = Resolver(document: document).decide(url: url, context: context)
        #expect(check.problem(tab: "t1", url: url, shows: right, document: document, context: context) == nil)
        var dark = context
        dark.appearance = .dark
        let wrong = Resolver(document: document).decide(url: url, context: dark)
        let problem = try #require(check.problem(tab: "t1", url: url, shows: wrong, document: document, context: context))
        #expect(problem.property == .invariant(12))
        #expect(problem.description == "tab t1 at https://www.example.com/ shows enabled=true (reference false), reason=autoDark (reference autoLight), "
            + "as the product resolves the shared document; the reference gives enabled=false reason=autoLight theme=invert mode=auto "
            + "nativeDarkPolicy=respect schedule=20:00-06:00 scope=.example.com source.mode=site source.theme=site source.nativeDarkPolicy=default "
            + "from the shared document (revision 7), page www.example.com/ no record, host www.example.com no record, "
            + "domain .example.com mode=auto theme=invert, defaults mode=on theme=gray nativeDarkPolicy=respect schedule=20:00-06:00; "
            + "appearance light, local time 12:00 (UTC), no pause, page not natively dark (invariant 12)")
        // Another record chosen is caught too: the host's decision shown for the page.
        let page = "https://docs.example.com/guide"
        let hostDecision = Resolver(document: document).decide(url: "https://docs.example.com/", context: context)
        let scope = try #require(check.problem(tab: "t2", url: page, shows: hostDecision, document: document, context: context))
        #expect(scope.message.contains("scope=docs.example.com (reference docs.example.com/guide)"))
    }

    /// What the check keeps per URL is dropped when the document changes.
    @Test func theCheckReadsTheDocumentAgainWhenItChanges() throws {
        let check = ReferenceCheck()
        let url = "https://docs.example.com/guide"
        let context = DecisionContext(now: Self.at(12, 0))
        let before = try Self.document(Self.sites)
        #expect(check.decision(url: url, document: before, context: context).settings?.theme == "sepia")
        var after = before
        after.sites[try ScopeKey.parse("docs.example.com/guide")] = nil
        #expect(check.decision(url: url, document: after, context: context).settings?.scope == "docs.example.com")
    }
}
