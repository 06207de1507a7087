/// A failure a scenario shows on purpose (`expect-failure`): a known bug it pins down. A run
/// with such lines passes only when each marked failure happens and nothing else fails; a
/// marked failure that no longer happens fails the run, so a fix is noticed.
enum KnownFailure: Equatable, Sendable, CustomStringConvertible {
    /// `expect-failure EXPECTATION` on line N: that expectation fails.
    case line(Int)
    /// `expect-failure invariant N`: the run breaks invariant N (at any step, or after healing).
    case invariant(Int)

    /// The invariants a scenario can name (README, "Invariants").
    static let invariants = 1...18

    var description: String {
        switch self {
        case .line(let number): "line \(number)"
        case .invariant(let number): "invariant \(number)"
        }
    }

    func matches(_ failure: RunMarks.Failure) -> Bool {
        switch self {
        case .line(let number): failure.property == .expectation && failure.line == number
        case .invariant(let number): failure.property == .invariant(number)
        }
    }
}
