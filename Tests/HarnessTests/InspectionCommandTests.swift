import Foundation
@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

/// The inspection commands, run as a user runs them: the real binary, its output and exit status.
@Suite(.serialized)
struct InspectionCommandTests {
    private static let document = """
        {"revision": 42,
         "defaults": {"mode": "auto", "theme": "gray", "nativeDarkPolicy": "respect",
                      "schedule": {"start": "20:00", "end": "06:00"}},
         "sites": {"docs.example.com": {"theme": "sepia", "modifiedAt": 1783936800},
                   "studio.example": {"mode": "off", "modifiedAt": 1783936920},
                   ".example.org": {"mode": "scheduled", "modifiedAt": 1783936920}}}
        """

    private func json(_ text: String) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONParser.parse(Array(text.utf8)) else {
            Issue.record("not a JSON object: \(text)")
            return [:]
        }
        return object
    }

    /// Each flaw once, and under it each scenario that catches it once, with every way it does.
    @Test func flawsNamesEachCatchingScenarioOnceWithHowItCatches() throws {
        let result = try HarnessBinary.run(["flaws"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        let hung = lines.filter { $0.contains("lifecycle/a-hung-handler-leaves-tabs-on-the-cache.scenario") }
        #expect(hung == ["      Scenarios/lifecycle/a-hung-handler-leaves-tabs-on-the-cache.scenario (the expectation on line 10, invariant 6)"])
        let names = lines.filter { !$0.hasPrefix(" ") }
        #expect(names.count == Flaw.allCases.count && Set(names).count == names.count)
    }

    /// `--check` runs each scenario alone and with each flaw: it names the flaws one catches
    /// with how, says when one catches none, and refuses a scenario that fails on its own.
    @Test func flawsCheckSaysWhatEachScenarioCatches() throws {
        let cold = ScenarioTests.folder + "/transitions/06-cold-start-answers-from-the-cache.scenario"
        let migration = ScenarioTests.folder + "/seed-000/a-first-launch-migrates-the-old-boolean.scenario"
        let json = try HarnessBinary.file("")
        defer { try? FileManager.default.removeItem(atPath: json) }
        let result = try HarnessBinary.run(["flaws", "--check", cold, migration, "--json", json])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix("06-cold-start-answers-from-the-cache.scenario  catches 4 of \(Flaw.allCases.count)") })
        #expect(lines.contains { $0.hasPrefix("    cache-in-memory-only ") && $0.hasSuffix("invariant 5 (line 17), the expectation on line 19, the expectation on line 20, the expectation on line 21") })
        #expect(lines.contains { $0.hasSuffix("a-first-launch-migrates-the-old-boolean.scenario  catches none of \(Flaw.allCases.count): it shows correct behaviour only, or its faults never reach a bug") })
        #expect(lines.last?.hasPrefix("the scenarios catch 4 of \(Flaw.allCases.count) flaws (none catches popup-full-snapshot, ") == true)
        #expect(lines.last?.hasSuffix("); 1 catch none") == true)
        let written = try String(contentsOfFile: json, encoding: .utf8).split(separator: "\n")
        #expect(written.count == 3)
        let summary = try self.json(String(written[2]))
        #expect(summary["summary"]?.objectValue?["catchingNone"] == .integer(1))
        #expect(summary["summary"]?.objectValue?["caught"] == .array(["native-first-startup", "cache-in-memory-only", "cache-as-authority", "answer-before-cache-loaded"].map(JSONValue.string)))

        // A scenario that fails with no flaw on shows none: it is named with why, and the exit is 1.
        let broken = try HarnessBinary.file("platform ios\nshared defaults mode=on theme=gray\ntab open t1 https://docs.example.com/\nsettle\nexpect tab t1 theme=sepia\n")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let failing = try HarnessBinary.run(["flaws", "--check", broken])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains("fails with no flaw on, so it shows none: the expectation on line 5"))

        // Options of --check without it are refused, not ignored.
        let stray = try HarnessBinary.run(["flaws", "--json", json])
        #expect(stray.status == 2 && stray.stderr.contains("'--json' is an option of 'harness flaws --check'"))
        #expect(try HarnessBinary.run(["flaws", cold]).status == 2)
    }

    /// Runs `harness resolve` and checks its whole answer against the reference decision for
    /// the same document and inputs (invariant 12's reference), then gives the answer.
    private func resolve(_ arguments: [String], document text: String) throws -> [String: JSONValue] {
        let path = try HarnessBinary.file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["resolve", "--document", path] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        func option(_ name: String) -> String? { arguments.firstIndex(of: "--" + name).map { arguments[$0 + 1] } }
        let context = DecisionContext(appearance: option("appearance").flatMap(Appearance.init(rawValue:)) ?? .light,
                                      now: try option("now").map { try #require(Timestamp.parse($0)) } ?? 0,
                                      utcOffsetMinutes: try option("utc-offset").map { try #require(Timestamp.utcOffsetMinutes($0)) } ?? 0,
                                      pausedUntil: try option("paused-until").map { try #require(Timestamp.parse($0)) },
                                      pageIsNativelyDark: arguments.contains("--native-dark"))
        let document = try DocumentCodec.decode(Array(text.utf8)).document
        let reference = ReferenceDecision.decide(url: try #require(option("url")), document: document, context: context)
        let answer = try Self.decision(object)
        #expect(reference.agrees(with: answer), "harness resolve \(arguments): \(reference.differences(from: answer))")
        return object
    }

    /// `harness resolve`'s JSON in the reference's terms.
    private static func decision(_ object: [String: JSONValue]) throws -> ReferenceDecision {
        func string(_ value: JSONValue?) throws -> String {
            guard case .string(let text)? = value else { throw Failure("not a string: \(String(describing: value))") }
            return text
        }
        guard case .bool(let enabled)? = object["enabled"], case .object(let source)? = object["source"] else { throw Failure("no enabled or source") }
        let schedule = try string(object["schedule"]).split(separator: "-").map { TimeOfDay(String($0))?.minutes }
        let scope: String? = if case .string(let key)? = object["scope"] { key } else { nil }
        let settings = ReferenceDecision.Settings(
            scope: scope, mode: try #require(Mode(rawValue: try string(object["mode"]))), theme: try string(object["theme"]),
            nativeDarkPolicy: try #require(NativeDarkPolicy(rawValue: try string(object["nativeDarkPolicy"]))),
            scheduleStart: try #require(schedule.first ?? nil), scheduleEnd: try #require(schedule.last ?? nil),
            modeSource: try string(source["mode"]), themeSource: try string(source["theme"]), nativeDarkPolicySource: try string(source["nativeDarkPolicy"]))
        return ReferenceDecision(enabled: enabled, reason: try string(object["reason"]), settings: settings)
    }

    private struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func resolvePrintsTheDecisionWithItsSources() throws {
        let object = try resolve(["--url", "https://docs.example.com/guide", "--appearance", "dark"], document: Self.document)
        #expect(object["enabled"] == .bool(true))
        #expect(object["theme"] == .string("sepia"))
        #expect(object["reason"] == .string("autoDark"))
        #expect(object["scope"] == .string("docs.example.com"))
        #expect(object["source"] == .object(["mode": .string("default"), "theme": .string("site"), "nativeDarkPolicy": .string("default")]))
    }

    @Test func resolveReadsTheScheduleAtTheGivenOffsetAndHonoursPauseAndNativeDark() throws {
        let inside = try resolve(["--url", "https://www.example.org/", "--now", "2026-03-01T19:30:00Z", "--utc-offset", "+01:00"], document: Self.document)
        #expect(inside["reason"] == .string("scheduleActive"))
        #expect(inside["scope"] == .string(".example.org"))
        let outside = try resolve(["--url", "https://www.example.org/", "--now", "2026-03-01T19:30:00Z"], document: Self.document)
        #expect(outside["reason"] == .string("scheduleInactive"))
        let paused = try resolve(["--url", "https://docs.example.com/", "--appearance", "dark", "--now", "2026-03-01T19:30:00Z",
                                  "--paused-until", "2026-03-01T20:00:00Z"], document: Self.document)
        #expect(paused["reason"] == .string("paused"))
        let native = try resolve(["--url", "https://docs.example.com/", "--appearance", "dark", "--native-dark"], document: Self.document)
        #expect(native["reason"] == .string("nativeDark"))
        #expect(native["enabled"] == .bool(false))
    }

    private static let edges = """
        {"revision": 3,
         "defaults": {"mode": "scheduled", "theme": "neon", "nativeDarkPolicy": "respect", "schedule": {"start": "23:00", "end": "01:00"}},
         "sites": {".city.kawasaki.jp": {"mode": "on", "modifiedAt": 1783936800},
                   "b.kawasaki.jp": {"theme": "sepia", "modifiedAt": 1783936800},
                   "bücher.example": {"mode": "on", "theme": "gray", "modifiedAt": 1783936800},
                   "192.0.2.1/a/b": {"mode": "on", "modifiedAt": 1783936800},
                   "[2001:db8::1]": {"mode": "off", "modifiedAt": 1783936800},
                   "docs.example.com/guide": {"nativeDarkPolicy": "override", "mode": "auto", "modifiedAt": 1783936800}}}
        """

    /// `harness resolve` where the rules bite, each answer the reference's: the Public Suffix
    /// List's exception and wildcard rules, IDN and IP hosts, dot segments, a pause's end, both
    /// edges of a window over midnight, an unknown default theme, unsupported URLs.
    @Test(arguments: [
        ["--url", "https://www.city.kawasaki.jp/"],
        ["--url", "https://x.b.kawasaki.jp/"],
        ["--url", "https://b.kawasaki.jp/"],
        ["--url", "https://BÜCHER.Example./x"],
        ["--url", "http://192.0.2.1:8080/a/./c/../b?q"],
        ["--url", "https://[2001:DB8:0:0::1]/", "--native-dark"],
        ["--url", "https://docs.example.com/x/%2E%2e/guide", "--appearance", "dark", "--native-dark"],
        ["--url", "https://www.city.kawasaki.jp/", "--now", "2026-03-01T12:00:00Z", "--paused-until", "2026-03-01T12:00:00Z"],
        ["--url", "https://www.city.kawasaki.jp/", "--now", "2026-03-01T11:59:59.999Z", "--paused-until", "2026-03-01T12:00:00Z"],
        ["--url", "https://other.example/", "--now", "2026-03-01T23:00:00Z"],
        ["--url", "https://other.example/", "--now", "2026-03-01T22:59:59.999Z"],
        ["--url", "https://other.example/", "--now", "2026-03-01T00:30:00Z", "--utc-offset", "+00:30"],
        ["--url", "https://other.example/", "--now", "2026-03-01T00:59:59.999Z"],
        ["--url", "ftp://www.city.kawasaki.jp/"],
        ["--url", "https://a..example/"],
    ])
    func resolveGivesTheReferenceDecisionWhereTheRulesBite(arguments: [String]) throws {
        _ = try resolve(arguments, document: Self.edges)
    }

    @Test(arguments: [
        ("https://a.b.Docs.Example.co.uk:8443/x/../guide?q#f", "a.b.docs.example.co.uk/guide", "a.b.docs.example.co.uk", JSONValue.string(".example.co.uk")),
        ("https://co.uk/", "co.uk/", "co.uk", .null),
        ("https://192.0.2.1/a", "192.0.2.1/a", "192.0.2.1", .null),
        ("https://localhost/", "localhost/", "localhost", .null),
        ("https://bücher.example/", "xn--bcher-kva.example/", "xn--bcher-kva.example", .string(".xn--bcher-kva.example")),
    ])
    func scopePrintsTheKeysOfAURL(url: String, page: String, host: String, domain: JSONValue) throws {
        let result = try HarnessBinary.run(["scope", url])
        #expect(result.status == 0)
        #expect(try json(result.stdout) == ["page": .string(page), "host": .string(host), "domain": domain])
    }

    @Test func scopeUsesTheListGivenWithPSL() throws {
        let list = try HarnessBinary.file("// a tiny list\nuk\nco.uk\nexample.co.uk\n")
        defer { try? FileManager.default.removeItem(atPath: list) }
        let result = try HarnessBinary.run(["scope", "https://a.b.example.co.uk/", "--psl", list])
        #expect(try json(result.stdout)["domain"] == .string(".b.example.co.uk"))
    }

    @Test func normalizePrintsTheCanonicalDocumentAndNotesOnStderr() throws {
        let path = try HarnessBinary.file(#"{"sites": {"Docs.Example.COM.": {"theme": "sepia", "modifiedAt": 1783936800}}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["normalize", path])
        #expect(result.status == 0)
        let object = try json(result.stdout)
        #expect(object["schemaVersion"] == .integer(1))
        #expect(object["sites"] == .object(["docs.example.com": .object(["theme": .string("sepia"), "modifiedAt": .integer(1_783_936_800_000)])]))
        #expect(result.stderr.contains("note: "))
        #expect(result.stderr.contains("key written as 'docs.example.com'"))
    }

    @Test func normalizeNamesTheJSONPathOfAnInvalidDocumentAndExitsOne() throws {
        let path = try HarnessBinary.file(#"{"sites": {"docs..example.com": {"theme": "sepia"}}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["normalize", path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: \(path): sites[\"docs..example.com\"]: empty label in host\n")
    }

    @Test func normalizeRefusesToRewriteANewerSchema() throws {
        let path = try HarnessBinary.file(#"{"schemaVersion": 2}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try HarnessBinary.run(["normalize", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("read-only"))
    }

    @Test(arguments: [
        (["resolve", "--url", "https://a.example/"], "missing '--document FILE'"),
        (["resolve", "--document", "x", "--url", "u", "--apperance", "dark"], "unknown option '--apperance'; did you mean '--appearance'?"),
        (["resolve", "--document", "x", "--url", "u", "--appearance", "dim"], "'--appearance' expects light or dark, not 'dim'"),
        (["resolve", "--document", "x", "--url", "u", "--now", "noon"], "'--now' expects an ISO 8601 time"),
        (["scope"], "missing URL"),
        (["normalize", "a", "b"], "unexpected argument 'b'"),
        (["normalise", "a"], "unknown subcommand 'normalise'; did you mean 'normalize'?"),
        (["explore", "--search", "guidd"], "'--search' expects swarm or guided, not 'guidd'; did you mean 'guided'?"),
        (["explore", "--search", "swarm", "--batch", "10"], "'--batch' is for '--search guided'"),
        (["explore", "--batch", "0"], "'--batch' expects a positive whole number, not '0'"),
        (["bench", "serch"], "unknown benchmark 'serch'; did you mean 'search'?"),
    ])
    func usageErrorsExitTwoWithTheUsageLine(arguments: [String], message: String) throws {
        let result = try HarnessBinary.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message))
        #expect(result.stderr.contains("Usage: harness"))
    }

    @Test func helpGoesToStandardOutputWithExitZero() throws {
        let result = try HarnessBinary.run(["help"])
        #expect(result.status == 0)
        for command in ["resolve", "scope", "normalize", "bench"] { #expect(result.stdout.contains(command)) }
        let resolve = try HarnessBinary.run(["resolve", "--help"])
        #expect(resolve.status == 0)
        #expect(resolve.stdout.contains("USAGE: harness resolve --document FILE --url URL"))
    }

    @Test func aMissingFileIsInvalidInputNamingTheFile() throws {
        let result = try HarnessBinary.run(["normalize", "/nonexistent/doc.json"])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: /nonexistent/doc.json: No such file or directory\n")
    }
}
