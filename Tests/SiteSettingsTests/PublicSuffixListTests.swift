import Foundation
import SiteSettings
import Testing

/// Checks `PublicSuffixList` against the publicsuffix.org test vectors, the rules of the list it
/// was generated from (Debian publicsuffix 20230209), and small lists parsed from text.
@Suite struct PublicSuffixListTests {
    static let embedded = PublicSuffixList.embedded
    static let machineListPath = "/usr/share/publicsuffix/public_suffix_list.dat"
    static let machineListExists = FileManager.default.fileExists(atPath: machineListPath)

    // MARK: - publicsuffix.org test vectors

    /// `checkPublicSuffix(host, registrable domain)` from tests/test_psl.txt of the PSL project,
    /// without the vectors outside `registrableDomain(of:)`'s contract of canonical hosts (null
    /// input, mixed case, leading dot) and with the Unicode ones in `unicodeTestVectors`.
    static let testVectors: [(String, String?)] = [
        // Unlisted TLD.
        ("example", nil),
        ("example.example", "example.example"),
        ("b.example.example", "example.example"),
        ("a.b.example.example", "example.example"),
        // TLD with only 1 rule.
        ("biz", nil),
        ("domain.biz", "domain.biz"),
        ("b.domain.biz", "domain.biz"),
        ("a.b.domain.biz", "domain.biz"),
        // TLD with some 2-level rules ("uk.com" is a rule of the private section).
        ("com", nil),
        ("example.com", "example.com"),
        ("b.example.com", "example.com"),
        ("a.b.example.com", "example.com"),
        ("uk.com", nil),
        ("example.uk.com", "example.uk.com"),
        ("b.example.uk.com", "example.uk.com"),
        ("a.b.example.uk.com", "example.uk.com"),
        ("test.ac", "test.ac"),
        // TLD with only 1 (wildcard) rule: "*.mm".
        ("mm", nil),
        ("c.mm", nil),
        ("b.c.mm", "b.c.mm"),
        ("a.b.c.mm", "b.c.mm"),
        // More complex TLD.
        ("jp", nil),
        ("test.jp", "test.jp"),
        ("www.test.jp", "test.jp"),
        ("ac.jp", nil),
        ("test.ac.jp", "test.ac.jp"),
        ("www.test.ac.jp", "test.ac.jp"),
        ("kyoto.jp", nil),
        ("test.kyoto.jp", "test.kyoto.jp"),
        ("ide.kyoto.jp", nil),
        ("b.ide.kyoto.jp", "b.ide.kyoto.jp"),
        ("a.b.ide.kyoto.jp", "b.ide.kyoto.jp"),
        ("c.kobe.jp", nil),
        ("b.c.kobe.jp", "b.c.kobe.jp"),
        ("a.b.c.kobe.jp", "b.c.kobe.jp"),
        // Newer test files expect "kobe.jp" here, for lists without "*.kobe.jp" and
        // "!city.kobe.jp"; this 2023 list has both, so the exception rule makes "kobe.jp" the
        // public suffix, as in the test file of that time.
        ("city.kobe.jp", "city.kobe.jp"),
        ("www.city.kobe.jp", "city.kobe.jp"),
        // TLD with a wildcard rule and exceptions.
        ("ck", nil),
        ("test.ck", nil),
        ("b.test.ck", "b.test.ck"),
        ("a.b.test.ck", "b.test.ck"),
        ("www.ck", "www.ck"),
        ("www.www.ck", "www.ck"),
        // US K12.
        ("us", nil),
        ("test.us", "test.us"),
        ("www.test.us", "test.us"),
        ("ak.us", nil),
        ("test.ak.us", "test.ak.us"),
        ("www.test.ak.us", "test.ak.us"),
        ("k12.ak.us", nil),
        ("test.k12.ak.us", "test.k12.ak.us"),
        ("www.test.k12.ak.us", "test.k12.ak.us"),
        // IDN labels, punycoded. The list has "公司.cn" and "中国" in Unicode only, so these
        // also check the conversion to xn-- labels.
        ("xn--85x722f.com.cn", "xn--85x722f.com.cn"),
        ("xn--85x722f.xn--55qx5d.cn", "xn--85x722f.xn--55qx5d.cn"),
        ("www.xn--85x722f.xn--55qx5d.cn", "xn--85x722f.xn--55qx5d.cn"),
        ("shishi.xn--55qx5d.cn", "shishi.xn--55qx5d.cn"),
        ("xn--55qx5d.cn", nil),
        ("xn--85x722f.xn--fiqs8s", "xn--85x722f.xn--fiqs8s"),
        ("www.xn--85x722f.xn--fiqs8s", "xn--85x722f.xn--fiqs8s"),
        ("shishi.xn--fiqs8s", "shishi.xn--fiqs8s"),
        ("xn--fiqs8s", nil),
    ]

    @Test(arguments: testVectors)
    func testVector(host: String, registrable: String?) {
        #expect(Self.embedded.registrableDomain(of: host).map(String.init) == registrable)
    }

    /// The IDN vectors as written in the test file, converted to A-labels the way callers must.
    static let unicodeTestVectors: [(String, String?)] = [
        ("食狮.com.cn", "食狮.com.cn"),
        ("食狮.公司.cn", "食狮.公司.cn"),
        ("www.食狮.公司.cn", "食狮.公司.cn"),
        ("shishi.公司.cn", "shishi.公司.cn"),
        ("公司.cn", nil),
        ("食狮.中国", "食狮.中国"),
        ("www.食狮.中国", "食狮.中国"),
        ("shishi.中国", "shishi.中国"),
        ("中国", nil),
    ]

    @Test(arguments: unicodeTestVectors)
    func unicodeTestVector(host: String, registrable: String?) {
        let domain = Self.embedded.registrableDomain(of: Self.canonicalName(host))
        #expect(domain.map(String.init) == registrable.map(Self.canonicalName))
    }

    // MARK: - Rule kinds

    /// (host, public suffix, registrable domain) for wildcard and exception rules ("*.ck",
    /// "!www.ck", "*.kawasaki.jp", "!city.kawasaki.jp"), private section rules, single labels
    /// and unlisted TLDs (the implicit rule "*").
    static let cases: [(String, String, String?)] = [
        // No rule "ck": only the implicit "*" matches "ck" itself.
        ("ck", "ck", nil),
        ("test.ck", "test.ck", nil),
        ("b.test.ck", "test.ck", "b.test.ck"),
        ("www.ck", "ck", "www.ck"),
        ("www.www.ck", "ck", "www.ck"),
        ("a.www.www.ck", "ck", "www.ck"),
        ("kawasaki.jp", "jp", "kawasaki.jp"),
        ("other.kawasaki.jp", "other.kawasaki.jp", nil),
        ("www.other.kawasaki.jp", "other.kawasaki.jp", "www.other.kawasaki.jp"),
        ("city.kawasaki.jp", "kawasaki.jp", "city.kawasaki.jp"),
        ("www.city.kawasaki.jp", "kawasaki.jp", "city.kawasaki.jp"),
        // Private section.
        ("blogspot.com", "blogspot.com", nil),
        ("foo.blogspot.com", "blogspot.com", "foo.blogspot.com"),
        ("a.foo.blogspot.com", "blogspot.com", "foo.blogspot.com"),
        ("blogspot.co.uk", "blogspot.co.uk", nil),
        ("foo.blogspot.co.uk", "blogspot.co.uk", "foo.blogspot.co.uk"),
        ("github.io", "github.io", nil),
        ("user.github.io", "github.io", "user.github.io"),
        ("x.y.compute.amazonaws.com", "y.compute.amazonaws.com", "x.y.compute.amazonaws.com"),
        // "amazonaws.com" is no rule, only a suffix of longer ones.
        ("amazonaws.com", "com", "amazonaws.com"),
        ("s3.amazonaws.com", "s3.amazonaws.com", nil),
        // ICANN section, several levels.
        ("a.b.example.co.uk", "co.uk", "example.co.uk"),
        ("co.uk", "co.uk", nil),
        ("docs.example.com", "com", "example.com"),
        ("a.b.c.d.e.f.g.example.com", "com", "example.com"),
        // Single labels and unlisted TLDs: the implicit rule "*".
        ("localhost", "localhost", nil),
        ("example.zzzz", "zzzz", "example.zzzz"),
        ("a.b.example.zzzz", "zzzz", "example.zzzz"),
        // Not canonical, but answered without a label that is not there.
        ("", "", nil),
        (".com", "com", nil),
    ]

    @Test(arguments: cases)
    func rule(host: String, publicSuffix: String, registrable: String?) {
        #expect(Self.embedded.publicSuffix(of: host) == publicSuffix)
        #expect(Self.embedded.registrableDomain(of: host).map(String.init) == registrable)
    }

    @Test func resultsAreSlicesOfTheHost() throws {
        let host = "www.example.co.uk"
        let domain = try #require(Self.embedded.registrableDomain(of: host))
        #expect(domain.endIndex == host.endIndex)
        #expect(host[domain.startIndex...] == "example.co.uk")
    }

    // MARK: - The whole list

    @Test func embeddedListHasAllRules() {
        #expect(Self.embedded.ruleCount == 9_506)
    }

    /// Parses the list the embedded data was generated from, and checks the parsed list, the
    /// embedded one and a literal reading of the publicsuffix.org algorithm against each other
    /// on every rule `r` (with `*` as a label) and on "x." + `r`.
    @Test(.enabled(if: machineListExists, "needs the Debian package publicsuffix"))
    func parsedFileAgreesWithEmbeddedList() throws {
        let text = try String(contentsOfFile: Self.machineListPath, encoding: .utf8)
        let parsed = try PublicSuffixList(parsing: text)
        #expect(parsed.ruleCount == Self.embedded.ruleCount)

        let rules = Set(Self.ruleTokens(of: text).map(Self.canonicalName))
        #expect(rules.count == 9_506)
        var mismatches: [String] = []
        for rule in rules {
            let name = rule.hasPrefix("!") ? String(rule.dropFirst()) : rule
            let host = name.replacingOccurrences(of: "*", with: "wild")
            for host in [host, "x." + host] {
                let expected = Self.referencePublicSuffix(of: host, rules: rules)
                let expectedDomain = Self.referenceRegistrableDomain(of: host, rules: rules)
                for (which, list) in [("embedded", Self.embedded), ("parsed", parsed)] {
                    let suffix = String(list.publicSuffix(of: host))
                    let domain = list.registrableDomain(of: host).map(String.init)
                    if suffix != expected || domain != expectedDomain {
                        mismatches.append("\(which) \(host): \(suffix) \(domain ?? "nil"), expected \(expected) \(expectedDomain ?? "nil")")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, e.g. \(mismatches.prefix(5))")
    }

    // MARK: - Parsing

    static let tinyList = "com\n*.foo\n!bar.foo\n"

    /// (host, public suffix, registrable domain) under `tinyList` alone.
    static let tinyListCases: [(String, String, String?)] = [
        ("com", "com", nil),
        ("example.com", "com", "example.com"),
        ("a.example.com", "com", "example.com"),
        ("foo", "foo", nil),
        ("b.foo", "b.foo", nil),
        ("a.b.foo", "b.foo", "a.b.foo"),
        ("bar.foo", "foo", "bar.foo"),
        ("x.bar.foo", "foo", "bar.foo"),
        // Rules of the embedded list are not in this one.
        ("example.co.uk", "uk", "co.uk"),
        ("foo.blogspot.com", "com", "blogspot.com"),
        ("www.ck", "ck", "www.ck"),
    ]

    @Test(arguments: tinyListCases)
    func tinyList(host: String, publicSuffix: String, registrable: String?) throws {
        let list = try PublicSuffixList(parsing: Self.tinyList)
        #expect(list.ruleCount == 3)
        #expect(list.publicSuffix(of: host) == publicSuffix)
        #expect(list.registrableDomain(of: host).map(String.init) == registrable)
    }

    @Test func parsingFollowsTheFileFormat() throws {
        let text = """
            // comment: example.org

              ExAmple.COM  only the first word counts\r
            公司.cn\t// Unicode rules become xn-- labels
            example.com
            """
        let list = try PublicSuffixList(parsing: text)
        #expect(list.ruleCount == 2)
        #expect(list.registrableDomain(of: "a.b.example.com") == "b.example.com")
        #expect(list.registrableDomain(of: "x.y.xn--55qx5d.cn") == "y.xn--55qx5d.cn")
        #expect(list.registrableDomain(of: "a.example.org") == "example.org")
    }

    static let badLists: [(String, PublicSuffixListError)] = [
        ("com\na..b\n", .invalidRule(line: 2, rule: "a..b", reason: .emptyLabel)),
        ("\n\n.com", .invalidRule(line: 3, rule: ".com", reason: .emptyLabel)),
        ("// trailing dot\ncom.", .invalidRule(line: 2, rule: "com.", reason: .emptyLabel)),
        ("a.*.b", .invalidRule(line: 1, rule: "a.*.b", reason: .misplacedWildcard)),
        ("*", .invalidRule(line: 1, rule: "*", reason: .misplacedWildcard)),
        ("!*.foo", .invalidRule(line: 1, rule: "!*.foo", reason: .misplacedWildcard)),
        ("!com", .invalidRule(line: 1, rule: "!com", reason: .shortException)),
        ("exa$mple.com", .invalidRule(line: 1, rule: "exa$mple.com", reason: .invalidCharacter)),
        ("<!DOCTYPE html>", .invalidRule(line: 1, rule: "<!DOCTYPE", reason: .invalidCharacter)),
        (String(repeating: "a", count: 64) + ".com", .invalidRule(line: 1, rule: String(repeating: "a", count: 64) + ".com", reason: .labelTooLong)),
        (Array(repeating: "abcdefghi", count: 26).joined(separator: "."), .invalidRule(line: 1, rule: Array(repeating: "abcdefghi", count: 26).joined(separator: "."), reason: .nameTooLong)),
        ("", .noRules),
        ("// only a comment\n\n", .noRules),
    ]

    @Test(arguments: badLists)
    func badList(text: String, error: PublicSuffixListError) {
        #expect(throws: error) {
            try PublicSuffixList(parsing: text)
        }
    }

    @Test func errorMessagesNameTheRule() {
        let error = PublicSuffixListError.invalidRule(line: 2, rule: "a..b", reason: .emptyLabel)
        #expect(error.description == "line 2: invalid rule \"a..b\": it has an empty label")
        #expect(PublicSuffixListError.noRules.description == "the list has no rules")
    }

    // MARK: - Helpers

    /// The first word of each rule line of a `.dat` text.
    static func ruleTokens(of text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let token = line.split(whereSeparator: \.isWhitespace).first.map(String.init)
            return token.flatMap { $0.hasPrefix("//") ? nil : $0 }
        }
    }

    /// `name` in lower case with its non-ASCII labels as xn-- labels.
    static func canonicalName(_ name: String) -> String {
        name.lowercased().split(separator: ".", omittingEmptySubsequences: false).map { label in
            label.unicodeScalars.allSatisfy(\.isASCII)
                ? String(label) : "xn--" + Punycode.encode(Array(label.unicodeScalars))!
        }.joined(separator: ".")
    }

    /// The publicsuffix.org algorithm read literally: of all rules matching `host`, an exception
    /// rule prevails, else the one with the most labels, else "*".
    static func referencePublicSuffix(of host: String, rules: Set<String>) -> String {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var prevailing = [labels.last!]
        for count in 1...labels.count {
            let suffix = Array(labels.suffix(count))
            let name = suffix.joined(separator: ".")
            if rules.contains("!" + name) {
                return suffix.dropFirst().joined(separator: ".")
            }
            if rules.contains(name) || rules.contains((["*"] + suffix.dropFirst()).joined(separator: ".")) {
                prevailing = suffix
            }
        }
        return prevailing.joined(separator: ".")
    }

    static func referenceRegistrableDomain(of host: String, rules: Set<String>) -> String? {
        let suffix = referencePublicSuffix(of: host, rules: rules)
        guard host.count > suffix.count else {
            return nil
        }
        let label = host.dropLast(suffix.count + 1).split(separator: ".").last!
        return label + "." + suffix
    }
}
