import SiteSettings
import Testing

/// A sample string of RFC 3492 section 7.1: its code points and its encoding as printed there.
struct PunycodeSample: CustomTestStringConvertible, Sendable {
    let name: String
    let codePoints: String
    let encoded: String

    var testDescription: String { name }

    var scalars: [Unicode.Scalar] {
        codePoints.split(separator: " ").map { Unicode.Scalar(UInt32($0, radix: 16)!)! }
    }

    /// The RFC prints some digits in upper case as mixed-case annotations (appendix A);
    /// the encoder writes every digit after the last delimiter in lower case.
    var lowercaseDigits: String { withDigits { $0.lowercased() } }

    var uppercaseDigits: String { withDigits { $0.uppercased() } }

    private func withDigits(_ transform: (Substring) -> String) -> String {
        guard let delimiter = encoded.lastIndex(of: "-") else { return transform(encoded[...]) }
        return String(encoded[...delimiter]) + transform(encoded[encoded.index(after: delimiter)...])
    }
}

let rfc3492Samples: [PunycodeSample] = [
    PunycodeSample(
        name: "(A) Arabic (Egyptian)",
        codePoints: "0644 064A 0647 0645 0627 0628 062A 0643 0644 0645 0648 0634 0639 0631 0628 064A 061F",
        encoded: "egbpdaj6bu4bxfgehfvwxn"),
    PunycodeSample(
        name: "(B) Chinese (simplified)",
        codePoints: "4ED6 4EEC 4E3A 4EC0 4E48 4E0D 8BF4 4E2D 6587",
        encoded: "ihqwcrb4cv8a8dqg056pqjye"),
    PunycodeSample(
        name: "(C) Chinese (traditional)",
        codePoints: "4ED6 5011 7232 4EC0 9EBD 4E0D 8AAA 4E2D 6587",
        encoded: "ihqwctvzc91f659drss3x8bo0yb"),
    PunycodeSample(
        name: "(D) Czech",
        codePoints: """
            0050 0072 006F 010D 0070 0072 006F 0073 0074 011B 006E 0065 006D 006C 0075 0076 00ED 010D \
            0065 0073 006B 0079
            """,
        encoded: "Proprostnemluvesky-uyb24dma41a"),
    PunycodeSample(
        name: "(E) Hebrew",
        codePoints: """
            05DC 05DE 05D4 05D4 05DD 05E4 05E9 05D5 05D8 05DC 05D0 05DE 05D3 05D1 05E8 05D9 05DD 05E2 \
            05D1 05E8 05D9 05EA
            """,
        encoded: "4dbcagdahymbxekheh6e0a7fei0b"),
    PunycodeSample(
        name: "(F) Hindi (Devanagari)",
        codePoints: """
            092F 0939 0932 094B 0917 0939 093F 0928 094D 0926 0940 0915 094D 092F 094B 0902 0928 0939 \
            0940 0902 092C 094B 0932 0938 0915 0924 0947 0939 0948 0902
            """,
        encoded: "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd"),
    PunycodeSample(
        name: "(G) Japanese (kanji and hiragana)",
        codePoints: """
            306A 305C 307F 3093 306A 65E5 672C 8A9E 3092 8A71 3057 3066 304F 308C 306A 3044 306E 304B
            """,
        encoded: "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa"),
    PunycodeSample(
        name: "(H) Korean (Hangul syllables)",
        codePoints: """
            C138 ACC4 C758 BAA8 B4E0 C0AC B78C B4E4 C774 D55C AD6D C5B4 B97C C774 D574 D55C B2E4 BA74 \
            C5BC B9C8 B098 C88B C744 AE4C
            """,
        encoded: "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6fea98c"),
    PunycodeSample(
        name: "(I) Russian (Cyrillic)",
        codePoints: """
            043F 043E 0447 0435 043C 0443 0436 0435 043E 043D 0438 043D 0435 0433 043E 0432 043E 0440 \
            044F 0442 043F 043E 0440 0443 0441 0441 043A 0438
            """,
        encoded: "b1abfaaepdrnnbgefbaDotcwatmq2g4l"),
    PunycodeSample(
        name: "(J) Spanish",
        codePoints: """
            0050 006F 0072 0071 0075 00E9 006E 006F 0070 0075 0065 0064 0065 006E 0073 0069 006D 0070 \
            006C 0065 006D 0065 006E 0074 0065 0068 0061 0062 006C 0061 0072 0065 006E 0045 0073 0070 \
            0061 00F1 006F 006C
            """,
        encoded: "PorqunopuedensimplementehablarenEspaol-fmd56a"),
    PunycodeSample(
        name: "(K) Vietnamese",
        codePoints: """
            0054 1EA1 0069 0073 0061 006F 0068 1ECD 006B 0068 00F4 006E 0067 0074 0068 1EC3 0063 0068 \
            1EC9 006E 00F3 0069 0074 0069 1EBF 006E 0067 0056 0069 1EC7 0074
            """,
        encoded: "TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g"),
    PunycodeSample(
        name: "(L) 3<nen>B<gumi><kinpachi><sensei>",
        codePoints: "0033 5E74 0042 7D44 91D1 516B 5148 751F",
        encoded: "3B-ww4c5e180e575a65lsy2b"),
    PunycodeSample(
        name: "(M) <amuro><namie>-with-SUPER-MONKEYS",
        codePoints: """
            5B89 5BA4 5948 7F8E 6075 002D 0077 0069 0074 0068 002D 0053 0055 0050 0045 0052 002D 004D \
            004F 004E 004B 0045 0059 0053
            """,
        encoded: "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"),
    PunycodeSample(
        name: "(N) Hello-Another-Way-<sorezore><no><basho>",
        codePoints: """
            0048 0065 006C 006C 006F 002D 0041 006E 006F 0074 0068 0065 0072 002D 0057 0061 0079 002D \
            305D 308C 305E 308C 306E 5834 6240
            """,
        encoded: "Hello-Another-Way--fc4qua05auwb3674vfr0b"),
    PunycodeSample(
        name: "(O) <hitotsu><yane><no><shita>2",
        codePoints: "3072 3068 3064 5C4B 6839 306E 4E0B 0032",
        encoded: "2-u9tlzr9756bt3uc0v"),
    PunycodeSample(
        name: "(P) Maji<de>Koi<suru>5<byou><mae>",
        codePoints: "004D 0061 006A 0069 3067 004B 006F 0069 3059 308B 0035 79D2 524D",
        encoded: "MajiKoi5-783gue6qz075azm5e"),
    PunycodeSample(
        name: "(Q) <pafii>de<runba>",
        codePoints: "30D1 30D5 30A3 30FC 0064 0065 30EB 30F3 30D0",
        encoded: "de-jg4avhby1noc0d"),
    PunycodeSample(
        name: "(R) <sono><supiido><de>",
        codePoints: "305D 306E 30B9 30D4 30FC 30C9 3067",
        encoded: "d9juau41awczczp"),
    PunycodeSample(
        name: "(S) -> $1.00 <-",
        codePoints: "002D 003E 0020 0024 0031 002E 0030 0030 0020 003C 002D",
        encoded: "-> $1.00 <--"),
]

@Suite struct PunycodeTests {
    @Test(arguments: rfc3492Samples)
    func encodesRFCSample(_ sample: PunycodeSample) {
        #expect(Punycode.encode(sample.scalars) == sample.lowercaseDigits)
    }

    @Test(arguments: rfc3492Samples)
    func decodesRFCSample(_ sample: PunycodeSample) {
        #expect(Punycode.decode(sample.encoded[...]) == sample.scalars)
        #expect(Punycode.decode(sample.lowercaseDigits[...]) == sample.scalars)
        #expect(Punycode.decode(sample.uppercaseDigits[...]) == sample.scalars)
    }

    @Test func russianSampleDiffersFromTheRFCOnlyInCase() throws {
        let russian = try #require(rfc3492Samples.first { $0.name.hasPrefix("(I)") })
        let encoded = try #require(Punycode.encode(russian.scalars))
        #expect(encoded != russian.encoded)
        #expect(encoded == russian.encoded.lowercased())
    }

    @Test(arguments: [
        ("empty", "", ""),
        ("basic only", "abc", "abc-"),
        ("single non-basic", "ü", "tda"),
        ("bücher", "bücher", "bcher-kva"),
        ("maximum scalar", "\u{10FFFF}", "dn32g"),
    ])
    func roundTrips(_ name: String, _ text: String, _ encoded: String) {
        let scalars = Array(text.unicodeScalars)
        #expect(Punycode.encode(scalars) == encoded, "\(name)")
        #expect(Punycode.decode(encoded[...]) == scalars, "\(name)")
    }

    /// RFC 3492 6.2 copies everything before the last delimiter, so a trailing `-` after
    /// basic code points is the valid encoding of those code points alone.
    @Test func decodesTrailingDelimiterAsBasicCodePoints() {
        #expect(Punycode.decode("a-") == ["a"])
        #expect(Punycode.encode(["a"]) == "a-")
    }

    @Test(arguments: [
        ("delimiter alone", "-"),
        ("delimiter first, then no digits", "-abc"),
        ("non-basic character", "ü"),
        ("non-basic character in the literal part", "ü-tda"),
        ("non-basic character in the digits", "a-ü"),
        ("character that is not a digit", "a-$"),
        ("character that is not a digit, no delimiter", "ab!"),
        ("input ends inside an integer", "b"),
        ("integer overflow", "99999999999999999999"),
        ("integer overflow after a literal part", "abc-99999999999999999999"),
        ("code point above U+10FFFF", "en32g"),
        ("surrogate U+D800", "ib9b"),
        ("surrogate U+DFFF after a literal part", "a-qo7g"),
    ])
    func rejectsInvalidInput(_ name: String, _ encoded: String) {
        #expect(Punycode.decode(encoded[...]) == nil, "\(name)")
    }

    /// Arithmetic is 32-bit (RFC 3492 6.4). After a long literal part a wrapped-around value
    /// would still decode to valid scalars, so each of these must fail on its overflow check.
    @Test(arguments: [
        ("digit times weight", String(repeating: "a", count: 4000) + "-bb000000z"),
        ("digit times weight, longer literal part", String(repeating: "a", count: 20000) + "-lw626421s"),
        ("sum of a delta", String(repeating: "a", count: 4000) + "-c5643466d"),
        ("code point", "qx902716a"),
    ])
    func rejectsOverflow(_ name: String, _ encoded: String) {
        #expect(Punycode.decode(encoded[...]) == nil, "\(name)")
    }

    @Test func encodeReturnsNilOnOverflow() {
        let manyBeforeMaximum = Array(repeating: Unicode.Scalar("a"), count: 5000) + ["\u{10FFFF}"]
        #expect(Punycode.encode(manyBeforeMaximum) == nil)
        #expect(Punycode.encode(Array(manyBeforeMaximum.dropFirst(2000))) != nil)

        // (0xFFF81 - 0x81) * 4097 fits in 32 bits; adding the 4096 steps already taken does not.
        let stepPastLimit = ["\u{80}"] + Array(repeating: Unicode.Scalar("a"), count: 4095) + ["\u{FFF81}"]
        #expect(Punycode.encode(stepPastLimit) == nil)
        #expect(Punycode.encode(stepPastLimit.dropLast() + ["\u{FFF7F}"]) != nil)
    }

    @Test func decodesASubstringInPlace() {
        let url = "https://xn--bcher-kva.example/"
        let start = url.index(url.startIndex, offsetBy: 12)
        let end = url.index(start, offsetBy: 9)
        #expect(Punycode.decode(url[start..<end]) == Array("bücher".unicodeScalars))
    }
}
