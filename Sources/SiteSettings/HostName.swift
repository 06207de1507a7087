/// A canonical host: lower case, no trailing dot, no port, internationalized labels as `xn--` A-labels;
/// or an IPv4 address in dotted decimal; or an IPv6 address in brackets in RFC 5952 form.
///
/// Spellings of one host that differ in ASCII case, a trailing dot, the dot character (U+3002,
/// U+FF0E, U+FF61), full-width ASCII, letter case of non-ASCII letters, U-label versus A-label
/// form, or IPv6 notation parse to equal values.
///
/// Limits: the standard library offers no Unicode normalization and no UTS 46 mapping table
/// (both come with ICU), so internationalized labels are only lower-cased and punycoded:
/// - no NFC: `"e\u{301}"` and `"é"` give different A-labels;
/// - no UTS 46 mapping besides the dots, full-width ASCII (U+FF01...U+FF5E) and lower case:
///   compatibility characters such as U+FB01 (ﬁ) are kept rather than mapped to `"fi"`, and
///   characters UTS 46 ignores, such as U+00AD (soft hyphen), are refused with the other
///   format characters;
/// - no IDNA 2008 validity rules (contextual rules, the bidi rule, hyphen positions, a
///   combining mark first).
/// Non-ASCII controls, separators, private-use characters, noncharacters and format
/// characters other than U+200C and U+200D are refused. Unassigned code points are accepted,
/// because which ones are unassigned depends on the Unicode version of the running standard
/// library, and a stored key must parse the same way everywhere.
public struct HostName: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// What a host denotes.
    public enum Kind: Sendable, Equatable {
        /// A domain name of dot-separated labels.
        case name
        /// An IPv4 address in dotted decimal.
        case ipv4
        /// An IPv6 address in brackets.
        case ipv6
    }

    /// The canonical form, e.g. `"docs.example.com"`, `"192.0.2.1"`, `"[2001:db8::1]"`.
    public let text: String
    /// Whether `text` is a name, an IPv4 address or an IPv6 address.
    public let kind: Kind

    private init(text: String, kind: Kind) {
        self.text = text
        self.kind = kind
    }

    /// The dot-separated labels of a `.name`, most specific first; empty for an address.
    public var labels: [Substring] {
        kind == .name ? text.split(separator: ".", omittingEmptySubsequences: false) : []
    }

    public var description: String { text }

    public static func == (lhs: HostName, rhs: HostName) -> Bool { lhs.text == rhs.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Orders by `text`.
    public static func < (lhs: HostName, rhs: HostName) -> Bool { lhs.text < rhs.text }

    /// Parses a host as it appears in a URL authority or a settings key (the port already removed by the caller).
    ///
    /// An all-ASCII host without `xn--` labels is checked in one pass over its UTF-8 bytes and
    /// allocates nothing beyond the resulting string.
    public static func parse(_ input: Substring) throws(HostError) -> HostName {
        let result =
            input.utf8.withContiguousStorageIfAvailable { bytes in
                Result { () throws(HostError) in try parse(bytes: bytes, input: input) }
            }
            ?? Array(input.utf8).withUnsafeBufferPointer { bytes in
                Result { () throws(HostError) in try parse(bytes: bytes, input: input) }
            }
        return try result.get()
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, input: Substring) throws(HostError) -> HostName {
        guard let first = bytes.first else { throw .empty }
        if first == ASCII.openBracket { return try parseIPv6(bytes, input: input) }
        if bytes.contains(where: { $0 >= 0x80 }) { return try parseInternational(input) }
        return try parseASCII(bytes, input: input, bytesAreInput: true)
    }

    // MARK: Names and IPv4

    /// Checks an ASCII host and builds its canonical text. `input` is what errors name; when
    /// `bytesAreInput` says that `bytes` are its UTF-8 and they are already canonical, the
    /// text is `String(input)`, which shares the storage of a string the input spans entirely.
    private static func parseASCII(
        _ bytes: UnsafeBufferPointer<UInt8>, input: Substring, bytesAreInput: Bool
    ) throws(HostError) -> HostName {
        guard let last = bytes.last else { throw .empty }
        var end = bytes.count
        if last == ASCII.dot { end -= 1 }

        var labelStart = 0
        var hasUpperCase = false
        var hasALabel = false
        var lastLabelIsNumeric = true
        for index in 0..<end {
            let byte = bytes[index]
            switch byte {
            case ASCII.a...ASCII.z, ASCII.hyphen, ASCII.underscore:
                lastLabelIsNumeric = false
            case ASCII.zero...ASCII.nine:
                break
            case ASCII.upperA...ASCII.upperZ:
                hasUpperCase = true
                lastLabelIsNumeric = false
            case ASCII.dot:
                hasALabel = try checkLabel(bytes, labelStart..<index, input: input) || hasALabel
                labelStart = index + 1
                lastLabelIsNumeric = true
            case ASCII.colon:
                throw .portOrUnbracketedIPv6(host: String(input))
            default:
                throw .invalidCharacter(Unicode.Scalar(byte))
            }
        }
        hasALabel = try checkLabel(bytes, labelStart..<end, input: input) || hasALabel

        let host = UnsafeBufferPointer(rebasing: bytes[..<end])
        if lastLabelIsNumeric || isHexNumber(bytes[labelStart..<end]) {
            switch ipv4Address(host) {
            case .some(nil): throw .ipv4LeadingZero(address: String(input))
            case .none: throw .invalidIPv4(address: String(input))
            case .some(.some): return HostName(text: String(decoding: host, as: UTF8.self), kind: .ipv4)
            }
        }
        guard end <= 253 else { throw .nameTooLong(length: end) }

        let text =
            if hasUpperCase { lowercased(host) }
            else if bytesAreInput && end == bytes.count { String(input) }
            else { String(decoding: host, as: UTF8.self) }
        if hasALabel {
            var canonical = text
            if let label = canonical.withUTF8(firstInvalidALabel) { throw .invalidALabel(label: label) }
        }
        return HostName(text: text, kind: .name)
    }

    /// Refuses an empty or over-long label; tells whether it starts with `xn--` in any case.
    private static func checkLabel(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, input: Substring
    ) throws(HostError) -> Bool {
        if range.isEmpty { throw .emptyLabel }
        if range.count > 63 { throw .labelTooLong(label: lowercased(UnsafeBufferPointer(rebasing: bytes[range]))) }
        return hasALabelPrefix(bytes[range])
    }

    private static func hasALabelPrefix<Bytes: Collection<UInt8>>(_ label: Bytes) -> Bool {
        var prefix = label.makeIterator()
        return prefix.next().map { $0 | 0x20 } == ASCII.x
            && prefix.next().map { $0 | 0x20 } == ASCII.n
            && prefix.next() == ASCII.hyphen
            && prefix.next() == ASCII.hyphen
    }

    /// `0x` followed by hex digits only: a last label that URL parsers read as a number, so
    /// the host can only be an IPv4 address, and not a valid one.
    private static func isHexNumber(_ label: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard label.count >= 2, label.first == ASCII.zero, label[label.startIndex + 1] | 0x20 == ASCII.x else {
            return false
        }
        return label.dropFirst(2).allSatisfy { byte in
            (ASCII.zero...ASCII.nine).contains(byte) || (ASCII.a...ASCII.f).contains(byte | 0x20)
        }
    }

    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if #available(macOS 11, iOS 14, tvOS 14, watchOS 7, *) {
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = lowercased(byte) }
                return bytes.count
            }
        }
        return String(decoding: bytes.lazy.map(lowercased), as: UTF8.self)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (ASCII.upperA...ASCII.upperZ).contains(byte) ? byte | 0x20 : byte
    }


    /// A strict dotted-decimal IPv4 address: four parts of 0...255 without leading zeros.
    /// Nil when malformed; `.some(nil)` when well formed apart from a leading zero.
    private static func ipv4Address<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32?? {
        var address: UInt32 = 0
        var parts = 0
        var value: UInt32 = 0
        var digits = 0
        var leadingZero = false
        var outOfRange = false
        for byte in bytes {
            if byte == ASCII.dot {
                guard digits > 0, parts < 3 else { return nil }
                address = address << 8 | value
                parts += 1
                value = 0
                digits = 0
            } else if (ASCII.zero...ASCII.nine).contains(byte) {
                if digits == 1 && value == 0 { leadingZero = true }
                if digits < 4 { value = value * 10 + UInt32(byte - ASCII.zero) }
                digits += 1
                if value > 255 || digits > 3 { outOfRange = true }
            } else {
                return nil
            }
        }
        guard digits > 0, parts == 3 else { return nil }
        if leadingZero { return .some(nil) }
        if outOfRange { return nil }
        return address << 8 | value
    }

    // MARK: Internationalized names

    /// Maps a host with non-ASCII characters to ASCII (dots, full-width ASCII, lower case,
    /// punycode) and checks the result as an ASCII host.
    private static func parseInternational(_ input: Substring) throws(HostError) -> HostName {
        var mapped: [Unicode.Scalar] = []
        mapped.reserveCapacity(input.utf8.count)
        for scalar in input.unicodeScalars {
            appendMapped(scalar, to: &mapped)
        }
        if mapped.last == "." { mapped.removeLast() }

        var ascii: [UInt8] = []
        ascii.reserveCapacity(mapped.count * 2)
        var labelStart = 0
        for index in 0...mapped.count where index == mapped.count || mapped[index] == "." {
            let label = mapped[labelStart..<index]
            if labelStart > 0 { ascii.append(ASCII.dot) }
            labelStart = index + 1

            if label.isEmpty { throw .emptyLabel }
            var isASCII = true
            for scalar in label {
                if scalar.isASCII {
                    let byte = UInt8(scalar.value)
                    if isNameByte(byte) { continue }
                    if byte == ASCII.colon { throw .portOrUnbracketedIPv6(host: String(input)) }
                    throw .invalidCharacter(scalar)
                }
                guard isAllowedNonASCII(scalar) else { throw .invalidCharacter(scalar) }
                isASCII = false
            }
            if isASCII {
                ascii.append(contentsOf: label.lazy.map { UInt8($0.value) })
                continue
            }
            guard label.count <= 63, let encoded = Punycode.encodedBytes(Array(label)) else {
                throw .labelTooLong(label: String(String.UnicodeScalarView(label)))
            }
            guard !hasALabelPrefix(label.lazy.map { $0.isASCII ? UInt8($0.value) : 0 }) else {
                throw .invalidALabel(label: String(String.UnicodeScalarView(label)))
            }
            ascii.append(contentsOf: "xn--".utf8)
            ascii.append(contentsOf: encoded)
        }

        let result = ascii.withUnsafeBufferPointer { bytes in
            Result { () throws(HostError) in try parseASCII(bytes, input: input, bytesAreInput: false) }
        }
        return try result.get()
    }

    /// Appends what a scalar maps to: the ideographic and full-width dots become `.`,
    /// full-width ASCII becomes ASCII, and letters become lower case.
    private static func appendMapped(_ scalar: Unicode.Scalar, to mapped: inout [Unicode.Scalar]) {
        var scalar = scalar
        switch scalar.value {
        case 0x3002, 0xFF0E, 0xFF61:
            mapped.append(".")
            return
        case 0xFF01...0xFF5E:
            scalar = Unicode.Scalar(UInt8(scalar.value - 0xFEE0))
        default:
            break
        }
        if scalar.isASCII {
            let byte = UInt8(scalar.value)
            mapped.append(Unicode.Scalar(lowercased(byte)))
        } else {
            mapped.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
        }
    }

    /// The first `xn--` label of a lower-case host that is not valid, if any. A valid one
    /// decodes, contains a non-ASCII character, consists of allowed characters that the
    /// mapping leaves as they are, and encodes back to itself.
    private static func firstInvalidALabel(_ host: UnsafeBufferPointer<UInt8>) -> String? {
        var labelStart = 0
        while labelStart < host.count {
            let labelEnd = host[labelStart...].firstIndex(of: ASCII.dot) ?? host.count
            let label = host[labelStart..<labelEnd]
            labelStart = labelEnd + 1
            guard hasALabelPrefix(label) else { continue }
            let encoded = UnsafeBufferPointer(rebasing: label.dropFirst(4))
            guard let decoded = Punycode.decode(bytes: encoded),
                decoded.contains(where: { !$0.isASCII }),
                decoded.allSatisfy(isCanonicalScalar),
                let reencoded = Punycode.encodedBytes(decoded),
                reencoded.elementsEqual(encoded)
            else { return String(decoding: label, as: UTF8.self) }
        }
        return nil
    }

    /// Whether a decoded scalar is allowed and `appendMapped` leaves it as it is.
    private static func isCanonicalScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isNameByte(UInt8(scalar.value)) }
        switch scalar.value {
        case 0x3002, 0xFF0E, 0xFF61, 0xFF01...0xFF5E: return false
        default: break
        }
        guard isAllowedNonASCII(scalar) else { return false }
        var lowercase = scalar.properties.lowercaseMapping.unicodeScalars.makeIterator()
        return lowercase.next() == scalar && lowercase.next() == nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case ASCII.a...ASCII.z, ASCII.zero...ASCII.nine, ASCII.hyphen, ASCII.underscore: true
        default: false
        }
    }

    private static func isAllowedNonASCII(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate:
            return false
        case .format:
            return scalar.value == 0x200C || scalar.value == 0x200D
        default:
            return !properties.isNoncharacterCodePoint
        }
    }

    // MARK: IPv6

    private static func parseIPv6(_ bytes: UnsafeBufferPointer<UInt8>, input: Substring) throws(HostError) -> HostName {
        guard bytes.count >= 2, bytes[bytes.count - 1] == ASCII.closeBracket,
            let pieces = ipv6Pieces(bytes[1..<(bytes.count - 1)])
        else { throw .invalidIPv6(address: String(input)) }
        return HostName(text: ipv6Text(pieces), kind: .ipv6)
    }

    /// The eight 16-bit pieces of an IPv6 address written as hex groups with at most one
    /// `::` and optionally a dotted-decimal IPv4 address as the last 32 bits; nil otherwise.
    private static func ipv6Pieces(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> SIMD8<UInt16>? {
        guard bytes.count <= 45 else { return nil }
        var pieces = SIMD8<UInt16>()
        var count = 0
        var compressAt: Int?
        var index = bytes.startIndex
        let end = bytes.endIndex

        if index < end && bytes[index] == ASCII.colon {
            guard index + 1 < end, bytes[index + 1] == ASCII.colon else { return nil }
            compressAt = 0
            index += 2
        }
        while index < end {
            guard count < 8 else { return nil }
            let groupStart = index
            var value: UInt16 = 0
            while index < end, let digit = hexValue(bytes[index]) {
                guard index - groupStart < 4 else { return nil }
                value = value << 4 | digit
                index += 1
            }
            if index < end && bytes[index] == ASCII.dot {
                guard count <= 6, let address = ipv4Address(bytes[groupStart..<end]) ?? nil else { return nil }
                pieces[count] = UInt16(truncatingIfNeeded: address >> 16)
                pieces[count + 1] = UInt16(truncatingIfNeeded: address)
                count += 2
                break
            }
            guard index > groupStart else { return nil }
            pieces[count] = value
            count += 1
            if index == end { break }
            guard bytes[index] == ASCII.colon, index + 1 < end else { return nil }
            index += 1
            if bytes[index] == ASCII.colon {
                guard compressAt == nil else { return nil }
                compressAt = count
                index += 1
            }
        }

        guard let compressAt else { return count == 8 ? pieces : nil }
        guard count < 8 else { return nil }
        let tail = count - compressAt
        var expanded = SIMD8<UInt16>()
        for offset in 0..<compressAt { expanded[offset] = pieces[offset] }
        for offset in 0..<tail { expanded[8 - tail + offset] = pieces[compressAt + offset] }
        return expanded
    }

    private static func hexValue(_ byte: UInt8) -> UInt16? {
        switch byte {
        case ASCII.zero...ASCII.nine: UInt16(byte - ASCII.zero)
        case ASCII.a...ASCII.f: UInt16(byte - ASCII.a + 10)
        case ASCII.upperA...ASCII.upperF: UInt16(byte - ASCII.upperA + 10)
        default: nil
        }
    }

    /// RFC 5952 text in brackets: lower-case hex without leading zeros, the first longest run
    /// of two or more zero pieces written as `::`.
    private static func ipv6Text(_ pieces: SIMD8<UInt16>) -> String {
        var bestStart = -1
        var bestLength = 1
        var runStart = 0
        var runLength = 0
        for index in 0..<8 {
            guard pieces[index] == 0 else {
                runLength = 0
                continue
            }
            if runLength == 0 { runStart = index }
            runLength += 1
            if runLength > bestLength {
                bestStart = runStart
                bestLength = runLength
            }
        }

        // At most 41 bytes: "[", eight groups of four digits, seven colons, "]".
        var storage = SIMD64<UInt8>()
        return withUnsafeMutableBytes(of: &storage) { raw in
            let text = raw.bindMemory(to: UInt8.self)
            var count = 0
            func append(_ byte: UInt8) {
                text[count] = byte
                count += 1
            }
            append(ASCII.openBracket)
            var index = 0
            while index < 8 {
                if index == bestStart {
                    append(ASCII.colon)
                    append(ASCII.colon)
                    index += bestLength
                    continue
                }
                if index > 0 && index != bestStart + bestLength { append(ASCII.colon) }
                let piece = pieces[index]
                var shift = 12
                while shift > 0 && piece >> UInt16(shift) == 0 { shift -= 4 }
                while shift >= 0 {
                    let digit = UInt8(truncatingIfNeeded: piece >> UInt16(shift)) & 0xF
                    append(digit < 10 ? ASCII.zero + digit : ASCII.a + digit - 10)
                    shift -= 4
                }
                index += 1
            }
            append(ASCII.closeBracket)
            return String(decoding: UnsafeBufferPointer(rebasing: text[..<count]), as: UTF8.self)
        }
    }
}

/// Why a host was refused. Messages are lower case and name the offending value.
public enum HostError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input was empty.
    case empty
    /// A label was empty, as in `"a..b"`, `".a"`, `"a.."` or `"."`.
    case emptyLabel
    /// A character outside the host alphabet: ASCII other than letters, digits, `-`, `_`, `.`
    /// and `:`, or a non-ASCII control, separator, private-use, format or noncharacter.
    /// Full-width ASCII is named as the ASCII character it maps to.
    case invalidCharacter(Unicode.Scalar)
    /// The host contains `:`: the port was left on, or an IPv6 address lacks brackets.
    case portOrUnbracketedIPv6(host: String)
    /// A label is longer than 63 bytes, an internationalized one measured as its A-label.
    /// Carries the lower-cased label: the A-label, or the U-label when it has more than 63
    /// characters and so cannot fit in any encoding.
    case labelTooLong(label: String)
    /// The host is longer than 253 bytes without its trailing dot.
    case nameTooLong(length: Int)
    /// A label starting with `xn--` is not the punycode of a non-ASCII label in canonical
    /// form, or a non-ASCII label starts with `xn--`.
    case invalidALabel(label: String)
    /// The last label is a number (decimal digits, or `0x` and hex digits, which URL parsers
    /// also read as a number) but the host is not four dotted decimal parts of 0...255.
    case invalidIPv4(address: String)
    /// A dotted-decimal part has a leading zero, which some parsers read as octal.
    case ipv4LeadingZero(address: String)
    /// A bracketed host is not an IPv6 address in brackets (zone identifiers included).
    case invalidIPv6(address: String)

    public var description: String {
        switch self {
        case .empty:
            "empty host"
        case .emptyLabel:
            "empty label in host"
        case .invalidCharacter(let scalar):
            "invalid character \(Self.shown(scalar)) in host"
        case .portOrUnbracketedIPv6(let host):
            "':' in host \(Self.quoted(host)): remove the port, or write an IPv6 address in brackets"
        case .labelTooLong(let label):
            "label \(Self.quoted(label)) is longer than 63 bytes"
        case .nameTooLong(let length):
            "host of \(length) bytes is longer than 253"
        case .invalidALabel(let label):
            "invalid xn-- label \(Self.quoted(label)): not the punycode of a lower-case non-ASCII label"
        case .invalidIPv4(let address):
            "invalid IPv4 address \(Self.quoted(address))"
        case .ipv4LeadingZero(let address):
            "invalid IPv4 address \(Self.quoted(address)): a part has a leading zero"
        case .invalidIPv6(let address):
            "invalid IPv6 address \(Self.quoted(address))"
        }
    }

    /// `'x'` for printable ASCII (`"'"` for the apostrophe), `U+0000` for anything else.
    private static func shown(_ scalar: Unicode.Scalar) -> String {
        if scalar == "'" { return "\"'\"" }
        if scalar.value > 0x20 && scalar.value < 0x7F { return "'\(scalar)'" }
        return "U+" + hex(scalar.value, digits: 4)
    }

    /// The value in single quotes, cut after 100 characters, with invisible characters
    /// written as `\u{…}` so that a hostile value cannot hide in or forge log lines.
    private static func quoted(_ value: String) -> String {
        var result = "'"
        for (offset, scalar) in value.unicodeScalars.enumerated() {
            if offset == 100 {
                result += "…"
                break
            }
            if scalar.value >= 0x20 && scalar.value < 0x7F {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator,
                .privateUse, .surrogate, .unassigned:
                result += "\\u{" + hex(scalar.value, digits: 1) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// The ASCII bytes the parser compares against.
private enum ASCII {
    static let hyphen = UInt8(ascii: "-")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let colon = UInt8(ascii: ":")
    static let upperA = UInt8(ascii: "A")
    static let upperF = UInt8(ascii: "F")
    static let upperZ = UInt8(ascii: "Z")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let underscore = UInt8(ascii: "_")
    static let a = UInt8(ascii: "a")
    static let f = UInt8(ascii: "f")
    static let n = UInt8(ascii: "n")
    static let x = UInt8(ascii: "x")
    static let z = UInt8(ascii: "z")
}
