import SiteSettings
import Testing

private func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

private func compactText(_ value: JSONValue) -> String {
    String(decoding: JSONWriter.compact(value), as: UTF8.self)
}

/// The error that parsing `input` throws; the test fails if it parses.
private func parseError(_ input: [UInt8], maxDepth: Int = 128) throws -> JSONSyntaxError {
    try #require(throws: JSONSyntaxError.self) {
        try JSONParser.parse(input, maxDepth: maxDepth)
    }
}

/// Input that must be rejected, with the problem and location the parser must report.
struct RejectedInput: Sendable, CustomTestStringConvertible {
    let input: [UInt8]
    let problem: JSONSyntaxError.Problem
    let line: Int
    let column: Int
    let byteOffset: Int

    init(_ input: [UInt8], _ problem: JSONSyntaxError.Problem, line: Int = 1, column: Int, byteOffset: Int) {
        self.input = input
        self.problem = problem
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    init(_ text: String, _ problem: JSONSyntaxError.Problem, line: Int = 1, column: Int, byteOffset: Int) {
        self.init(utf8(text), problem, line: line, column: column, byteOffset: byteOffset)
    }

    var testDescription: String {
        input.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "<\(String($0, radix: 16))>" }.joined()
    }
}

private func check(_ rejected: RejectedInput) throws {
    let error = try parseError(rejected.input)
    #expect(error.problem == rejected.problem)
    #expect(error.line == rejected.line)
    #expect(error.column == rejected.column)
    #expect(error.byteOffset == rejected.byteOffset)
}

@Suite("parsing values")
struct ParsingTests {
    @Test(arguments: [
        ("0", JSONValue.integer(0)),
        ("-0", .integer(0)),
        ("-12", .integer(-12)),
        ("1e3", .double(1000)),
        ("1E+2", .double(100)),
        ("-2.5e-3", .double(-0.0025)),
        ("1.0", .double(1)),
        ("0.1", .double(0.1)),
        ("1e-400", .double(0)),
        ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("9223372036854775808", .double(9223372036854775808.0)),
        ("-9223372036854775809", .double(-9223372036854775809.0)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
    ])
    func numbers(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test(arguments: [
        (#""\u00e9""#, "é"),
        (#""\u00C9t\u00e9""#, "Été"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD83D\uDE00!""#, "😀!"),
        (#""\"\\\/""#, "\"\\/"),
        (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"),
        (#""a\u0000b""#, "a\u{0}b"),
        (#""\u0041\u0062""#, "Ab"),
        ("\"é\\n😀\"", "é\n😀"),
        ("\"plain ascii\"", "plain ascii"),
        ("\"\u{7F}\"", "\u{7F}"),
        ("\"\"", ""),
    ])
    func strings(text: String, expected: String) throws {
        #expect(try JSONParser.parse(text) == .string(expected))
    }

    @Test func literalsAndContainers() throws {
        let text = #" {"list": [true, false, null, [], {}], "n": 1} "#
        let expected = JSONValue.object([
            "list": .array([.bool(true), .bool(false), .null, .array([]), .object([:])]),
            "n": .integer(1),
        ])
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test func negativeZeroDoubleKeepsItsSign() throws {
        let value = try JSONParser.parse("-0.0")
        guard case .double(let number) = value else {
            Issue.record("expected a double, got \(value)")
            return
        }
        #expect(number == 0 && number.sign == .minus)
    }

    @Test func whitespaceIsOnlySpaceTabLineFeedCarriageReturn() throws {
        #expect(try JSONParser.parse(" \t\r\n[ 1 ,\n2 ]\r\n\t ") == .array([.integer(1), .integer(2)]))
        for other in ["\u{0C}", "\u{0B}", "\u{A0}", "\u{FEFF}", "\u{2028}"] {
            let error = try parseError(utf8(" " + other + "1"))
            #expect(error.problem == .unexpectedCharacter(other.unicodeScalars.first!, expected: .value))
        }
    }

    @Test func stringInputMatchesBytesInput() throws {
        let text = #"{"é": ["\u00e9", 1.5, -3]}"#
        #expect(try JSONParser.parse(text) == JSONParser.parse(utf8(text)))
        let error = try #require(throws: JSONSyntaxError.self) { try JSONParser.parse("[1,]") }
        #expect(error.byteOffset == 3)
    }

    @Test func nonContiguousInputIsParsedToo() throws {
        let bytes = utf8(#"{"a": [1, "x"]}"#)
        let lazy = bytes.lazy.map { $0 }
        #expect(try JSONParser.parse(lazy) == JSONParser.parse(bytes))
    }

    @Test func offsetsCountFromTheStartOfASlice() throws {
        let slice = utf8("xxxxx[1,]")[5...]
        let error = try #require(throws: JSONSyntaxError.self) { try JSONParser.parse(slice) }
        #expect(error.byteOffset == 3)
        #expect(error.column == 4)
    }

    @Test func canonicallyEquivalentKeysAreOneKey() throws {
        let error = try parseError(utf8("{\"\u{E9}\": 1, \"e\u{301}\": 2}"))
        #expect(error.problem == .duplicateKey("\u{E9}"))
        #expect(error.byteOffset == 10)
    }
}

@Suite("rejecting input")
struct RejectionTests {
    @Test(arguments: [
        RejectedInput("", .unexpectedEndOfInput(expected: .value), column: 1, byteOffset: 0),
        RejectedInput("   ", .unexpectedEndOfInput(expected: .value), column: 4, byteOffset: 3),
        RejectedInput("[1, 2", .unexpectedEndOfInput(expected: .commaOrArrayEnd), column: 6, byteOffset: 5),
        RejectedInput("[1,", .unexpectedEndOfInput(expected: .value), column: 4, byteOffset: 3),
        RejectedInput("{", .unexpectedEndOfInput(expected: .keyOrObjectEnd), column: 2, byteOffset: 1),
        RejectedInput(#"{"a""#, .unexpectedEndOfInput(expected: .colon), column: 5, byteOffset: 4),
        RejectedInput(#"{"a":"#, .unexpectedEndOfInput(expected: .value), column: 6, byteOffset: 5),
        RejectedInput(#"{"a":1"#, .unexpectedEndOfInput(expected: .commaOrObjectEnd), column: 7, byteOffset: 6),
        RejectedInput(#"{"a":1,"#, .unexpectedEndOfInput(expected: .key), column: 8, byteOffset: 7),
        RejectedInput(#""abc"#, .unexpectedEndOfInput(expected: .stringEnd), column: 5, byteOffset: 4),
        RejectedInput(#""abc\"#, .unexpectedEndOfInput(expected: .stringEnd), column: 6, byteOffset: 5),
        RejectedInput("nul", .unexpectedEndOfInput(expected: .literal("null")), column: 4, byteOffset: 3),
    ])
    func unexpectedEndOfInput(_ rejected: RejectedInput) throws {
        try check(rejected)
    }

    @Test(arguments: [
        RejectedInput("{\"a\": 1,\n  \"b\": }", .unexpectedCharacter("}", expected: .value), line: 2, column: 8, byteOffset: 16),
        RejectedInput("[1,]", .unexpectedCharacter("]", expected: .value), column: 4, byteOffset: 3),
        RejectedInput(#"{"a":1,}"#, .unexpectedCharacter("}", expected: .key), column: 8, byteOffset: 7),
        RejectedInput("{a:1}", .unexpectedCharacter("a", expected: .keyOrObjectEnd), column: 2, byteOffset: 1),
        RejectedInput("{'a':1}", .unexpectedCharacter("'", expected: .keyOrObjectEnd), column: 2, byteOffset: 1),
        RejectedInput("['a']", .unexpectedCharacter("'", expected: .value), column: 2, byteOffset: 1),
        RejectedInput(#"{"a" 1}"#, .unexpectedCharacter("1", expected: .colon), column: 6, byteOffset: 5),
        RejectedInput("[1 2]", .unexpectedCharacter("2", expected: .commaOrArrayEnd), column: 4, byteOffset: 3),
        RejectedInput(#"{"a":1 "b":2}"#, .unexpectedCharacter("\"", expected: .commaOrObjectEnd), column: 8, byteOffset: 7),
        RejectedInput("// comment\n1", .unexpectedCharacter("/", expected: .value), column: 1, byteOffset: 0),
        RejectedInput("[1, /* c */ 2]", .unexpectedCharacter("/", expected: .value), column: 5, byteOffset: 4),
        RejectedInput("NaN", .unexpectedCharacter("N", expected: .value), column: 1, byteOffset: 0),
        RejectedInput("Infinity", .unexpectedCharacter("I", expected: .value), column: 1, byteOffset: 0),
        RejectedInput("trUe", .unexpectedCharacter("U", expected: .literal("true")), column: 3, byteOffset: 2),
        RejectedInput("[\u{1}]", .unexpectedCharacter("\u{1}", expected: .value), column: 2, byteOffset: 1),
        RejectedInput("\u{201C}a\u{201D}", .unexpectedCharacter("\u{201C}", expected: .value), column: 1, byteOffset: 0),
        RejectedInput("[\"é\", x]", .unexpectedCharacter("x", expected: .value), column: 7, byteOffset: 7),
        RejectedInput("[1,\r\n2,\r\n x]", .unexpectedCharacter("x", expected: .value), line: 3, column: 2, byteOffset: 10),
        RejectedInput("[1,\r x]", .unexpectedCharacter("x", expected: .value), line: 2, column: 2, byteOffset: 5),
        RejectedInput("[\n\t\"a\",\n\t+1]", .unexpectedCharacter("+", expected: .value), line: 3, column: 2, byteOffset: 9),
        RejectedInput(".5", .unexpectedCharacter(".", expected: .value), column: 1, byteOffset: 0),
    ])
    func unexpectedCharacter(_ rejected: RejectedInput) throws {
        try check(rejected)
    }

    @Test(arguments: [
        RejectedInput([0xEF, 0xBB, 0xBF] + utf8("{}"), .byteOrderMark, column: 1, byteOffset: 0),
        RejectedInput([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00], .byteOrderMark, column: 1, byteOffset: 0),
        RejectedInput([0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D], .byteOrderMark, column: 1, byteOffset: 0),
        RejectedInput(#""a\qb""#, .invalidEscape("q"), column: 3, byteOffset: 2),
        RejectedInput(#"["\'"]"#, .invalidEscape("'"), column: 3, byteOffset: 2),
        RejectedInput(#""\x41""#, .invalidEscape("x"), column: 2, byteOffset: 1),
        RejectedInput("\"\\\u{1}\"", .invalidEscape("\u{1}"), column: 2, byteOffset: 1),
        RejectedInput("\"\\é\"", .invalidEscape("é"), column: 2, byteOffset: 1),
        RejectedInput(#""\u12G4""#, .invalidUnicodeEscape, column: 2, byteOffset: 1),
        RejectedInput(#""ab\u12""#, .invalidUnicodeEscape, column: 4, byteOffset: 3),
        RejectedInput(#""\u"#, .invalidUnicodeEscape, column: 2, byteOffset: 1),
        RejectedInput(#""\uD800""#, .loneSurrogate(0xD800), column: 2, byteOffset: 1),
        RejectedInput(#""\ud83d\u0041""#, .loneSurrogate(0xD83D), column: 2, byteOffset: 1),
        RejectedInput(#""\ud83dx""#, .loneSurrogate(0xD83D), column: 2, byteOffset: 1),
        RejectedInput(#""\uD800\uD800""#, .loneSurrogate(0xD800), column: 2, byteOffset: 1),
        RejectedInput(#"["x\uDE00"]"#, .loneSurrogate(0xDE00), column: 4, byteOffset: 3),
        RejectedInput("\"a\nb\"", .controlCharacterInString("\n"), column: 3, byteOffset: 2),
        RejectedInput("{\"k\u{0}\": 1}", .controlCharacterInString("\u{0}"), column: 4, byteOffset: 3),
        RejectedInput("\"a\\n\tb\"", .controlCharacterInString("\t"), column: 5, byteOffset: 4),
        RejectedInput("01", .invalidNumber("01"), column: 1, byteOffset: 0),
        RejectedInput("[00]", .invalidNumber("00"), column: 2, byteOffset: 1),
        RejectedInput("-01", .invalidNumber("-01"), column: 1, byteOffset: 0),
        RejectedInput("-", .invalidNumber("-"), column: 1, byteOffset: 0),
        RejectedInput("[-a]", .invalidNumber("-"), column: 2, byteOffset: 1),
        RejectedInput("-Infinity", .invalidNumber("-"), column: 1, byteOffset: 0),
        RejectedInput("1.", .invalidNumber("1."), column: 1, byteOffset: 0),
        RejectedInput("[1.e5]", .invalidNumber("1.e5"), column: 2, byteOffset: 1),
        RejectedInput("1e", .invalidNumber("1e"), column: 1, byteOffset: 0),
        RejectedInput("2E+", .invalidNumber("2E+"), column: 1, byteOffset: 0),
        RejectedInput("1e400", .numberOutOfRange("1e400"), column: 1, byteOffset: 0),
        RejectedInput("[1, -1.5e999]", .numberOutOfRange("-1.5e999"), column: 5, byteOffset: 4),
        RejectedInput(#"{"a": 1, "a": 2}"#, .duplicateKey("a"), column: 10, byteOffset: 9),
        RejectedInput("{\"x\": 1,\n \"mode\": {}, \"mode\": 2}", .duplicateKey("mode"), line: 2, column: 14, byteOffset: 22),
        RejectedInput("1 2", .trailingContent("2"), column: 3, byteOffset: 2),
        RejectedInput("{}}", .trailingContent("}"), column: 3, byteOffset: 2),
        RejectedInput("[]\n\nx", .trailingContent("x"), line: 3, column: 1, byteOffset: 4),
        RejectedInput("1.5.3", .trailingContent("."), column: 4, byteOffset: 3),
        RejectedInput("truex", .trailingContent("x"), column: 5, byteOffset: 4),
    ])
    func otherProblems(_ rejected: RejectedInput) throws {
        try check(rejected)
    }

    @Test(arguments: [
        RejectedInput([0xFF], .invalidUTF8([0xFF]), column: 1, byteOffset: 0),
        RejectedInput([0x22, 0xFF, 0x22], .invalidUTF8([0xFF]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xE2, 0x82, 0x22], .invalidUTF8([0xE2, 0x82]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xE2, 0x82], .invalidUTF8([0xE2, 0x82]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xC0, 0xAF, 0x22], .invalidUTF8([0xC0]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8([0xE0, 0x80]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8([0xED, 0xA0]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8([0xF4, 0x90]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xF0, 0x9F, 0x98, 0x41, 0x22], .invalidUTF8([0xF0, 0x9F, 0x98]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0x80, 0x22], .invalidUTF8([0x80]), column: 2, byteOffset: 1),
        RejectedInput([0x22, 0xC3, 0xA9, 0xFF, 0x22], .invalidUTF8([0xFF]), column: 3, byteOffset: 3),
        RejectedInput([0x22, 0x5C, 0x6E, 0xFF, 0x22], .invalidUTF8([0xFF]), column: 4, byteOffset: 3),
        RejectedInput([0x22, 0x5C, 0xFF, 0x22], .invalidUTF8([0xFF]), column: 3, byteOffset: 2),
        RejectedInput([0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D], .invalidUTF8([0xED, 0xA0]), column: 3, byteOffset: 2),
        RejectedInput([0x5B, 0x31, 0x2C, 0x20, 0xFF, 0x5D], .invalidUTF8([0xFF]), column: 5, byteOffset: 4),
        RejectedInput([0x31, 0x20, 0xC0, 0xAF], .invalidUTF8([0xC0]), column: 3, byteOffset: 2),
    ])
    func invalidUTF8(_ rejected: RejectedInput) throws {
        try check(rejected)
    }

    @Test(arguments: 0x00..<0x20)
    func controlCharactersMustBeEscaped(code: Int) throws {
        let raw = try parseError([0x22, 0x61, UInt8(code), 0x22])
        #expect(raw.problem == .controlCharacterInString(Unicode.Scalar(UInt8(code))))
        #expect(raw.column == 3)
        let hex = String(code, radix: 16)
        let escaped = "\"a\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "\""
        #expect(try JSONParser.parse(escaped) == .string("a" + String(Unicode.Scalar(UInt8(code)))))
    }

    @Test func duplicateKeysOnlyWithinOneObject() throws {
        let text = #"{"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 3}, {"a": 4}]}"#
        #expect(throws: Never.self) { try JSONParser.parse(text) }
        let error = try parseError(utf8(#"{"a": {"a": 1, "b": {"a": 2, "b": 3, "a": 4}}}"#))
        #expect(error.problem == .duplicateKey("a"))
        #expect(error.byteOffset == 37)
    }

    @Test func hundredThousandOpenBracketsHitTheDepthLimit() throws {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = try parseError(input)
        #expect(error.problem == .nestingTooDeep(limit: 128))
        #expect(error.line == 1)
        #expect(error.column == 129)
        #expect(error.byteOffset == 128)
    }

    @Test func hundredThousandOpenBracesHitTheDepthLimit() throws {
        let input = utf8(String(repeating: #"{"a":"#, count: 100_000))
        let error = try parseError(input)
        #expect(error.problem == .nestingTooDeep(limit: 128))
        #expect(error.byteOffset == 128 * 5)
    }

    @Test func aHighLimitDoesNotOverflowTheStack() throws {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = try parseError(input, maxDepth: 1_000_000)
        #expect(error.problem == .unexpectedEndOfInput(expected: .value))
        #expect(error.byteOffset == 100_000)
    }

    @Test(arguments: [1, 2, 128])
    func depthLimitIsInclusive(limit: Int) throws {
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONParser.parse(deepest, maxDepth: limit) }
        let tooDeep = "{\"a\":" + deepest + "}"
        let error = try parseError(utf8(tooDeep), maxDepth: limit)
        #expect(error.problem == .nestingTooDeep(limit: limit))
        #expect(error.byteOffset == 5 + limit - 1)
    }
}

@Suite("error messages")
struct MessageTests {
    @Test(arguments: [
        (JSONSyntaxError.Problem.unexpectedEndOfInput(expected: .value), "unexpected end of input, expected a value"),
        (.unexpectedEndOfInput(expected: .stringEnd), "unexpected end of input, expected '\"' to end the string"),
        (.unexpectedEndOfInput(expected: .literal("null")), "unexpected end of input, expected null"),
        (.unexpectedCharacter("}", expected: .value), "unexpected character '}', expected a value"),
        (.unexpectedCharacter("x", expected: .commaOrArrayEnd), "unexpected character 'x', expected ',' or ']'"),
        (.unexpectedCharacter("1", expected: .colon), "unexpected character '1', expected ':'"),
        (.unexpectedCharacter("a", expected: .keyOrObjectEnd), "unexpected character 'a', expected a string key or '}'"),
        (.unexpectedCharacter("]", expected: .key), "unexpected character ']', expected a string key"),
        (.unexpectedCharacter("\"", expected: .commaOrObjectEnd), "unexpected character '\"', expected ',' or '}'"),
        (.unexpectedCharacter("'", expected: .value), "unexpected character \"'\", expected a value"),
        (.unexpectedCharacter("\u{1}", expected: .value), "unexpected character U+0001, expected a value"),
        (.unexpectedCharacter("\u{A0}", expected: .value), "unexpected character U+00A0, expected a value"),
        (.unexpectedCharacter("\u{201C}", expected: .value), "unexpected character '\u{201C}' (U+201C), expected a value"),
        (.byteOrderMark, "byte order mark not allowed"),
        (.invalidEscape("q"), "invalid escape '\\q'"),
        (.invalidEscape("\u{1}"), "invalid escape, backslash followed by U+0001"),
        (.invalidUnicodeEscape, "invalid \\u escape, expected four hex digits"),
        (.loneSurrogate(0xD800), "lone surrogate \\uD800"),
        (.invalidUTF8([0xFF]), "invalid utf-8 byte 0xFF"),
        (.invalidUTF8([0xED, 0xA0]), "invalid utf-8 bytes 0xED 0xA0"),
        (.controlCharacterInString("\n"), "unescaped control character U+000A in string"),
        (.invalidNumber("01"), "invalid number 01"),
        (.numberOutOfRange("1e400"), "number out of range 1e400"),
        (.duplicateKey("mode"), "duplicate key \"mode\""),
        (.duplicateKey("a\"b\u{0}"), "duplicate key \"a\\\"b\\u0000\""),
        (.nestingTooDeep(limit: 128), "nesting deeper than 128 levels"),
        (.trailingContent("x"), "trailing content after the value, starting with 'x'"),
    ])
    func problemDescriptions(problem: JSONSyntaxError.Problem, message: String) {
        #expect(problem.description == message)
    }

    @Test func errorDescriptionNamesLineAndColumn() throws {
        let error = try parseError(utf8("{\"a\": 1,\n  \"b\": }"))
        #expect(error.description == "line 2, column 8: unexpected character '}', expected a value")
    }
}

@Suite("writing")
struct WriterTests {
    @Test(arguments: [
        ("null", "null"),
        (" true ", "true"),
        ("false", "false"),
        ("0", "0"),
        ("-0", "0"),
        ("-12", "-12"),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("9223372036854775808", "9.223372036854776e+18"),
        ("1.5", "1.5"),
        ("1e3", "1000.0"),
        ("-2.5E-3", "-0.0025"),
        ("1e-7", "1e-07"),
        ("1e300", "1e+300"),
        ("-0.0", "-0.0"),
        (#""h\u00e9llo \ud83d\ude00""#, "\"héllo 😀\""),
        (#""a\/b""#, #""a/b""#),
        (#""\u0001\b\f\n\r\t\"\\\u001f""#, #""\u0001\b\f\n\r\t\"\\\u001f""#),
        (#""\u007f""#, "\"\u{7F}\""),
        ("[1, [2, []], {}]", "[1,[2,[]],{}]"),
        (#"{"b": 1, "a": {"d": [], "c": null}}"#, #"{"a":{"c":null,"d":[]},"b":1}"#),
        ("\t\r\n [ 1 , \"x\" ] \n", #"[1,"x"]"#),
    ])
    func roundTrip(input: String, compact: String) throws {
        let value = try JSONParser.parse(input)
        let written = JSONWriter.compact(value)
        #expect(String(decoding: written, as: UTF8.self) == compact)
        #expect(try JSONParser.parse(written) == value)
        #expect(try JSONParser.parse(JSONWriter.pretty(value)) == value)
    }

    @Test func keysAreSortedByUTF8BytesWhateverTheInsertionOrder() {
        // U+212B (E2 84 AB) sorts after U+00D0 (C3 90) by bytes, but before it by `String.<`,
        // which compares its canonical form U+00C5.
        let keys = ["b", "a", "Z", "\u{E9}", "aa", "", "\u{212B}", "\u{D0}", "z", "_"]
        let expected = "{\"\":5,\"Z\":2,\"_\":9,\"a\":1,\"aa\":4,\"b\":0,\"z\":8,\"\u{D0}\":7,\"\u{E9}\":3,\"\u{212B}\":6}"
        let orders = [Array(keys.indices), Array(keys.indices.reversed()), [3, 7, 1, 9, 0, 5, 2, 8, 4, 6]]
        for (n, order) in orders.enumerated() {
            var members = [String: JSONValue](minimumCapacity: n * 500)
            for i in order { members[keys[i]] = .integer(Int64(i)) }
            #expect(JSONWriter.compact(.object(members)) == utf8(expected))
        }
    }

    @Test func nestedObjectsAreSortedToo() {
        var first = [String: JSONValue]()
        var second = [String: JSONValue](minimumCapacity: 4096)
        for i in 0..<200 {
            first["k\(i)"] = .object(["y": .integer(Int64(i)), "x": .null])
            second["k\(199 - i)"] = .object(["x": .null, "y": .integer(Int64(199 - i))])
        }
        let a = JSONWriter.compact(.object(first))
        #expect(a == JSONWriter.compact(.object(second)))
        #expect(String(decoding: a, as: UTF8.self).hasPrefix(#"{"k0":{"x":null,"y":0},"k1":{"x":null,"y":1},"k10":"#))
    }

    @Test func stringEscaping() {
        let value = JSONValue.string("a/b\u{1}\u{1F}\n\"\\é😀\u{7F}\u{2028}")
        #expect(compactText(value) == "\"a/b\\u0001\\u001f\\n\\\"\\\\é😀\u{7F}\u{2028}\"")
        #expect(compactText(.object(["k\"\n": .null])) == #"{"k\"\n":null}"#)
    }

    @Test func integersAtTheLimits() {
        #expect(compactText(.array([.integer(.min), .integer(.max), .integer(0), .integer(-7)]))
            == "[-9223372036854775808,9223372036854775807,0,-7]")
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(compactText(.array([.double(.infinity), .double(-.infinity), .double(.nan)])) == "[null,null,null]")
    }

    @Test(arguments: [
        JSONValue.null, .bool(true), .bool(false), .integer(0), .integer(9), .integer(10), .integer(-7), .integer(.min), .integer(.max),
        .double(0.5), .double(-1e300), .double(.nan), .double(-.infinity), .string(""), .string("a/b\u{1}\u{1F}\n\"\\é😀\u{7F}\u{2028}\u{8}\u{C}\r\t"),
        .array([]), .array([.null]), .array([.integer(1), .array([]), .object([:])]), .object([:]), .object(["k\"\n": .null]),
        .object(["b": .array([.string("x"), .integer(-12)]), "a": .object(["é": .bool(false), "": .double(2.25)])]),
    ])
    func compactCountIsTheLengthOfTheCompactForm(_ value: JSONValue) {
        #expect(JSONWriter.compactCount(value) == JSONWriter.compact(value).count)
    }

    @Test(arguments: [
        (JSONValue.integer(1), "1\n"),
        (.string("s"), "\"s\"\n"),
        (.array([]), "[]\n"),
        (.object([:]), "{}\n"),
        (.array([.integer(1), .null]), "[\n  1,\n  null\n]\n"),
        (
            .object([
                "d": .null,
                "b": .array([.integer(1), .object(["c": .string("x")]), .array([])]),
                "a": .object([:]),
            ]),
            """
            {
              "a": {},
              "b": [
                1,
                {
                  "c": "x"
                },
                []
              ],
              "d": null
            }

            """
        ),
    ])
    func prettyLayout(value: JSONValue, expected: String) {
        #expect(JSONWriter.pretty(value) == expected)
    }
}

@Suite("paths")
struct PathTests {
    @Test(arguments: [
        (JSONPath.root, "document"),
        (.root.key("mode"), "mode"),
        (.root.key("defaults").key("mode"), "defaults.mode"),
        (.root.key("sites").key("docs.example.com").key("theme"), #"sites["docs.example.com"].theme"#),
        (.root.key("docs.example.com"), #"["docs.example.com"]"#),
        (.root.key("list").index(3), "list[3]"),
        (.root.index(0).key("a").index(1).index(2), "[0].a[1][2]"),
        (.root.key("a\"b\u{0}c\\"), #"["a\"b\u0000c\\"]"#),
        (.root.key("tab\there\u{7F}"), #"["tab\u0009here\u007f"]"#),
        (.root.key(""), #"[""]"#),
        (.root.key("\u{1F}\u{80}\u{9F}\u{A0}"), "[\"\\u001f\\u0080\\u009f\u{A0}\"]"),
        (.root.key("_private1").key("X_2"), "_private1.X_2"),
        (.root.key("1abc"), #"["1abc"]"#),
        (.root.key("a-b"), #"["a-b"]"#),
        (.root.key("é"), #"["é"]"#),
    ])
    func descriptions(path: JSONPath, expected: String) {
        #expect(path.description == expected)
    }

    @Test func pathsCompareByComponents() {
        #expect(JSONPath.root.key("a").index(0) == JSONPath.root.key("a").index(0))
        #expect(JSONPath.root.key("0") != JSONPath.root.index(0))
        #expect(JSONPath.root.key("a").key("b") != JSONPath.root.key("a.b"))
        let set: Set = [JSONPath.root, .root.key("a"), .root.key("a"), .root.index(1)]
        #expect(set.count == 3)
    }
}
