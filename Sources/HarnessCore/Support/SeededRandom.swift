import SiteSettings

/// A small deterministic generator (SplitMix64, as document ids use) for the harness's seeded
/// choices (fuzzing, sampling): the same seed gives the same sequence on every machine, so a
/// printed seed replays a run. The processes' state machines never use it.
struct SeededRandom: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 { DocumentID.splitMix(&state) }

    /// A number in `0..<bound` (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with probability `numerator / denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }
}
