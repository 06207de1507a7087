/// A URL as the reference decision reads it, from the README's rules alone: an http or https
/// URL with a valid host; the host canonical (lower case, no trailing dot, no port, Unicode
/// labels as `xn--` A-labels, IPv4 in dotted decimal, IPv6 bracketed in RFC 5952 form) and the
/// path with its dot segments removed (`%2e` counts as a dot). Query and fragment are dropped.
struct ReferenceAddress: Equatable, Sendable {
    enum HostKind: Equatable, Sendable { case name, ipv4, ipv6 }

    var host: String
    var kind: HostKind
    /// Starts with `/`.
    var path: String

    /// The page key: host plus path.
    var pageKey: String { host + path }

    /// The address of an http or https URL with a valid host; nil for any other (unsupported).
    /// As the URL Standard reads a URL of these schemes (browsers give pages such URLs):
    /// spaces and controls around it are ignored, any run of `/` or `\` ends the scheme's part,
    /// and `\` is a `/` in the path.
    static func read(_ text: String) -> ReferenceAddress? {
        let url = text.drop { $0.isASCII && $0.asciiValue! <= 0x20 }.reversed().drop { $0.isASCII && $0.asciiValue! <= 0x20 }.reversed()
        var trimmed = String(url)
        if trimmed.contains("\\") { trimmed = trimmed.replacing("\\", with: "/") }
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let scheme = trimmed[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let afterSlashes = trimmed[trimmed.index(after: colon)...].drop { $0 == "/" }
        let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterSlashes.endIndex
        var authority = afterSlashes[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let tail = afterSlashes[authorityEnd...]
        let pathEnd = tail.firstIndex { $0 == "?" || $0 == "#" } ?? tail.endIndex
        let rawPath = tail[..<pathEnd]
        guard let (host, kind) = canonicalHost(authority) else { return nil }
        return ReferenceAddress(host: host, kind: kind, path: removingDotSegments(rawPath.isEmpty ? "/" : rawPath))
    }

    // MARK: - Hosts

    /// The canonical host of an authority without user info (`host`, `host:port`, `[v6]:port`).
    static func canonicalHost(_ authority: Substring) -> (String, HostKind)? {
        var host = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            guard validPort(authority[authority.index(after: close)...]) else { return nil }
            guard let v6 = ipv6(authority[authority.index(after: authority.startIndex)..<close]) else { return nil }
            return ("[" + v6 + "]", .ipv6)
        }
        if let colon = authority.firstIndex(of: ":") {
            guard validPort(authority[colon...]) else { return nil }
            host = authority[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty else { return nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) {
            // Dotted decimal: four numbers up to 255.
            guard labels.count == 4 else { return nil }
            var parts: [String] = []
            for label in labels {
                guard label.count <= 3, let value = Int(label), value <= 255 else { return nil }
                parts.append(String(value))
            }
            return (parts.joined(separator: "."), .ipv4)
        }
        var canonical: [String] = []
        for label in labels {
            guard !label.isEmpty else { return nil }
            let lower = label.lowercased()
            var ascii = lower
            if lower.unicodeScalars.contains(where: { !$0.isASCII }) {
                guard let encoded = ReferencePunycode.encode(Array(lower.unicodeScalars)) else { return nil }
                ascii = "xn--" + encoded
            }
            guard ascii.utf8.count <= 63, ascii.utf8.allSatisfy(isLabelByte) else { return nil }
            canonical.append(ascii)
        }
        let text = canonical.joined(separator: ".")
        guard text.utf8.count <= 253 else { return nil }
        return (text, .name)
    }

    /// `a-z`, `0-9`, `-` and `_`.
    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (48...57).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// Nothing, or `:` and decimal digits up to 65535 (an empty port is no port).
    private static func validPort(_ text: Substring) -> Bool {
        guard !text.isEmpty else { return true }
        guard text.first == ":" else { return false }
        let digits = text.dropFirst()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        return digits.isEmpty || (Int(digits).map { $0 <= 65535 } ?? false)
    }

    /// An IPv6 address (without brackets) in RFC 5952 form: lower-case hex without leading
    /// zeros, the longest run of two or more zero groups (the first of equals) as `::`.
    static func ipv6(_ text: Substring) -> String? {
        var groups: [Int] = []
        var gap: Int?
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        for (index, half) in halves.enumerated() {
            if index == 1 { gap = groups.count }
            guard !half.isEmpty else { continue }
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (position, part) in parts.enumerated() {
                if position == parts.count - 1, index == halves.count - 1, part.contains(".") {
                    guard case let (v4, .ipv4)? = canonicalHost(part) else { return nil }
                    let bytes = v4.split(separator: ".").map { Int($0)! }
                    groups += [bytes[0] << 8 | bytes[1], bytes[2] << 8 | bytes[3]]
                    continue
                }
                guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit), let value = Int(part, radix: 16) else { return nil }
                groups.append(value)
            }
        }
        if let gap {
            guard groups.count <= 7 else { return nil }
            groups.insert(contentsOf: Array(repeating: 0, count: 8 - groups.count), at: gap)
        }
        guard groups.count == 8 else { return nil }
        // The longest run of zeros, two groups at least.
        var best: (start: Int, count: Int)?
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index >= 2 && end - index > (best?.count ?? 0) { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let best else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.count)...].joined(separator: ":")
    }

    // MARK: - Paths

    /// RFC 3986 section 5.2.4 on segments: `.` goes, `..` takes the segment before it with it,
    /// and either as the last segment leaves a trailing `/`. `%2e` (any case) is a dot.
    static func removingDotSegments(_ path: Substring) -> String {
        func dots(_ segment: Substring) -> Int? {
            guard segment.utf8.count <= 6, segment.first == "." || segment.first == "%" else { return nil }
            let plain = segment.contains("%") ? segment.lowercased().replacing("%2e", with: ".") : String(segment)
            return plain == "." ? 1 : plain == ".." ? 2 : nil
        }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var trailingSlash = false
        for (position, segment) in segments.enumerated() {
            let last = position == segments.count - 1
            switch dots(segment) {
            case 1: trailingSlash = last
            case 2:
                if !output.isEmpty { output.removeLast() }
                trailingSlash = last
            default:
                output.append(segment)
                trailingSlash = false
            }
        }
        return "/" + output.joined(separator: "/") + (trailingSlash && !output.isEmpty ? "/" : "")
    }
}
