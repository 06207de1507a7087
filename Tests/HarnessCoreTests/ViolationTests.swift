@testable import HarnessCore
import Testing

/// What a run broke, as a value: the property names itself as reports and file names write
/// it, reads back from that text, and an invariant's number follows its message.
struct ViolationTests {
    @Test func aPropertyReadsBackFromItsName() {
        for property in [Property.invariant(1), .invariant(12), .expectation, .run, .determinism] {
            #expect(Property(property.description) == property)
        }
        for text in ["invariant", "invariant 0", "invariant six", "Invariant 6", "expectations", ""] {
            #expect(Property(text) == nil, "\(text)")
        }
        // Invariants sort by number, not as text.
        #expect([Property.run, .invariant(10), .invariant(2)].sorted() == [.invariant(2), .invariant(10), .run])
    }

    @Test func anInvariantsNumberFollowsItsMessage() {
        #expect(Violation(.invariant(6), "tab t1 had no decision").description == "tab t1 had no decision (invariant 6)")
        #expect(Violation(.run, "virtual time ran backwards").description == "virtual time ran backwards")
    }
}
