/// Reads JSON text as RFC 8259 defines it, strictly: no comments, trailing commas, single quotes,
/// leading zeros, `NaN` or `Infinity`, no byte order mark, and only valid UTF-8.
public enum JSONParser {
    /// Parses exactly one JSON value, with JSON whitespace (space, tab, line feed, carriage return)
    /// allowed around it.
    ///
    /// Arrays and objects may nest `maxDepth` levels deep; one more level is an error
    /// (`nestingTooDeep`), never a stack overflow, since parsing does not recurse. (Destroying,
    /// comparing or writing a value does recurse, so a limit far above the default lets through
    /// values that can exhaust the stack later.) Duplicate keys in one object are an error.
    /// Integers that fit `Int64` become `.integer` (`-0` becomes `.integer(0)`); every other
    /// number becomes `.double` as `Double(String)` reads it, and one that is not finite is an
    /// error. Numbers too small for a `Double` round to zero.
    ///
    /// The first error in the input is thrown; its `byteOffset` counts from the first byte of
    /// `bytes`.
    @inlinable public static func parse(
        _ bytes: some Collection<UInt8>,
        maxDepth: Int = 128
    ) throws(JSONSyntaxError) -> JSONValue {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer: buffer, maxDepth: maxDepth) }
        }
        if let contiguous {
            return try contiguous.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer: buffer, maxDepth: maxDepth) }
        }.get()
    }

    /// Parses the UTF-8 form of `text`; see `parse(_:maxDepth:)` for bytes.
    public static func parse(_ text: String, maxDepth: Int = 128) throws(JSONSyntaxError) -> JSONValue {
        try parse(text.utf8, maxDepth: maxDepth)
    }

    /// `parse(bytes)`, or, for bytes this process wrote by `JSONWriter.compactRemembered`
    /// lately, the value they were written from (which parsing them gives).
    public static func parseWritten(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        if let value = written.known(bytes) { return value }
        return try parse(bytes)
    }

    /// The texts last written by `JSONWriter.compactRemembered`, with their values.
    static let written = Memo<[UInt8], JSONValue>(capacity: 16)

    @usableFromInline static func parse(
        buffer: UnsafeBufferPointer<UInt8>,
        maxDepth: Int
    ) throws(JSONSyntaxError) -> JSONValue {
        var reader = Reader(bytes: buffer)
        return try reader.parseDocument(maxDepth: maxDepth)
    }
}

private extension UInt8 {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let digitZero = UInt8(ascii: "0")
    static let digitNine = UInt8(ascii: "9")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")

    var isDigit: Bool { self >= .digitZero && self <= .digitNine }

    var isNumberText: Bool {
        switch self {
        case .digitZero ... .digitNine, .minus, .plus, .dot, UInt8(ascii: "e"), UInt8(ascii: "E"): true
        default: false
        }
    }
}

/// One pass over a contiguous buffer. Open arrays and objects live on explicit stacks rather than
/// the call stack, so nesting depth is bounded only by `maxDepth`.
private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// Reused for strings that contain escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument(maxDepth: Int) throws(JSONSyntaxError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw error(.byteOrderMark, at: 0)
        }
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            throw error(.byteOrderMark, at: 0)
        }

        // For each open container, whether it is an object; its contents are on the matching stack.
        var openIsObject: [Bool] = []
        var openArrays: [[JSONValue]] = []
        var openObjects: [[String: JSONValue]] = []
        // The key whose value is being parsed, for each open object.
        var pendingKeys: [String] = []

        nextValue: while true {
            skipWhitespace()
            guard position < bytes.count else { throw endOfInput(expected: .value) }
            var value: JSONValue
            switch bytes[position] {
            case .openBracket:
                guard openIsObject.count < maxDepth else {
                    throw error(.nestingTooDeep(limit: maxDepth), at: position)
                }
                position += 1
                skipWhitespace()
                if position < bytes.count, bytes[position] == .closeBracket {
                    position += 1
                    value = .array([])
                } else {
                    openIsObject.append(false)
                    openArrays.append([])
                    continue nextValue
                }
            case .openBrace:
                guard openIsObject.count < maxDepth else {
                    throw error(.nestingTooDeep(limit: maxDepth), at: position)
                }
                position += 1
                skipWhitespace()
                if position < bytes.count, bytes[position] == .closeBrace {
                    position += 1
                    value = .object([:])
                } else {
                    pendingKeys.append(try parseKey(expected: .keyOrObjectEnd, notIn: [:]))
                    openIsObject.append(true)
                    openObjects.append([:])
                    continue nextValue
                }
            case .quote:
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                value = .null
            case .minus, .digitZero ... .digitNine:
                value = try parseNumber()
            default:
                throw try unexpectedCharacter(expected: .value)
            }

            // `value` is complete: store it in the innermost open container, closing containers
            // for as long as their closing bracket follows.
            while let isObject = openIsObject.last {
                skipWhitespace()
                if isObject {
                    let top = openObjects.count - 1
                    openObjects[top][pendingKeys.removeLast()] = value
                    guard position < bytes.count else { throw endOfInput(expected: .commaOrObjectEnd) }
                    switch bytes[position] {
                    case .comma:
                        position += 1
                        skipWhitespace()
                        pendingKeys.append(try parseKey(expected: .key, notIn: openObjects[top]))
                        continue nextValue
                    case .closeBrace:
                        position += 1
                        openIsObject.removeLast()
                        value = .object(openObjects.removeLast())
                    default:
                        throw try unexpectedCharacter(expected: .commaOrObjectEnd)
                    }
                } else {
                    openArrays[openArrays.count - 1].append(value)
                    guard position < bytes.count else { throw endOfInput(expected: .commaOrArrayEnd) }
                    switch bytes[position] {
                    case .comma:
                        position += 1
                        continue nextValue
                    case .closeBracket:
                        position += 1
                        openIsObject.removeLast()
                        value = .array(openArrays.removeLast())
                    default:
                        throw try unexpectedCharacter(expected: .commaOrArrayEnd)
                    }
                }
            }

            skipWhitespace()
            if position < bytes.count {
                throw error(.trailingContent(try scalar(at: position)), at: position)
            }
            return value
        }
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case .space, .lineFeed, .carriageReturn, .tab: position += 1
            default: return
            }
        }
    }

    /// Parses a key and the `:` after it; the key must not be in `members` already.
    mutating func parseKey(
        expected: JSONSyntaxError.Expected,
        notIn members: [String: JSONValue]
    ) throws(JSONSyntaxError) -> String {
        guard position < bytes.count else { throw endOfInput(expected: expected) }
        guard bytes[position] == .quote else { throw try unexpectedCharacter(expected: expected) }
        let keyStart = position
        let key = try parseString()
        if members[key] != nil {
            throw error(.duplicateKey(key), at: keyStart)
        }
        skipWhitespace()
        guard position < bytes.count else { throw endOfInput(expected: .colon) }
        guard bytes[position] == .colon else { throw try unexpectedCharacter(expected: .colon) }
        position += 1
        return key
    }

    /// Parses the string that starts at the `"` under `position`.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position + 1
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte == .quote {
                position = i + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            }
            if byte == .backslash { break }
            if byte < 0x20 { throw error(.controlCharacterInString(Unicode.Scalar(byte)), at: i) }
            i = byte < 0x80 ? i + 1 : try endOfUTF8Sequence(at: i)
        }

        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte == .quote {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                position = i + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == .backslash {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                i = try decodeEscape(at: i)
                runStart = i
                continue
            }
            if byte < 0x20 { throw error(.controlCharacterInString(Unicode.Scalar(byte)), at: i) }
            i = byte < 0x80 ? i + 1 : try endOfUTF8Sequence(at: i)
        }
        throw endOfInput(expected: .stringEnd)
    }

    /// Appends the character that the escape at `i` stands for to `scratch`, returning the index
    /// after the escape.
    mutating func decodeEscape(at i: Int) throws(JSONSyntaxError) -> Int {
        guard i + 1 < bytes.count else { throw endOfInput(expected: .stringEnd) }
        let replacement: UInt8
        switch bytes[i + 1] {
        case .quote: replacement = .quote
        case .backslash: replacement = .backslash
        case .slash: replacement = .slash
        case UInt8(ascii: "b"): replacement = 0x08
        case UInt8(ascii: "f"): replacement = 0x0C
        case UInt8(ascii: "n"): replacement = .lineFeed
        case UInt8(ascii: "r"): replacement = .carriageReturn
        case UInt8(ascii: "t"): replacement = .tab
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: i)
        default:
            throw error(.invalidEscape(try scalar(at: i + 1)), at: i)
        }
        scratch.append(replacement)
        return i + 2
    }

    /// Decodes the `\uXXXX` at `i`, and the low surrogate escape after it when it is a high one.
    mutating func decodeUnicodeEscape(at i: Int) throws(JSONSyntaxError) -> Int {
        guard let unit = hexQuad(at: i + 2) else { throw error(.invalidUnicodeEscape, at: i) }
        var scalarValue = UInt32(unit)
        var end = i + 6
        switch unit {
        case 0xD800...0xDBFF:
            guard end + 1 < bytes.count, bytes[end] == .backslash, bytes[end + 1] == UInt8(ascii: "u"),
                  let low = hexQuad(at: end + 2), (0xDC00...0xDFFF).contains(low)
            else {
                throw error(.loneSurrogate(unit), at: i)
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw error(.loneSurrogate(unit), at: i)
        default:
            break
        }
        // Never nil: surrogates were handled above.
        let scalar = Unicode.Scalar(scalarValue)!
        scratch.append(contentsOf: UTF8.encode(scalar)!)
        return end
    }

    /// The value of the four hex digits at `i`, or nil if there are not four.
    func hexQuad(at i: Int) -> UInt16? {
        guard i + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for byte in bytes[i..<i + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Checks the multi-byte UTF-8 sequence that starts at `i` (RFC 3629: no overlong forms,
    /// no surrogates, nothing above U+10FFFF) and returns the index after it.
    func endOfUTF8Sequence(at i: Int) throws(JSONSyntaxError) -> Int {
        let lead = bytes[i]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw error(.invalidUTF8([lead]), at: i)
        }
        var j = i + 1
        while j < i + length {
            guard j < bytes.count else { throw error(.invalidUTF8(Array(bytes[i..<j])), at: i) }
            let byte = bytes[j]
            let allowed = j == i + 1 ? secondRange : 0x80...0xBF
            guard allowed.contains(byte) else {
                // A continuation byte in the wrong place belongs to the bad sequence; any other
                // byte only shows that the sequence was cut short.
                let bad = (0x80...0xBF).contains(byte) ? Array(bytes[i...j]) : Array(bytes[i..<j])
                throw error(.invalidUTF8(bad), at: i)
            }
            j += 1
        }
        return j
    }

    /// The character at `i`, which must be valid UTF-8.
    func scalar(at i: Int) throws(JSONSyntaxError) -> Unicode.Scalar {
        let lead = bytes[i]
        if lead < 0x80 { return Unicode.Scalar(lead) }
        let end = try endOfUTF8Sequence(at: i)
        var value = UInt32(lead) & (0xFF >> (end - i + 1))
        for byte in bytes[(i + 1)..<end] {
            value = value << 6 | UInt32(byte & 0x3F)
        }
        // Never nil: the sequence was checked to be valid.
        return Unicode.Scalar(value)!
    }

    mutating func parseLiteral(_ word: StaticString) throws(JSONSyntaxError) {
        let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expectedByte in text {
            guard position < bytes.count else { throw endOfInput(expected: .literal(word.description)) }
            guard bytes[position] == expectedByte else {
                throw try unexpectedCharacter(expected: .literal(word.description))
            }
            position += 1
        }
    }

    /// Parses the number that starts under `position`.
    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        var i = start
        let negative = bytes[i] == .minus
        if negative { i += 1 }

        var magnitude: UInt64 = 0
        var overflow = false
        guard i < bytes.count, bytes[i].isDigit else { throw invalidNumber(at: start) }
        if bytes[i] == .digitZero {
            i += 1
            if i < bytes.count, bytes[i].isDigit { throw invalidNumber(at: start) }
        } else {
            while i < bytes.count, bytes[i].isDigit {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] - .digitZero))
                magnitude = sum
                overflow = overflow || o1 || o2
                i += 1
            }
        }

        var isInteger = true
        if i < bytes.count, bytes[i] == .dot {
            isInteger = false
            i += 1
            guard i < bytes.count, bytes[i].isDigit else { throw invalidNumber(at: start) }
            while i < bytes.count, bytes[i].isDigit { i += 1 }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == .plus || bytes[i] == .minus { i += 1 }
            guard i < bytes.count, bytes[i].isDigit else { throw invalidNumber(at: start) }
            while i < bytes.count, bytes[i].isDigit { i += 1 }
        }
        position = i

        if isInteger, !overflow {
            if !negative, magnitude <= UInt64(Int64.max) {
                return .integer(Int64(magnitude))
            }
            if negative, magnitude <= Int64.min.magnitude {
                return .integer(Int64(truncatingIfNeeded: 0 &- magnitude))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw error(.numberOutOfRange(text), at: start)
        }
        return .double(number)
    }

    /// An `invalidNumber` error showing the number-like text (digits, signs, dots, `e`) at `start`.
    func invalidNumber(at start: Int) -> JSONSyntaxError {
        var end = start
        while end < bytes.count, end - start < 40, bytes[end].isNumberText { end += 1 }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return error(.invalidNumber(text), at: start)
    }

    /// The error for the character under `position`, or for its bytes if they are not UTF-8.
    func unexpectedCharacter(expected: JSONSyntaxError.Expected) throws(JSONSyntaxError) -> JSONSyntaxError {
        error(.unexpectedCharacter(try scalar(at: position), expected: expected), at: position)
    }

    func endOfInput(expected: JSONSyntaxError.Expected) -> JSONSyntaxError {
        error(.unexpectedEndOfInput(expected: expected), at: bytes.count)
    }

    func error(_ problem: JSONSyntaxError.Problem, at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(problem: problem, byteOffset: offset, in: bytes)
    }
}
