import SiteSettings
import Testing

private let label63 = String(repeating: "a", count: 63)
private let label64 = String(repeating: "a", count: 64)
/// 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 bytes.
private let name253 = [label63, label63, label63, String(repeating: "b", count: 61)].joined(separator: ".")
private let name254 = [label63, label63, label63, String(repeating: "b", count: 62)].joined(separator: ".")

private func parse(_ input: String) throws(HostError) -> HostName {
    try HostName.parse(input[...])
}

@Suite struct HostNameTests {
    // MARK: Names

    @Test(arguments: [
        ("docs.example.com", "docs.example.com"),
        ("Docs.EXAMPLE.com", "docs.example.com"),
        ("localhost", "localhost"),
        ("under_score.example", "under_score.example"),
        ("-edge-.example", "-edge-.example"),
        ("1.example", "1.example"),
        ("example.1a", "example.1a"),
        ("example.com.", "example.com"),
        ("EXAMPLE.COM.", "example.com"),
        (label63 + ".com", label63 + ".com"),
        (name253, name253),
        (name253 + ".", name253),
    ])
    func parsesASCIIName(_ input: String, _ canonical: String) throws {
        let host = try parse(input)
        #expect(host.text == canonical)
        #expect(host.kind == .name)
    }

    @Test(arguments: [
        ("bücher.example", "xn--bcher-kva.example"),
        ("BÜCHER.example", "xn--bcher-kva.example"),
        ("Bücher.Example.", "xn--bcher-kva.example"),
        ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
        ("例え。テスト", "xn--r8jz45g.xn--zckzah"),
        ("例え．テスト", "xn--r8jz45g.xn--zckzah"),
        ("例え｡テスト", "xn--r8jz45g.xn--zckzah"),
        ("例え。テスト。", "xn--r8jz45g.xn--zckzah"),
        ("docs。example。com", "docs.example.com"),
        ("ｅｘａｍｐｌｅ．ＣＯＭ", "example.com"),
        ("\u{212A}elvin.example", "kelvin.example"),
        ("bücher.xn--zckzah", "xn--bcher-kva.xn--zckzah"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("XN--BCHER-KVA.EXAMPLE", "xn--bcher-kva.example"),
        ("Xn--Bcher-Kva.example", "xn--bcher-kva.example"),
        ("xn--r8jz45g.xn--zckzah", "xn--r8jz45g.xn--zckzah"),
        ("a\u{200D}b.example", "xn--ab-m1t.example"),
    ])
    func parsesInternationalName(_ input: String, _ canonical: String) throws {
        let host = try parse(input)
        #expect(host.text == canonical)
        #expect(host.kind == .name)
    }

    @Test func labelsAreTheDotSeparatedParts() throws {
        #expect(try parse("Docs.Example.com.").labels == ["docs", "example", "com"])
        #expect(try parse("bücher.example").labels == ["xn--bcher-kva", "example"])
        #expect(try parse("192.0.2.1").labels == [])
        #expect(try parse("[::1]").labels == [])
    }

    @Test func parsesASubstringOfALargerString() throws {
        let url = "https://Docs.Example.com:443/path"
        let start = url.index(url.startIndex, offsetBy: 8)
        let end = try #require(url[start...].firstIndex(of: ":"))
        #expect(try HostName.parse(url[start..<end]).text == "docs.example.com")
    }

    // MARK: Addresses

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"),
        ("0.0.0.0", "0.0.0.0"),
        ("255.255.255.255", "255.255.255.255"),
        ("10.0.0.1.", "10.0.0.1"),
        ("１９２．０．２．１", "192.0.2.1"),
    ])
    func parsesIPv4(_ input: String, _ canonical: String) throws {
        let host = try parse(input)
        #expect(host.text == canonical)
        #expect(host.kind == .ipv4)
    }

    @Test(arguments: [
        ("[2001:DB8:0:0:0:0:0:1]", "[2001:db8::1]"),
        ("[2001:0db8:0000:0000:0000:0000:0000:0001]", "[2001:db8::1]"),
        ("[2001:db8::1]", "[2001:db8::1]"),
        ("[::]", "[::]"),
        ("[::1]", "[::1]"),
        ("[1::]", "[1::]"),
        ("[0:0:0:0:0:0:0:0]", "[::]"),
        ("[1:0:0:2:0:0:0:3]", "[1:0:0:2::3]"),
        ("[1:0:0:2:2:0:0:3]", "[1::2:2:0:0:3]"),
        ("[2001:db8:0:1:1:1:1:1]", "[2001:db8:0:1:1:1:1:1]"),
        ("[1:2:3:4:5:6:7::]", "[1:2:3:4:5:6:7:0]"),
        ("[::2:3:4:5:6:7:8]", "[0:2:3:4:5:6:7:8]"),
        ("[FE80::ABCD]", "[fe80::abcd]"),
        ("[::ffff:192.0.2.1]", "[::ffff:c000:201]"),
        ("[::192.0.2.1]", "[::c000:201]"),
        ("[1:2:3:4:5:6:1.2.3.4]", "[1:2:3:4:5:6:102:304]"),
    ])
    func parsesIPv6(_ input: String, _ canonical: String) throws {
        let host = try parse(input)
        #expect(host.text == canonical)
        #expect(host.kind == .ipv6)
    }

    // MARK: Refusals

    @Test func refusesEmptyHost() {
        #expect(throws: HostError.empty) { try parse("") }
        #expect(throws: HostError.empty) { try HostName.parse("docs.example.com".dropFirst(16)) }
    }

    @Test(arguments: [".", "..", "。", ".a", "a..b", "example.com..", "bücher..example", "bücher。。", "1..2.3"])
    func refusesEmptyLabel(_ input: String) {
        #expect(throws: HostError.emptyLabel) { try parse(input) }
    }

    @Test(arguments: [
        ("/", Unicode.Scalar("/")),
        ("a/b", "/"),
        ("a\\b", "\\"),
        ("a\u{0}b", "\u{0}"),
        ("a b", " "),
        ("a\tb", "\t"),
        ("a\u{7F}b", "\u{7F}"),
        ("a%2eb", "%"),
        ("user@example.com", "@"),
        ("a?b", "?"),
        ("a#b", "#"),
        ("*.example.com", "*"),
        ("a]b", "]"),
        ("bü/cher", "/"),
        ("ｅｘ／ａ", "/"),
        ("a\u{A0}b", "\u{A0}"),
        ("a\u{85}b", "\u{85}"),
        ("a\u{AD}b", "\u{AD}"),
        ("a\u{202E}b", "\u{202E}"),
        ("a\u{2028}b", "\u{2028}"),
        ("a\u{E000}b", "\u{E000}"),
        ("a\u{FFFF}b", "\u{FFFF}"),
    ])
    func refusesInvalidCharacter(_ input: String, _ character: Unicode.Scalar) {
        #expect(throws: HostError.invalidCharacter(character)) { try parse(input) }
    }

    @Test(arguments: ["example.com:8080", "::1", "::1]", "2001:db8::1", "bücher.example:443"])
    func refusesColonOutsideBrackets(_ input: String) {
        #expect(throws: HostError.portOrUnbracketedIPv6(host: input)) { try parse(input) }
    }

    @Test func refusesLongLabel() throws {
        #expect(throws: HostError.labelTooLong(label: label64)) { try parse(label64 + ".com") }
        #expect(throws: HostError.labelTooLong(label: label64)) { try parse("www." + label64.uppercased()) }

        let umlauts = String(repeating: "ü", count: 63)
        let aLabel = "xn--" + (try #require(Punycode.encode(Array(umlauts.unicodeScalars))))
        #expect(throws: HostError.labelTooLong(label: aLabel)) { try parse(umlauts + ".example") }

        let longULabel = String(repeating: "ü", count: 64)
        #expect(throws: HostError.labelTooLong(label: longULabel)) { try parse(longULabel + ".example") }
    }

    @Test func refusesLongName() {
        #expect(throws: HostError.nameTooLong(length: 254)) { try parse(name254) }
        #expect(throws: HostError.nameTooLong(length: 254)) { try parse(name254 + ".") }
    }

    @Test(arguments: [
        ("decodes to ASCII only", "xn--a-", "xn--a-"),
        ("decodes to nothing", "xn--", "xn--"),
        ("decodes to ASCII only, with more labels", "xn--bcher-.example", "xn--bcher-"),
        ("decodes to the control U+0080", "xn--a.example", "xn--a"),
        ("does not decode: overflow", "xn--99999999999999999999.example", "xn--99999999999999999999"),
        ("does not decode: ends inside a delta", "xn--b.example", "xn--b"),
        ("decodes to the upper-case \"bÜcher\"", "xn--bcher-2pa.example", "xn--bcher-2pa"),
        ("decodes to \"例え。テスト\", whose U+3002 maps to a dot", "xn--r6juh2mvbl9538b", "xn--r6juh2mvbl9538b"),
        ("is not ASCII", "xn--b\u{FC}cher.example", "xn--b\u{FC}cher"),
    ])
    func refusesInvalidALabel(_ why: String, _ input: String, _ label: String) {
        #expect(throws: HostError.invalidALabel(label: label), "\(why)") { try parse(input) }
    }

    @Test(arguments: [
        "256.1.1.1", "1.2.3.256", "1.2.3.1000", "1.2.3", "1.2.3.4.5", "example.123", "123", "0x7f.0.0.1", "example.0x1f",
    ])
    func refusesInvalidIPv4(_ input: String) {
        #expect(throws: HostError.invalidIPv4(address: input)) { try parse(input) }
    }

    @Test(arguments: ["01.2.3.4", "1.2.3.04", "00.0.0.0", "1.2.010.4"])
    func refusesIPv4WithLeadingZero(_ input: String) {
        #expect(throws: HostError.ipv4LeadingZero(address: input)) { try parse(input) }
    }

    @Test(arguments: [
        "[1::2::3]", "[::1::]", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7]", "[::1:2:3:4:5:6:7:8]",
        "[12345::]", "[1::2:00000]", "[::1", "[", "[]", "[:]", "[:::]", "[:1::]", "[1::2:]", "[g::1]",
        "[fe80::1%25eth0]", "[::1]:443", "[::1].", "[1.2.3.4]", "[::ffff:192.0.2.01]", "[::1.2.3.4:5]",
        "[1.2.3.4::]", "[1:2:3:4:5:6:7:1.2.3.4]", "[::1 ]",
    ])
    func refusesInvalidIPv6(_ input: String) {
        #expect(throws: HostError.invalidIPv6(address: input)) { try parse(input) }
    }

    // MARK: Identity and messages

    @Test(arguments: [
        "Docs.EXAMPLE.com.", "bücher.example", "例え。テスト", "192.0.2.1", "[2001:DB8:0:0:0:0:0:1]", "[::ffff:192.0.2.1]",
    ])
    func canonicalTextParsesToItself(_ input: String) throws {
        let host = try parse(input)
        #expect(try parse(host.text) == host)
        #expect(try parse(host.text).text == host.text)
        #expect(host.description == host.text)
    }

    @Test func equalHostsHashAndSortByText() throws {
        #expect(try parse("Example.COM.") == parse("example.com"))
        #expect(try parse("BÜCHER.example") == parse("xn--bcher-kva.example"))
        #expect(try parse("example.com") != parse("example.org"))
        #expect(Set(try ["a.example", "A.EXAMPLE.", "b.example"].map(parse)).count == 2)
        let sorted = try ["b.example", "[::1]", "a.example", "192.0.2.1"].map(parse).sorted()
        #expect(sorted.map(\.text) == ["192.0.2.1", "[::1]", "a.example", "b.example"])
    }

    @Test(arguments: [
        (HostError.empty, "empty host"),
        (.emptyLabel, "empty label in host"),
        (.invalidCharacter("/"), "invalid character '/' in host"),
        (.invalidCharacter("'"), #"invalid character "'" in host"#),
        (.invalidCharacter("\u{0}"), "invalid character U+0000 in host"),
        (.invalidCharacter(" "), "invalid character U+0020 in host"),
        (.invalidCharacter("\u{202E}"), "invalid character U+202E in host"),
        (
            .portOrUnbracketedIPv6(host: "example.com:8080"),
            "':' in host 'example.com:8080': remove the port, or write an IPv6 address in brackets"
        ),
        (
            .portOrUnbracketedIPv6(host: "a:\u{0}\u{202E}b"),
            #"':' in host 'a:\u{0}\u{202E}b': remove the port, or write an IPv6 address in brackets"#
        ),
        (.labelTooLong(label: "abc"), "label 'abc' is longer than 63 bytes"),
        (.labelTooLong(label: label64 + label64), "label '" + String(repeating: "a", count: 100) + "…' is longer than 63 bytes"),
        (.nameTooLong(length: 254), "host of 254 bytes is longer than 253"),
        (.invalidALabel(label: "xn--a-"), "invalid xn-- label 'xn--a-': not the punycode of a lower-case non-ASCII label"),
        (.invalidIPv4(address: "1.2.3"), "invalid IPv4 address '1.2.3'"),
        (.ipv4LeadingZero(address: "01.2.3.4"), "invalid IPv4 address '01.2.3.4': a part has a leading zero"),
        (.invalidIPv6(address: "[1::2::3]"), "invalid IPv6 address '[1::2::3]'"),
    ])
    func describesError(_ error: HostError, _ message: String) {
        #expect(error.description == message)
    }
}
