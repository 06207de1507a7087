/// Why bytes are not JSON, and where: `line` and `column` are 1-based, with columns counted in
/// Unicode scalars (a tab is one column) and lines ended by LF, CR LF or CR; `byteOffset` is
/// 0-based. For an unexpected end of input the location is just past the last byte.
///
/// `description` reads `line 2, column 8: unexpected character '}', expected a value`.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let byteOffset: Int
    public let problem: Problem

    /// What was wrong at the error's location. Each case's `description` is a lower-case message
    /// that shows what was found: printable ASCII in quotes, other characters by their code point
    /// (`U+000A`), which follows the character itself where that is visible.
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        /// The input ended where `expected` was needed: "unexpected end of input, expected a value".
        case unexpectedEndOfInput(expected: Expected)
        /// A character that cannot start or continue anything here: "unexpected character '}',
        /// expected a value".
        case unexpectedCharacter(Unicode.Scalar, expected: Expected)
        /// The input starts with a UTF-8 or UTF-16 byte order mark: "byte order mark not allowed".
        case byteOrderMark
        /// A backslash in a string followed by something other than `" \ / b f n r t u`:
        /// "invalid escape '\q'".
        case invalidEscape(Unicode.Scalar)
        /// `\u` not followed by four hex digits: "invalid \u escape, expected four hex digits".
        case invalidUnicodeEscape
        /// A `\u` escape of a high surrogate not followed by one of a low surrogate, or of a low
        /// surrogate on its own: "lone surrogate \uD800".
        case loneSurrogate(UInt16)
        /// Bytes that are not UTF-8, up to and including the first one that makes them so (or all
        /// of a sequence cut short): "invalid utf-8 bytes 0xED 0xA0".
        case invalidUTF8([UInt8])
        /// A character below U+0020 written into a string without an escape: "unescaped control
        /// character U+000A in string".
        case controlCharacterInString(Unicode.Scalar)
        /// Text that starts like a number but does not follow the JSON grammar: "invalid number 01".
        case invalidNumber(String)
        /// A number whose value is not a finite `Double`: "number out of range 1e400".
        case numberOutOfRange(String)
        /// A key already used in the same object: "duplicate key \"mode\"".
        case duplicateKey(String)
        /// An array or object more than `limit` levels deep: "nesting deeper than 128 levels".
        case nestingTooDeep(limit: Int)
        /// Something other than whitespace after the value: "trailing content after the value,
        /// starting with 'x'".
        case trailingContent(Unicode.Scalar)

        public var description: String {
            switch self {
            case .unexpectedEndOfInput(let expected):
                return "unexpected end of input, expected \(expected)"
            case .unexpectedCharacter(let scalar, let expected):
                return "unexpected character \(shown(scalar)), expected \(expected)"
            case .byteOrderMark:
                return "byte order mark not allowed"
            case .invalidEscape(let scalar):
                if scalar.isPrintableASCII, scalar != "'" {
                    return "invalid escape '\\\(scalar)'"
                }
                return "invalid escape, backslash followed by \(shown(scalar))"
            case .invalidUnicodeEscape:
                return "invalid \\u escape, expected four hex digits"
            case .loneSurrogate(let unit):
                return "lone surrogate \\u\(hexDigits(UInt32(unit), count: 4))"
            case .invalidUTF8(let bytes):
                let listed = bytes.map { "0x" + hexDigits(UInt32($0), count: 2) }.joined(separator: " ")
                return "invalid utf-8 \(bytes.count == 1 ? "byte" : "bytes") \(listed)"
            case .controlCharacterInString(let scalar):
                return "unescaped control character \(shown(scalar)) in string"
            case .invalidNumber(let text):
                return "invalid number \(text)"
            case .numberOutOfRange(let text):
                return "number out of range \(text)"
            case .duplicateKey(let key):
                return "duplicate key \(JSONPath.quoted(key))"
            case .nestingTooDeep(let limit):
                return "nesting deeper than \(limit) levels"
            case .trailingContent(let scalar):
                return "trailing content after the value, starting with \(shown(scalar))"
            }
        }
    }

    /// What the parser was looking for when it found something else.
    public enum Expected: Equatable, Sendable, CustomStringConvertible {
        /// Any JSON value.
        case value
        /// The first key of an object, or its closing `}`.
        case keyOrObjectEnd
        /// A key after a comma in an object.
        case key
        /// The `:` after a key.
        case colon
        /// A `,` or `]` after an array element.
        case commaOrArrayEnd
        /// A `,` or `}` after an object member's value.
        case commaOrObjectEnd
        /// The rest of a `true`, `false` or `null` literal.
        case literal(String)
        /// The `"` that closes a string.
        case stringEnd

        public var description: String {
            switch self {
            case .value: return "a value"
            case .keyOrObjectEnd: return "a string key or '}'"
            case .key: return "a string key"
            case .colon: return "':'"
            case .commaOrArrayEnd: return "',' or ']'"
            case .commaOrObjectEnd: return "',' or '}'"
            case .literal(let word): return word
            case .stringEnd: return "'\"' to end the string"
            }
        }
    }

    /// Locates `byteOffset` in `bytes`, which must be valid UTF-8 before it.
    init(problem: Problem, byteOffset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        var line = 1
        var column = 1
        var i = 0
        while i < byteOffset {
            switch bytes[i] {
            case 0x0A:
                line += 1
                column = 1
            case 0x0D:
                line += 1
                column = 1
                if i + 1 < byteOffset, bytes[i + 1] == 0x0A { i += 1 }
            case 0x80...0xBF:
                break
            default:
                column += 1
            }
            i += 1
        }
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.problem = problem
    }

    public var description: String {
        "line \(line), column \(column): \(problem)"
    }
}

/// A character as messages show it: `'x'` for printable ASCII (`"'"` for the apostrophe),
/// `'“' (U+201C)` for other visible characters, and only the code point for controls,
/// whitespace, marks and other invisible characters.
private func shown(_ scalar: Unicode.Scalar) -> String {
    let code = "U+" + hexDigits(scalar.value, count: 4)
    if scalar == "'" { return "\"'\"" }
    if scalar.isPrintableASCII { return "'\(scalar)'" }
    if scalar.isASCII { return code }
    switch scalar.properties.generalCategory {
    case .control, .format, .surrogate, .privateUse, .unassigned,
         .spaceSeparator, .lineSeparator, .paragraphSeparator,
         .nonspacingMark, .spacingMark, .enclosingMark:
        return code
    default:
        return "'\(scalar)' (\(code))"
    }
}

/// `value` in upper-case hexadecimal, padded with zeros to at least `count` digits.
private func hexDigits(_ value: UInt32, count: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, count - digits.count)) + digits
}

private extension Unicode.Scalar {
    var isPrintableASCII: Bool { value >= 0x21 && value <= 0x7E }
}
