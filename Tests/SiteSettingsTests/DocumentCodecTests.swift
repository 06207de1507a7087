import Testing
@testable import SiteSettings

struct DocumentCodecTests {
    @Test func theArticleShapeLoadsWithSecondsReadAsMilliseconds() throws {
        let document = try Fixture.decode(Fixture.articleShape)
        #expect(document.schemaVersion == 1)
        #expect(document.documentId == nil)
        #expect(document.revision == 42)
        #expect(document.defaults.mode == .auto)
        #expect(document.defaults.theme == .gray)
        #expect(document.defaults.nativeDarkPolicy == .respect)
        #expect(document.defaults.schedule == Schedule(start: TimeOfDay("20:00")!, end: TimeOfDay("06:00")!))
        let docs = try #require(document.sites[Fixture.key("docs.example.com")])
        #expect(docs.values == SiteValues(theme: .sepia))
        #expect(docs.changedAt == [.theme: Stamp(at: 1_783_936_800_000)])
        let studio = try #require(document.sites[Fixture.key("studio.example")])
        #expect(studio.values == SiteValues(mode: .off))
        #expect(studio.modifiedAt == 1_783_936_920_000)
        #expect(document.sites.count == 2)
        #expect(document.tombstones.isEmpty)
    }

    /// The settings article's example as it writes it (tabs, members in its order, times in
    /// seconds): `Fixtures/article-example.json`.
    @Test func theArticleExampleLoadsExactlyAsWritten() throws {
        let text = try Fixture.text("article-example.json")
        let decoded = try DocumentCodec.decode(Array(text.utf8))
        #expect(decoded.document == (try Fixture.decode(Fixture.articleShape)))
        #expect(decoded.notes.isEmpty)
    }

    @Test func aDocumentSurvivesEncodingAndDecoding() throws {
        var document = try Fixture.decode(Fixture.articleShape)
        document.documentId = "3F2A0000-0000-4000-8000-000000000000"
        try document.apply(Fixture.set("example.net/tools/editor", SiteValues(nativeDarkPolicy: .override), Fixture.popup(1_783_937_000_000, edit: 7)))
        try document.apply(Fixture.reset("docs.example.com", [.theme], Fixture.app(1_783_937_100_000)))
        try document.apply(.deleteSite(Fixture.key("studio.example"), stamp: Fixture.app(1_783_937_200_000, edit: 2)))
        try document.apply(Fixture.set(".example.org", SiteValues(mode: .off, theme: Theme(rawValue: "gray")), Fixture.app(1_783_937_300_000, edit: 3)))
        try document.apply(Fixture.reset(".example.org", [.mode], Fixture.popup(1_783_937_400_000, edit: 8)))
        let bytes = DocumentCodec.encode(document)
        let decoded = try DocumentCodec.decode(bytes)
        #expect(decoded.document == document)
        #expect(decoded.notes.isEmpty)
        #expect(DocumentCodec.encode(decoded.document) == bytes)
    }

    @Test func encodingDoesNotDependOnInsertionOrder() throws {
        var a = SettingsDocument(), b = SettingsDocument()
        let keys = (0..<50).map { "site\($0).example" }
        for (i, key) in keys.enumerated() { a.sites[Fixture.key(key)] = SiteRecord(values: SiteValues(mode: .on), changedAt: [.mode: Stamp(at: Int64(i))]) }
        for (i, key) in keys.enumerated().reversed() { b.sites[Fixture.key(key)] = SiteRecord(values: SiteValues(mode: .on), changedAt: [.mode: Stamp(at: Int64(i))]) }
        #expect(DocumentCodec.encode(a) == DocumentCodec.encode(b))
    }

    @Test(arguments: [
        (99_999_999_999, 99_999_999_999_000),
        (100_000_000_000, 100_000_000_000),
        (1_783_936_800, 1_783_936_800_000),
        (1_783_936_800_000, 1_783_936_800_000),
        (0, 0),
    ] as [(Int64, Int64)])
    func storedTimesBelowTenToTheElevenAreSeconds(stored: Int64, millis: Int64) throws {
        let document = try Fixture.decode(#"{"sites": {"a.example": {"mode": "on", "modifiedAt": \#(stored)}}}"#)
        #expect(document.sites[Fixture.key("a.example")]?.modifiedAt == millis)
    }

    @Test func timesReadAsSecondsAreWrittenBackAsSecondsSoNormalizingTwiceChangesNothing() throws {
        let once = DocumentCodec.encode(try Fixture.decode(#"{"sites": {"a.example": {"mode": "on", "modifiedAt": 5}}, "tombstones": {"b.example": 7}}"#))
        let twice = DocumentCodec.encode(try DocumentCodec.decode(once).document)
        #expect(once == twice)
        #expect(try DocumentCodec.decode(once).document.sites[Fixture.key("a.example")]?.modifiedAt == 5_000)
    }

    @Test func anEditTimeThatWouldReadBackAsSecondsIsRefused() throws {
        var document = SettingsDocument()
        #expect(throws: EditError.timeTooEarly(5_000)) {
            try document.apply(Fixture.set("a.example", SiteValues(mode: .on), Fixture.app(5_000)))
        }
    }

    @Test func anUnknownThemeIsKeptAsWrittenAndRendersAsTheDefault() throws {
        let document = try Fixture.decode(#"{"defaults": {"theme": "gray"}, "sites": {"a.example": {"theme": "aurora", "modifiedAt": 5}}}"#)
        #expect(document.sites[Fixture.key("a.example")]?.values.theme == Theme(rawValue: "aurora"))
        let text = String(decoding: DocumentCodec.encode(document), as: UTF8.self)
        #expect(text.contains(#""theme":"aurora""#))
        let decision = Resolver(document: document).decide(url: "https://a.example/", context: DecisionContext(now: 0))
        #expect(decision.theme == .gray)
        #expect(decision.settings.themeSource == .default)
    }

    @Test func anUnknownDefaultThemeRendersAsTheBuiltInTheme() throws {
        let document = try Fixture.decode(#"{"defaults": {"theme": "aurora"}}"#)
        #expect(document.defaults.theme.rawValue == "aurora")
        #expect(Resolver(document: document).decide(url: "https://x.example/", context: DecisionContext(now: 0)).theme == Defaults.builtIn.theme)
    }

    @Test func normalizationFillsMissingDefaultsAndDropsUnknownValuesWithNotes() throws {
        let decoded = try DocumentCodec.decode(Array(#"{"defaults": {"mode": "sunset"}, "sites": {"a.example": {"mode": "sometimes", "theme": "sepia", "colour": 3, "modifiedAt": 9}}, "extra": true}"#.utf8))
        let document = decoded.document
        #expect(document.defaults == Defaults.builtIn)
        #expect(document.sites[Fixture.key("a.example")]?.values == SiteValues(theme: .sepia))
        let notes = decoded.notes.map(\.description)
        #expect(notes.contains { $0.contains("sunset") })
        #expect(notes.contains { $0.contains("sometimes") })
        #expect(notes.contains { $0.contains("colour") && $0.contains("unknown member") })
        #expect(notes.contains { $0.contains("extra") })
        #expect(notes.contains { $0.contains("nativeDarkPolicy") && $0.contains("missing") })
    }

    @Test func keysAreMadeCanonicalAndCollidingSpellingsMergePerField() throws {
        let decoded = try DocumentCodec.decode(Array(#"""
            {"sites": {"Docs.Example.COM.": {"theme": "sepia", "modifiedAt": 200},
                       "docs.example.com": {"theme": "gray", "mode": "on", "modifiedAt": 100}}}
            """#.utf8))
        let record = try #require(decoded.document.sites[Fixture.key("docs.example.com")])
        #expect(record.values == SiteValues(mode: .on, theme: .sepia))
        #expect(decoded.document.sites.count == 1)
        #expect(decoded.notes.contains { $0.message.contains("key written as 'docs.example.com'") })
        #expect(decoded.notes.contains { $0.message.contains("merged") })
    }

    @Test func aRecordOverridingNothingBecomesATombstone() throws {
        let decoded = try DocumentCodec.decode(Array(#"{"sites": {"a.example": {"changedAt": {"theme": 1783936800000}}}}"#.utf8))
        #expect(decoded.document.sites.isEmpty)
        #expect(decoded.document.tombstones[Fixture.key("a.example")] == [.theme: Stamp(at: 1_783_936_800_000)])
    }

    @Test func tombstonesReadAsADeletionOfEveryField() throws {
        let document = try Fixture.decode(#"{"tombstones": {"studio.example": 1783937100}}"#)
        let stamps = try #require(document.tombstones[Fixture.key("studio.example")])
        #expect(stamps == [.mode: Stamp(at: 1_783_937_100_000), .theme: Stamp(at: 1_783_937_100_000), .nativeDarkPolicy: Stamp(at: 1_783_937_100_000)])
        #expect(String(decoding: DocumentCodec.encode(document), as: UTF8.self).contains(#""tombstones":{"studio.example":1783937100000}"#))
    }

    @Test func aNewerSchemaIsReadOnlyNotCorrupt() throws {
        var document = try Fixture.decode(#"{"schemaVersion": 2, "defaults": {"mode": "on"}}"#)
        #expect(document.isReadOnly)
        #expect(throws: EditError.readOnly(schemaVersion: 2)) {
            try document.apply(.setDefaults(DefaultsValues(mode: .off), stamp: Fixture.app(1)))
        }
        #expect(document.defaults.mode == .on)
    }

    @Test func aNewerSchemaInAnUnreadableShapeIsReportedAsNewerNotDamaged() {
        do {
            _ = try DocumentCodec.decode(Array(#"{"schemaVersion": 3, "sites": [1, 2]}"#.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.isNewerSchema)
            #expect(error.description.contains("schemaVersion 3 is newer"))
        }
    }

    @Test func aDocumentOverOneMebibyteIsRefusedBeforeParsing() {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: DocumentCodec.maximumBytes + 1)
        #expect(throws: DocumentError(.tooLarge(bytes: DocumentCodec.maximumBytes + 1), at: nil)) {
            try DocumentCodec.decode(bytes)
        }
    }

    @Test func deeplyNestedInputIsAnErrorNotACrash() {
        let bytes = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: DocumentError.self) { try DocumentCodec.decode(bytes) }
    }

    /// Each bad document and the exact error it must get: the JSON path, then the problem.
    @Test(arguments: [
        (#"[]"#, "document: expected an object, found an array"),
        (#"{"revision": "42"}"#, #"revision: expected an integer, found a string"#),
        (#"{"revision": -1}"#, "revision: revision -1 is negative"),
        (#"{"schemaVersion": 0}"#, "schemaVersion: schemaVersion 0 is not a version (1 or more)"),
        (#"{"documentId": ""}"#, "documentId: documentId must be 1 to 128 printable ASCII characters"),
        (#"{"defaults": {"schedule": {"start": "25:00", "end": "06:00"}}}"#, "defaults.schedule.start: '25:00' is not a time of day written HH:MM"),
        (#"{"defaults": {"mode": 1}}"#, "defaults.mode: expected a string, found a number"),
        (#"{"sites": {"docs..example.com": {"theme": "sepia"}}}"#, #"sites["docs..example.com"]: empty label in host"#),
        (#"{"sites": {"a.example": {"modifiedAt": -5, "mode": "on"}}}"#, #"sites["a.example"].modifiedAt: time -5 is negative"#),
        (#"{"sites": {"a.example": {"modifiedAt": 1.5, "mode": "on"}}}"#, #"sites["a.example"].modifiedAt: time must be a whole number of milliseconds"#),
        (#"{"sites": {"a.example": {"modifiedAt": 999999999999999, "mode": "on"}}}"#, #"sites["a.example"].modifiedAt: time 999999999999999 is after the year 9999"#),
        (#"{"sites": {".co.uk": {"mode": "on"}}}"#, #"sites[".co.uk"]: 'co.uk' is a public suffix, not a registrable domain"#),
        (#"{"sites": {".docs.example.com": {"mode": "on"}}}"#, #"sites[".docs.example.com"]: '.docs.example.com' is not a registrable domain; did you mean '.example.com'?"#),
        (#"{"sites": {".192.0.2.1": {"mode": "on"}}}"#, #"sites[".192.0.2.1"]: an IP address (192.0.2.1) can only be a host key, not a domain key"#),
        (#"{"sites": {"/": {"mode": "on"}}}"#, #"sites["/"]: no host before the path"#),
        (#"{"sites": {"a.example?x=1": {"mode": "on"}}}"#, #"sites["a.example?x=1"]: '?' not allowed: a page key has no query or fragment"#),
        (#"{"sites": {"a.example/x y": {"mode": "on"}}}"#, #"sites["a.example/x y"]: invalid character U+0020 in path"#),
        (#"{"sites": {"a.example": {"changedAt": {"mode": {"at": 5, "by": "robot"}}, "mode": "on"}}}"#, #"sites["a.example"].changedAt.mode.by: unknown edit origin 'robot' (known: app, extension, imported)"#),
    ] as [(String, String)])
    func badDocumentsGetAnErrorNamingPathAndProblem(json: String, message: String) {
        do {
            _ = try DocumentCodec.decode(Array(json.utf8))
            Issue.record("no error for \(json)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(arguments: [
        "..", "../../x", "a\u{0}b", "a b", "a/b\u{0}", String(repeating: "a", count: 64) + ".example",
        (0..<64).map { _ in "abc" }.joined(separator: ".") + ".example", "", ".", "a..b", "a.example:8080",
    ])
    func hostileKeysAreRefusedWithoutACrash(key: String) {
        var escaped = ""
        for scalar in key.unicodeScalars {
            escaped += scalar.value < 0x20 ? "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16) : String(scalar)
        }
        let json = #"{"sites": {"\#(escaped)": {"mode": "on"}}}"#
        #expect(throws: DocumentError.self) { try DocumentCodec.decode(Array(json.utf8)) }
    }

    @Test func malformedJSONNamesLineAndColumn() {
        do {
            _ = try DocumentCodec.decode(Array("{\n  \"revision\": 4,\n  \"sites\": }".utf8))
            Issue.record("expected an error")
        } catch {
            guard case .syntax(let syntax) = error.problem else {
                Issue.record("expected a syntax error, got \(error)")
                return
            }
            #expect(syntax.line == 3)
            #expect(error.path == nil)
        }
    }

    /// Every minute of the day is written HH:MM and reads back as itself.
    @Test func everyTimeOfDayIsWrittenAsItsHoursAndMinutes() throws {
        for minute in 0..<(24 * 60) {
            let text = String(format2: minute / 60) + ":" + String(format2: minute % 60)
            let time = try #require(TimeOfDay(text))
            #expect(time.minutes == minute)
            #expect(time.description == text)
        }
    }
}

private extension String {
    /// Two digits, a leading zero if needed.
    init(format2 number: Int) { self = number < 10 ? "0\(number)" : "\(number)" }
}
