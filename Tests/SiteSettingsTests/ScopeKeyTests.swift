import Testing
@testable import SiteSettings

struct ScopeKeyTests {
    @Test(arguments: [
        ("docs.example.com", "docs.example.com", ScopeKey.Kind.host),
        ("Docs.Example.COM.", "docs.example.com", .host),
        (".example.org", ".example.org", .domain),
        (".EXAMPLE.org.", ".example.org", .domain),
        (".foo.blogspot.com", ".foo.blogspot.com", .domain),
        ("example.net/tools/editor", "example.net/tools/editor", .page),
        ("example.net/tools/../editor", "example.net/editor", .page),
        ("example.net/a/./b/", "example.net/a/b/", .page),
        ("example.net/%2e%2E/x", "example.net/x", .page),
        ("example.net/caf%c3%a9", "example.net/caf%C3%A9", .page),
        ("example.net/café", "example.net/caf%C3%A9", .page),
        ("example.net/", "example.net/", .page),
        ("bücher.example/Seite", "xn--bcher-kva.example/Seite", .page),
        ("192.0.2.1", "192.0.2.1", .host),
        ("192.0.2.1/admin", "192.0.2.1/admin", .page),
        ("[2001:DB8::1]", "[2001:db8::1]", .host),
        ("localhost", "localhost", .host),
    ] as [(String, String, ScopeKey.Kind)])
    func keysAreReadInCanonicalForm(input: String, canonical: String, kind: ScopeKey.Kind) throws {
        let key = try ScopeKey.parse(input)
        #expect(key.text == canonical)
        #expect(key.kind == kind)
    }

    @Test(arguments: [
        (".co.uk", ScopeKeyError.publicSuffix("co.uk")),
        (".blogspot.com", .publicSuffix("blogspot.com")),
        (".com", .publicSuffix("com")),
        (".www.example.com", .notRegistrable("www.example.com", suggestion: ".example.com")),
        (".192.0.2.1", .addressAsDomain("192.0.2.1")),
        (".example.com/x", .pathInDomainKey),
        ("/x", .missingHost),
        ("", .empty),
        ("a.example/x#frag", .queryOrFragment("#")),
        ("a.example/\u{1}", .invalidPathCharacter("\u{1}")),
        ("a.example/a\\b", .invalidPathCharacter("\\")),
    ] as [(String, ScopeKeyError)])
    func invalidKeysAreRefusedWithTheReason(input: String, error: ScopeKeyError) {
        #expect(throws: error) { try ScopeKey.parse(input) }
    }

    @Test func aPageKeyPathHasALengthLimit() {
        let long = "a.example/" + String(repeating: "x", count: ScopeKey.maximumPathBytes)
        #expect(throws: ScopeKeyError.pathTooLong(ScopeKey.maximumPathBytes + 1)) { try ScopeKey.parse(long) }
    }

    @Test func aDomainKeyUsesTheListItIsGiven() throws {
        let list = try PublicSuffixList(parsing: "com\nexample.com\n")
        #expect(throws: ScopeKeyError.publicSuffix("example.com")) { try ScopeKey.parse(".example.com", suffixes: list) }
        #expect(try ScopeKey.parse(".a.example.com", suffixes: list).text == ".a.example.com")
    }
}

struct PageAddressTests {
    @Test(arguments: [
        ("https://docs.example.com/guide", "docs.example.com", "/guide"),
        ("  HTTPS://Docs.Example.com  ", "docs.example.com", "/"),
        ("http://user:pass@host.example:8080/a?b#c", "host.example", "/a"),
        ("https:\\\\host.example\\a\\b", "host.example", "/a/b"),
        ("https:host.example/x", "host.example", "/x"),
        ("https:///host.example/x", "host.example", "/x"),
        ("https://host.example/a/b/../../..", "host.example", "/"),
        ("https://host.example/a/%2E%2e/b", "host.example", "/b"),
        ("https://host.example/a b", "host.example", "/a%20b"),
        ("https://host.example:/x", "host.example", "/x"),
        ("https://[::1]:8443/x", "[::1]", "/x"),
    ] as [(String, String, String)])
    func urlsReduceToHostAndCanonicalPath(url: String, host: String, path: String) throws {
        let address = try PageAddress.parse(url).get()
        #expect(address.host.text == host)
        #expect(address.path == path)
    }

    @Test(arguments: [
        ("about:blank", AddressError.unsupportedScheme("about")),
        ("ftp://host.example/", .unsupportedScheme("ftp")),
        ("//host.example/", .notAbsolute),
        ("https://host.example:99999/", .invalidPort),
        ("https://host.example:8a/", .invalidPort),
        ("https://?q", .missingHost),
        ("https://user@/x", .missingHost),
    ] as [(String, AddressError)])
    func urlsWithoutASupportedPageAreRefused(url: String, error: AddressError) {
        #expect(throws: error) { try PageAddress.parse(url).get() }
    }
}
