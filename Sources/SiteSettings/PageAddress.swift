/// The parts of a page URL that settings depend on: its host and canonical path. Scheme, port,
/// user information, query and fragment do not choose a record.
public struct PageAddress: Hashable, Sendable {
    public let host: HostName
    /// The path with dot segments removed; `/` for an empty path.
    public let path: String

    public init(host: HostName, path: String) {
        self.host = host
        self.path = path
    }

    /// The page key this address would be stored under.
    public var pageKey: ScopeKey { .page(host, path: path) }

    /// The domain key of the host's registrable domain, or nil for an IP address, a public
    /// suffix or a single label.
    public func domainKey(suffixes: PublicSuffixList = .embedded) -> ScopeKey? {
        guard host.kind == .name, let registrable = suffixes.registrableDomain(of: host.text) else { return nil }
        return .domain(registrable: String(registrable))
    }

    /// The keys a record for this address could have, most specific first: page, host, domain.
    public func scopeKeys(suffixes: PublicSuffixList = .embedded) -> [ScopeKey] {
        [pageKey, .host(host)] + (domainKey(suffixes: suffixes).map { [$0] } ?? [])
    }

    /// Parses an absolute URL. Only `http` and `https` pages are supported; anything else is
    /// `unsupportedScheme`, which the rendering decision turns into "off".
    ///
    /// Follows the browser's URL reading where it matters for choosing a record: leading and
    /// trailing spaces are ignored, the scheme and host are case-insensitive, `\` is read as `/`,
    /// any number of slashes may follow the scheme, and the last `@` ends the user information.
    /// Percent-encoded hosts are not decoded (they are refused as an invalid host).
    public static func parse(_ url: String) -> Result<PageAddress, AddressError> {
        var url = url
        return url.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<PageAddress, AddressError> {
        var start = 0, end = bytes.count
        while start < end && bytes[start] <= 0x20 { start += 1 }
        while end > start && bytes[end - 1] <= 0x20 { end -= 1 }

        var colon = start
        while colon < end && bytes[colon] != UInt8(ascii: ":") {
            let b = bytes[colon] | 0x20
            let isSchemeByte = (97...122).contains(b) || (48...57).contains(bytes[colon])
                || bytes[colon] == UInt8(ascii: "+") || bytes[colon] == UInt8(ascii: "-")
                || bytes[colon] == UInt8(ascii: ".")
            if !isSchemeByte { return .failure(.notAbsolute) }
            colon += 1
        }
        if colon == end || colon == start { return .failure(.notAbsolute) }
        guard isHTTP(UnsafeBufferPointer(rebasing: bytes[start..<colon])) else {
            let scheme = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<colon]), as: UTF8.self)
            return .failure(.unsupportedScheme(scheme.lowercased()))
        }

        var i = colon + 1
        while i < end && (bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "\\")) { i += 1 }
        let authorityStart = i
        while i < end, !isAuthorityEnd(bytes[i]) { i += 1 }
        let authorityEnd = i

        var hostStart = authorityStart
        for j in authorityStart..<authorityEnd where bytes[j] == UInt8(ascii: "@") { hostStart = j + 1 }
        var hostEnd = authorityEnd
        if hostStart < authorityEnd && bytes[hostStart] == UInt8(ascii: "[") {
            var close = hostStart
            while close < authorityEnd && bytes[close] != UInt8(ascii: "]") { close += 1 }
            hostEnd = close == authorityEnd ? authorityEnd : close + 1
            if hostEnd < authorityEnd {
                guard bytes[hostEnd] == UInt8(ascii: ":") else { return .failure(.invalidPort) }
                guard isPort(bytes, hostEnd + 1, authorityEnd) else { return .failure(.invalidPort) }
            }
        } else {
            var j = authorityEnd
            while j > hostStart && bytes[j - 1] != UInt8(ascii: ":") { j -= 1 }
            if j > hostStart {
                guard isPort(bytes, j, authorityEnd) else { return .failure(.invalidPort) }
                hostEnd = j - 1
            }
        }
        if hostStart == hostEnd { return .failure(.missingHost) }
        let hostText = Substring(decoding: UnsafeBufferPointer(rebasing: bytes[hostStart..<hostEnd]), as: UTF8.self)
        let host: HostName
        do { host = try HostName.parse(hostText) } catch { return .failure(.invalidHost(error)) }

        var pathEnd = authorityEnd
        while pathEnd < end && bytes[pathEnd] != UInt8(ascii: "?") && bytes[pathEnd] != UInt8(ascii: "#") {
            pathEnd += 1
        }
        let rawPath = UnsafeBufferPointer(rebasing: bytes[authorityEnd..<pathEnd])
        let path = rawPath.contains(UInt8(ascii: "\\"))
            ? URLPath.canonical(rawPath.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 })
            : URLPath.canonical(rawPath)
        return .success(PageAddress(host: host, path: path))
    }

    /// Whether a scheme is `http` or `https`, in any case.
    private static func isHTTP(_ scheme: UnsafeBufferPointer<UInt8>) -> Bool {
        guard scheme.count == 4 || scheme.count == 5 else { return false }
        let letters: [UInt8] = [UInt8(ascii: "h"), UInt8(ascii: "t"), UInt8(ascii: "t"), UInt8(ascii: "p"), UInt8(ascii: "s")]
        for (i, byte) in scheme.enumerated() where byte | 0x20 != letters[i] { return false }
        return true
    }

    private static func isAuthorityEnd(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "/") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
    }

    private static func isPort(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        guard to - from <= 5 else { return false }
        var value = 0
        for k in from..<to {
            guard (48...57).contains(bytes[k]) else { return false }
            value = value * 10 + Int(bytes[k] - 48)
        }
        return value <= 65535
    }
}

/// Why a URL names no page that settings apply to. Messages are lower case.
public enum AddressError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No scheme: not an absolute URL.
    case notAbsolute
    /// A scheme other than http or https (`about`, `file`, `safari-web-extension`, …).
    case unsupportedScheme(String)
    case missingHost
    case invalidHost(HostError)
    case invalidPort

    public var description: String {
        switch self {
        case .notAbsolute: "not an absolute URL"
        case .unsupportedScheme(let scheme): "unsupported scheme '\(scheme)' (only http and https pages are supported)"
        case .missingHost: "no host in URL"
        case .invalidHost(let error): "invalid host: \(error)"
        case .invalidPort: "invalid port"
        }
    }
}
