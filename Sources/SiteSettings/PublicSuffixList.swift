/// The Public Suffix List: which part of a host is a public suffix, and so which part is registrable.
///
/// Matching follows publicsuffix.org: a rule matches a host if its labels equal the host's
/// rightmost labels, `*` matching exactly one label. An exception rule (`!`) prevails over all
/// others; otherwise the matching rule with the most labels prevails; if none matches, the
/// prevailing rule is `*`. The public suffix is the prevailing rule's labels (an exception rule's
/// minus its leftmost label), and the registrable domain is the public suffix plus one more label.
///
/// A list is kept as text in the layout that `generate-public-suffix-data.py` (beside it) describes
/// (key lines and a hash table of fixed-width slots) and is read in place: a lookup hashes the
/// host's suffixes label by label from the right, probes the table and compares bytes. It
/// allocates nothing and reads a few cache lines, so the embedded list needs no work at start.
public struct PublicSuffixList: Sendable {
    /// The list compiled into the binary (a snapshot; see the README for its date). Costs nothing at start.
    public static let embedded: PublicSuffixList = {
        precondition(
            PublicSuffixData.text.utf8CodeUnitCount == PublicSuffixData.byteCount,
            "PublicSuffixData.swift does not match its own header; regenerate it"
        )
        return PublicSuffixList(
            storage: nil,
            ruleCount: PublicSuffixData.ruleCount,
            tableOffset: PublicSuffixData.tableOffset,
            slotMask: PublicSuffixData.slotCount - 1,
            slotWidth: PublicSuffixData.slotWidth
        )
    }()

    /// Whether this is the list compiled into the binary.
    var isEmbedded: Bool { storage == nil }

    /// The number of distinct rules (normal, wildcard and exception rules).
    public let ruleCount: Int

    /// The list's text for a parsed list; nil for the embedded one, whose text is `PublicSuffixData.text`.
    private let storage: [UInt8]?
    private let tableOffset: Int
    private let slotMask: Int
    private let slotWidth: Int

    private init(storage: [UInt8]?, ruleCount: Int, tableOffset: Int, slotMask: Int, slotWidth: Int) {
        self.storage = storage
        self.ruleCount = ruleCount
        self.tableOffset = tableOffset
        self.slotMask = slotMask
        self.slotWidth = slotWidth
    }

    /// Reads a list in the publicsuffix.org `.dat` format (comments `//`, blank lines, one rule per line,
    /// only the text up to the first whitespace counts), e.g. for a `--psl FILE` option. Unicode rules are
    /// converted to xn-- labels with `Punycode.encode`.
    ///
    /// Rules are lower-cased. A rule appearing twice counts once. Throws for the first rule that
    /// is not a valid name, and for a text without any rule.
    public init(parsing text: String) throws(PublicSuffixListError) {
        var flags: [String: UInt8] = [:]
        var lineNumber = 0
        for line in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let afterSpace = line.drop { $0.properties.isWhitespace }
            let token = String(Substring(afterSpace.prefix { !$0.properties.isWhitespace }))
            if token.isEmpty || token.hasPrefix("//") {
                continue
            }
            do {
                let (key, flag) = try Self.parseRule(token)
                flags[key, default: 0] |= flag
            } catch {
                throw .invalidRule(line: lineNumber, rule: token, reason: error)
            }
        }
        if flags.isEmpty {
            throw .noRules
        }
        let ruleCount = flags.values.reduce(0) { $0 + $1.nonzeroBitCount }
        // Every suffix of a key is a key too (flag 0 if it is no rule), so a lookup may stop at
        // the first suffix of a host that is not a key.
        for key in Array(flags.keys) {
            var rest = Substring(key)
            while let dot = rest.utf8.firstIndex(of: Self.dot) {
                rest = rest[rest.utf8.index(after: dot)...]
                if flags[String(rest)] == nil {
                    flags[String(rest)] = 0
                }
            }
        }
        let (text, tableOffset, slotCount, slotWidth) = Self.layout(flags)
        self.init(
            storage: text,
            ruleCount: ruleCount,
            tableOffset: tableOffset,
            slotMask: slotCount - 1,
            slotWidth: slotWidth
        )
    }

    /// The public suffix of `host`: its rightmost labels that the prevailing rule covers.
    ///
    /// `host` is a canonical host name: lower case ASCII, A-labels, no trailing dot, not an IP address.
    /// A host with a single label, or whose labels no rule covers, has its last label as public suffix.
    public func publicSuffix(of host: String) -> Substring {
        let start = Self.withBytes(of: host) { publicSuffixStart(in: $0) }
        return host[host.utf8.index(host.utf8.startIndex, offsetBy: start)...]
    }

    /// The registrable domain of `host`: its public suffix plus the label before it.
    ///
    /// `host` is a canonical host name: lower case ASCII, A-labels, no trailing dot, not an IP address.
    /// Returns nil when the host is itself a public suffix (or has no label left).
    public func registrableDomain(of host: String) -> Substring? {
        let start: Int? = Self.withBytes(of: host) { bytes in
            let suffixStart = publicSuffixStart(in: bytes)
            guard suffixStart >= 2, suffixStart < bytes.count else {
                return nil
            }
            var labelStart = suffixStart - 1
            while labelStart > 0, bytes[labelStart - 1] != Self.dot {
                labelStart -= 1
            }
            return labelStart < suffixStart - 1 ? labelStart : nil
        }
        guard let start else {
            return nil
        }
        return host[host.utf8.index(host.utf8.startIndex, offsetBy: start)...]
    }

    // MARK: - Lookup

    private static let dot = UInt8(ascii: ".")
    private static let newline = UInt8(ascii: "\n")
    private static let emptySlot = UInt8(ascii: "-")
    private static let slotsPerRow = 64
    private static let fnvOffsetBasis: UInt32 = 0x811C_9DC5
    private static let fnvPrime: UInt32 = 0x0100_0193
    private static let ruleFlag: UInt8 = 1
    private static let wildcardFlag: UInt8 = 2
    private static let exceptionFlag: UInt8 = 4

    /// Calls `body` with the UTF-8 bytes of `host`, copying them only if the string has no
    /// contiguous UTF-8 storage.
    @inline(__always)
    private static func withBytes<R>(of host: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = host.utf8.withContiguousStorageIfAvailable(body) {
            return result
        }
        var copy = host
        return copy.withUTF8(body)
    }

    /// The byte offset in `host` where its public suffix starts (`host.count` if it is empty).
    private func publicSuffixStart(in host: UnsafeBufferPointer<UInt8>) -> Int {
        guard let storage else {
            return Self.publicSuffixStart(
                in: host,
                data: PublicSuffixData.text.utf8Start,
                tableOffset: PublicSuffixData.tableOffset,
                slotMask: PublicSuffixData.slotCount - 1,
                slotWidth: PublicSuffixData.slotWidth
            )
        }
        return storage.withUnsafeBufferPointer { data in
            Self.publicSuffixStart(
                in: host,
                data: data.baseAddress!,
                tableOffset: tableOffset,
                slotMask: slotMask,
                slotWidth: slotWidth
            )
        }
    }

    /// Walks the labels of `host` from the right. Each longer suffix extends the hash of the
    /// previous one (the keys are hashed from their last byte to their first) and is looked up
    /// once: its flags say whether it is a rule, an exception rule, or the parent of a wildcard
    /// rule. The walk ends at an exception, at the host's first label, or at a suffix that is not
    /// a key, since then no longer suffix is one either.
    @inline(__always)
    private static func publicSuffixStart(
        in host: UnsafeBufferPointer<UInt8>,
        data: UnsafePointer<UInt8>,
        tableOffset: Int,
        slotMask: Int,
        slotWidth: Int
    ) -> Int {
        var hash = fnvOffsetBasis
        var labelEnd = host.count
        var restStart = host.count
        var suffixStart = -1
        var parentHasWildcard = false
        while true {
            var labelStart = labelEnd
            while labelStart > 0, host[labelStart - 1] != dot {
                labelStart -= 1
                hash = (hash ^ UInt32(host[labelStart])) &* fnvPrime
            }
            if suffixStart < 0 {
                suffixStart = labelStart  // the implicit rule "*"
            }
            guard let flags = Self.flags(
                of: host, from: labelStart, hash: hash,
                data: data, tableOffset: tableOffset, slotMask: slotMask, slotWidth: slotWidth
            ) else {
                return parentHasWildcard ? labelStart : suffixStart
            }
            if flags & exceptionFlag != 0 {
                return restStart
            }
            if flags & ruleFlag != 0 || parentHasWildcard {
                suffixStart = labelStart
            }
            if labelStart == 0 {
                return suffixStart
            }
            parentHasWildcard = flags & wildcardFlag != 0
            hash = (hash ^ UInt32(dot)) &* fnvPrime
            restStart = labelStart
            labelEnd = labelStart - 1
        }
    }

    /// The flags of the key `host[start...]` whose hash is `hash`, or nil if it is not a key.
    @inline(__always)
    private static func flags(
        of host: UnsafeBufferPointer<UInt8>,
        from start: Int,
        hash: UInt32,
        data: UnsafePointer<UInt8>,
        tableOffset: Int,
        slotMask: Int,
        slotWidth: Int
    ) -> UInt8? {
        let rowLength = slotsPerRow * slotWidth + 1
        let length = host.count - start
        var slot = Int(hash) & slotMask
        while true {
            let digits = data + tableOffset + (slot / slotsPerRow) * rowLength + (slot % slotsPerRow) * slotWidth
            if digits[0] == emptySlot {
                return nil
            }
            var offset = 0
            for index in 0..<slotWidth {
                let digit = digits[index]
                offset = offset << 4 | Int(digit <= UInt8(ascii: "9") ? digit &- 48 : digit &- 87)
            }
            let key = data + offset + 1
            var index = 0
            while index < length {
                let byte = key[index]
                if byte == newline || byte != host[start + index] {
                    break
                }
                index += 1
            }
            if index == length, key[length] == newline {
                return data[offset] &- UInt8(ascii: "0")
            }
            slot = (slot + 1) & slotMask
        }
    }

    // MARK: - Parsing

    /// The key and flag of one rule, e.g. `*.ck` → ("ck", wildcard); throws why it is invalid.
    private static func parseRule(_ rule: String) throws(PublicSuffixListError.Reason) -> (String, UInt8) {
        var scalars = Substring(rule.lowercased()).unicodeScalars
        let isException = scalars.first == "!"
        if isException {
            scalars.removeFirst()
        }
        var labels = scalars.split(separator: ".", omittingEmptySubsequences: false)
        let isWildcard = labels.first.map { $0.elementsEqual(["*"]) } ?? false
        if isWildcard {
            labels.removeFirst()
            if isException || labels.isEmpty {
                throw .misplacedWildcard
            }
        }
        if isException, labels.count < 2 {
            throw .shortException
        }
        var key = ""
        for label in labels {
            if !key.isEmpty {
                key += "."
            }
            key += try canonicalLabel(label)
        }
        if key.utf8.count > 253 {
            throw .nameTooLong
        }
        return (key, isWildcard ? wildcardFlag : isException ? exceptionFlag : ruleFlag)
    }

    /// `label` as an A-label: non-ASCII labels become "xn--" and their Punycode.
    private static func canonicalLabel(_ label: Substring.UnicodeScalarView.SubSequence) throws(PublicSuffixListError.Reason) -> String {
        var result: String
        if label.allSatisfy(\.isASCII) {
            result = String(Substring(label))
        } else {
            guard let encoded = Punycode.encode(Array(label)) else {
                throw .punycodeOverflow
            }
            result = "xn--" + encoded
        }
        if result.isEmpty {
            throw .emptyLabel
        }
        if result == "*" {
            throw .misplacedWildcard
        }
        if result.utf8.count > 63 {
            throw .labelTooLong
        }
        let allowed = result.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        if !allowed {
            throw .invalidCharacter
        }
        return result
    }

    /// Lays out `flags` (key → flag bits) exactly as the generator does: the key lines in the
    /// order of their labels read right to left, then the hash table.
    private static func layout(_ flags: [String: UInt8]) -> (text: [UInt8], tableOffset: Int, slotCount: Int, slotWidth: Int) {
        let keys = flags.keys
            .map { key in (key: key, labels: key.utf8.split(separator: dot).reversed().map(Array.init)) }
            .sorted { $0.labels.lexicographicallyPrecedes($1.labels) { $0.lexicographicallyPrecedes($1) } }
            .map(\.key)
        var text: [UInt8] = []
        var offsets: [Int] = []
        offsets.reserveCapacity(keys.count)
        for key in keys {
            offsets.append(text.count)
            text.append(UInt8(ascii: "0") + flags[key]!)
            text.append(contentsOf: key.utf8)
            text.append(newline)
        }
        let tableOffset = text.count
        var slotCount = slotsPerRow
        while slotCount < 2 * keys.count {
            slotCount *= 2
        }
        var slotWidth = 1
        while offsets.last! >> (4 * slotWidth) != 0 {
            slotWidth += 1
        }
        var slots = [Int](repeating: -1, count: slotCount)
        for (key, offset) in zip(keys, offsets) {
            var hash = fnvOffsetBasis
            for byte in key.utf8.reversed() {
                hash = (hash ^ UInt32(byte)) &* fnvPrime
            }
            var slot = Int(hash) & (slotCount - 1)
            while slots[slot] >= 0 {
                slot = (slot + 1) & (slotCount - 1)
            }
            slots[slot] = offset
        }
        let hexDigits = Array("0123456789abcdef".utf8)
        text.reserveCapacity(tableOffset + slotCount * slotWidth + slotCount / slotsPerRow)
        for (slot, offset) in slots.enumerated() {
            if slot > 0, slot % slotsPerRow == 0 {
                text.append(newline)
            }
            for digit in (0..<slotWidth).reversed() {
                text.append(offset < 0 ? emptySlot : hexDigits[(offset >> (4 * digit)) & 15])
            }
        }
        return (text, tableOffset, slotCount, slotWidth)
    }
}

/// Why `PublicSuffixList(parsing:)` rejected a list.
public enum PublicSuffixListError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with a rule.
    public enum Reason: Error, Equatable, Sendable, CustomStringConvertible {
        case emptyLabel
        case labelTooLong
        case nameTooLong
        case invalidCharacter
        case misplacedWildcard
        case shortException
        case punycodeOverflow

        public var description: String {
            switch self {
            case .emptyLabel: "it has an empty label"
            case .labelTooLong: "a label is longer than 63 bytes"
            case .nameTooLong: "the name is longer than 253 bytes"
            case .invalidCharacter: "a label has a character other than a-z, 0-9, \"-\" and \"_\""
            case .misplacedWildcard: "\"*\" may only be the whole leftmost label of a rule that is not an exception, before a name"
            case .shortException: "an exception rule needs at least two labels"
            case .punycodeOverflow: "a label is too long to encode as punycode"
            }
        }
    }

    /// The rule on line `line` (counted from 1), as written there, is not a valid name.
    case invalidRule(line: Int, rule: String, reason: Reason)
    /// The text has no rule, only comments and blank lines.
    case noRules

    public var description: String {
        switch self {
        case let .invalidRule(line, rule, reason): "line \(line): invalid rule \"\(rule)\": \(reason)"
        case .noRules: "the list has no rules"
        }
    }
}
