/// The schedules of a guided search that reached something no earlier run had (a feature of
/// `CoverageSignature` seen first), in the order they ran, and every feature seen so far. New
/// schedules are mutations of these. Runs are offered in seed order, so the same runs give the
/// same corpus however many threads ran them.
package struct Corpus: Sendable {
    package struct Entry: Sendable {
        /// The seed of the run that played this schedule.
        let seed: UInt64
        /// The options of the swarm schedule it descends from (its platform, its power cut).
        let options: SwarmOptions
        let steps: [Step]
        /// How many features it reached first.
        let news: Int
    }

    package private(set) var entries: [Entry] = []
    private(set) var features: Set<UInt64> = []

    init() {}

    var isEmpty: Bool { entries.isEmpty }

    /// Keeps the schedule when its run reached a feature not seen before; whether it did.
    @discardableResult
    mutating func offer(seed: UInt64, options: SwarmOptions, steps: [Step], signature: CoverageSignature) -> Bool {
        var news = 0
        for feature in signature.features where features.insert(feature).inserted { news += 1 }
        guard news > 0 else { return false }
        entries.append(Entry(seed: seed, options: options, steps: steps, news: news))
        return true
    }
}
