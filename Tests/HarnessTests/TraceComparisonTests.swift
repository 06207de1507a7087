import Testing

struct TraceComparisonTests {
    @Test func equalTracesHaveNoDifference() {
        #expect(TraceComparison.firstDifference(["a", "b"], ["a", "b"], names: ("x", "y")) == nil)
    }

    @Test func theFirstDifferingLineIsShownWithWhatCameBefore() throws {
        let left = (1...12).map { "line \($0)" }
        var right = left
        right[9] = "line ten"
        let text = try #require(TraceComparison.firstDifference(left, right, names: ("process", "in-process"), before: 2, after: 2))
        #expect(text == """
            the traces differ from line 10 (process: 12 lines, in-process: 12 lines)
              both, before it:
                line 8
                line 9
              process, from line 10:
                line 10
                line 11
              in-process, from line 10:
                line ten
                line 11

            """)
    }

    @Test func aTraceThatEndsEarlierDiffersWhereItEnds() throws {
        let text = try #require(TraceComparison.firstDifference(["a", "b", "c"], ["a", "b"], names: ("x", "y"), before: 1, after: 1))
        #expect(text.hasPrefix("the traces differ from line 3 (x: 3 lines, y: 2 lines)\n  both, before it:\n    b\n"))
        #expect(text.hasSuffix("  x, from line 3:\n    c\n  y, from line 3:\n    (the trace ends)\n"))
    }
}
