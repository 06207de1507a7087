import SiteSettings
import Testing

/// The memo behind decoding: a result is computed once per distinct bytes it still holds, the
/// oldest is replaced when it is full, and decoding through it gives what decoding afresh does.
struct MemoTests {
    /// A counter the memo's computations add to.
    final class Calls: @unchecked Sendable { var count = 0 }

    @Test func aResultIsComputedOncePerBytesItHolds() {
        let memo = Memo<[UInt8], Int>(capacity: 2)
        let calls = Calls()
        func length(_ bytes: [UInt8]) -> Int { memo.value(for: bytes) { calls.count += 1; return $0.count } }
        #expect(length([1, 2, 3]) == 3)
        #expect(length([1, 2, 3]) == 3)
        #expect(calls.count == 1, "the same bytes again are not computed again")
        #expect(length([4]) == 1)
        #expect(calls.count == 2)
        // Full: a third string replaces the oldest, which is then computed again.
        #expect(length([5, 6]) == 2)
        #expect(length([4]) == 1)
        #expect(calls.count == 3, "[4] is still held")
        #expect(length([1, 2, 3]) == 3)
        #expect(calls.count == 4, "[1, 2, 3] was replaced")
    }

    /// When full, the result used longest ago gives way.
    @Test func theResultUsedLongestAgoIsReplaced() {
        let memo = Memo<[UInt8], Int>(capacity: 2)
        let calls = Calls()
        func length(_ bytes: [UInt8]) -> Int { memo.value(for: bytes) { calls.count += 1; return $0.count } }
        _ = length([1])
        _ = length([2, 2])
        _ = length([1])
        _ = length([3, 3, 3])
        #expect(calls.count == 3)
        _ = length([1])
        #expect(calls.count == 3, "[1] was used last before [3, 3, 3] came")
        _ = length([2, 2])
        #expect(calls.count == 4, "[2, 2] gave way")
    }

    @Test func equalBytesInAnotherArrayFindTheResult() {
        let memo = Memo<[UInt8], Int>(capacity: 4)
        let calls = Calls()
        _ = memo.value(for: Array("abc".utf8)) { calls.count += 1; return $0.count }
        _ = memo.value(for: [0x61, 0x62, 0x63]) { calls.count += 1; return $0.count }
        _ = memo.value(for: [0x61, 0x62, 0x64]) { calls.count += 1; return $0.count }
        #expect(calls.count == 2)
    }

    /// Decoding the same bytes twice, or bytes that are refused twice, gives the same answer as
    /// the first time: the document and its notes, or the same error.
    @Test func decodingTheSameBytesAgainGivesTheSameAnswer() throws {
        let text = #"{"schemaVersion":1,"revision":4,"defaults":{"mode":"on"},"sites":{"Example.COM":{"theme":"dark"}}}"#
        let first = try DocumentCodec.decode(Array(text.utf8))
        let again = try DocumentCodec.decode(Array(text.utf8))
        #expect(again.document == first.document)
        #expect(again.notes == first.notes)
        #expect(first.document.revision == 4)
        let bad = Array(#"{"schemaVersion":1,"revision":-2}"#.utf8)
        let error = #expect(throws: DocumentError.self) { try DocumentCodec.decode(bad) }
        let errorAgain = #expect(throws: DocumentError.self) { try DocumentCodec.decode(bad) }
        #expect(error == errorAgain)
    }

    /// A copy has the same bits; an equal value built apart, or a canonically equal string
    /// written with other code points, does not.
    @Test func sameBitsTellsCopiesOnly() {
        let value = JSONValue.object(["site": .string("caf\u{E9}.example"), "n": .integer(3)])
        let copy = value
        #expect(sameBits(value, copy))
        let decomposed = JSONValue.object(["site": .string("cafe\u{301}.example"), "n": .integer(3)])
        #expect(value == decomposed, "Swift strings compare by canonical equivalence")
        #expect(!sameBits(value, decomposed))
        #expect(!sameBits([1, 2, 3] as [UInt8], Array([1, 2, 3] as [UInt8]).map { $0 }))
    }

    /// JSON read once is not mistaken for JSON equal to it only by canonical equivalence: each
    /// reads as it would the first time (as its bytes read).
    @Test func documentsEqualOnlyByCanonicalEquivalenceReadApart() throws {
        func document(_ host: String) -> JSONValue {
            .object(["schemaVersion": .integer(1), "revision": .integer(2), "defaults": .object([:]),
                     "sites": .object([host: .object(["theme": .string("dark")])])])
        }
        for (first, second) in [("caf\u{E9}.example", "cafe\u{301}.example"), ("cafe\u{301}.example", "caf\u{E9}.example")] {
            _ = try? DocumentCodec.decode(document(first))
            let fromJSON = Result { () throws(DocumentError) in try DocumentCodec.decode(document(second)).document }
            let fromBytes = Result { () throws(DocumentError) in try DocumentCodec.decode(JSONWriter.compact(document(second))).document }
            #expect(fromJSON == fromBytes, "\(second)")
        }
    }

    /// Bytes written by `compactRemembered` read back as the very value they were written
    /// from, not parsed again; any other bytes are parsed, and refused as parsing refuses them.
    @Test func writtenJSONReadsBackAsTheValueItWasWrittenFrom() throws {
        let value = JSONValue.object(["written": .array([.string("by this process"), .integer(7)])])
        let bytes = JSONWriter.compactRemembered(value)
        #expect(sameBits(try JSONParser.parseWritten(bytes), value), "the remembered value itself")
        #expect(!sameBits(try JSONParser.parse(bytes), value), "a parse builds a value apart")
        let other = Array(#"{"written":["elsewhere",7]}"#.utf8)
        #expect(try JSONParser.parseWritten(other) == .object(["written": .array([.string("elsewhere"), .integer(7)])]))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parseWritten(Array(#"{"written":"#.utf8)) }
    }
}
