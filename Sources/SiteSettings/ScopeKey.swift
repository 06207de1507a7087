/// The key of a site record: which pages a record applies to.
///
/// - host: `docs.example.com`: that host only (IP addresses are allowed here and only here).
/// - domain: `.example.org`: the registrable domain and every host whose registrable domain it is.
/// - page: `example.net/tools/editor`: one host and one exact path (no query or fragment;
///   scheme and port are ignored).
///
/// Keys are data, never a path on disk. Equality, hashing and order use the canonical text.
public struct ScopeKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable { case page, host, domain }

    public let kind: Kind
    /// The canonical key as written in a document.
    public let text: String
    /// The host of a host or page key; the registrable domain (without the dot) of a domain key.
    public let host: String
    /// The canonical path of a page key; nil otherwise.
    public let path: String?

    /// The longest key accepted: a 253-byte host and a 2,048-byte path.
    public static let maximumPathBytes = 2048

    public static func host(_ host: HostName) -> ScopeKey {
        ScopeKey(kind: .host, text: host.text, host: host.text, path: nil)
    }

    public static func page(_ host: HostName, path: String) -> ScopeKey {
        ScopeKey(kind: .page, text: host.text + path, host: host.text, path: path)
    }

    /// A domain key for a name already known to be a registrable domain.
    static func domain(registrable: String) -> ScopeKey {
        ScopeKey(kind: .domain, text: "." + registrable, host: registrable, path: nil)
    }

    private init(kind: Kind, text: String, host: String, path: String?) {
        self.kind = kind
        self.text = text
        self.host = host
        self.path = path
    }

    /// Parses a key as a user or a stored document writes it, and returns its canonical form
    /// (`Docs.Example.COM.` becomes `docs.example.com`; `a.example/x/../y` becomes `a.example/y`).
    public static func parse(_ text: String, suffixes: PublicSuffixList = .embedded) throws(ScopeKeyError) -> ScopeKey {
        if text.isEmpty { throw .empty }
        if let bad = text.unicodeScalars.first(where: { $0 == "?" || $0 == "#" }) {
            throw .queryOrFragment(bad)
        }
        if text.hasPrefix(".") {
            let name = text.dropFirst()
            if name.contains("/") { throw .pathInDomainKey }
            let host: HostName
            do { host = try HostName.parse(name) } catch { throw .host(error) }
            guard host.kind == .name else { throw .addressAsDomain(host.text) }
            guard let registrable = suffixes.registrableDomain(of: host.text) else {
                throw .publicSuffix(host.text)
            }
            guard registrable == host.text else {
                throw .notRegistrable(host.text, suggestion: "." + registrable)
            }
            return .domain(registrable: host.text)
        }
        // By bytes when every character is one ASCII byte (a CR LF pair is one character,
        // but neither is a slash); otherwise by characters, where a mark after a slash is part
        // of its character.
        let slash = text.utf8.allSatisfy({ $0 < 0x80 }) ? text.utf8.firstIndex(of: UInt8(ascii: "/")) : text.firstIndex(of: "/")
        let hostPart = text[..<(slash ?? text.endIndex)]
        if hostPart.isEmpty { throw .missingHost }
        let host: HostName
        do { host = try HostName.parse(hostPart) } catch { throw .host(error) }
        guard let slash else { return .host(host) }
        let path = try canonicalKeyPath(text[slash...])
        return .page(host, path: path)
    }

    public var description: String { text }

    public static func == (a: ScopeKey, b: ScopeKey) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
    public static func < (a: ScopeKey, b: ScopeKey) -> Bool { a.text < b.text }
}

/// Validates a page key's path and returns it canonical. Keys are typed by people, so control
/// characters and spaces are refused rather than silently encoded.
private func canonicalKeyPath(_ path: Substring) throws(ScopeKeyError) -> String {
    for scalar in path.unicodeScalars where scalar.value < 0x21 || scalar.value == 0x7F || scalar == "\\" {
        throw .invalidPathCharacter(scalar)
    }
    let canonical = URLPath.canonical(path.utf8)
    if canonical.utf8.count > ScopeKey.maximumPathBytes {
        throw .pathTooLong(canonical.utf8.count)
    }
    return canonical
}

/// Why a scope key was refused. Messages are lower case and name the offending value.
public enum ScopeKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    /// A key with no host before its path, such as `/x`.
    case missingHost
    case host(HostError)
    /// A `?` or `#`: page keys hold no query or fragment.
    case queryOrFragment(Unicode.Scalar)
    case pathInDomainKey
    case addressAsDomain(String)
    /// A domain key naming a public suffix, such as `.co.uk`.
    case publicSuffix(String)
    /// A domain key below its registrable domain, such as `.docs.example.com`.
    case notRegistrable(String, suggestion: String)
    case invalidPathCharacter(Unicode.Scalar)
    case pathTooLong(Int)

    public var description: String {
        switch self {
        case .empty: "empty scope key"
        case .missingHost: "no host before the path"
        case .host(let error): error.description
        case .queryOrFragment(let c): "'\(c)' not allowed: a page key has no query or fragment"
        case .pathInDomainKey: "a domain key has no path"
        case .addressAsDomain(let ip): "an IP address (\(ip)) can only be a host key, not a domain key"
        case .publicSuffix(let name): "'\(name)' is a public suffix, not a registrable domain"
        case .notRegistrable(let name, let suggestion):
            "'.\(name)' is not a registrable domain; did you mean '\(suggestion)'?"
        case .invalidPathCharacter(let c): "invalid character \(c.debugDescriptionForMessages) in path"
        case .pathTooLong(let n): "path of \(n) bytes is longer than \(ScopeKey.maximumPathBytes)"
        }
    }
}

extension Unicode.Scalar {
    /// `'a'` for a printable character, `U+0000` for a control or space.
    var debugDescriptionForMessages: String {
        if value > 0x20 && value != 0x7F && !(0x80...0x9F).contains(value) { return "'\(self)'" }
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
