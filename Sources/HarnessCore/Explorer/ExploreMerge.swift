import SiteSettings

/// Adds up what shards of `harness explore` wrote with `--json`: runs, steps, coverage and the
/// properties broken (seeds summed, the lowest first seed kept), and lists every failure. Shards
/// merged equal the unsharded run, whatever order they come in.
package struct ExploreMerge: Equatable {
    private(set) var shards = 0
    private(set) var runs = 0
    private(set) var steps = 0
    private(set) var coverage = Coverage()
    private(set) var broken: [String: Pair] = [:]
    /// Failure lines by property: the one of the lowest seed.
    package private(set) var failures: [String: (seed: Int64, line: String)] = [:]
    /// The shards' trace digests added up, when every shard wrote one (`--digest`).
    private(set) var digest: UInt64?
    private var undigested = 0

    struct Pair: Equatable {
        var seeds: Int64
        var first: Int64
    }

    package init() {}

    package static func == (a: ExploreMerge, b: ExploreMerge) -> Bool {
        a.runs == b.runs && a.steps == b.steps && a.coverage == b.coverage && a.broken == b.broken && a.digest == b.digest
            && a.failures.mapValues(\.seed) == b.failures.mapValues(\.seed)
    }

    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// Reads one shard's JSON lines; each line that is not a failure or a summary object is an
    /// error naming the file and line.
    package mutating func add(_ text: String, file: String) throws(Problem) {
        var summaries = 0
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let place = "\(file):\(number + 1)"
            guard case .object(let object)? = try? JSONParser.parse(String(line)) else { throw Problem(description: "\(place): not a JSON object") }
            switch object["type"] {
            case .string("failure")?:
                guard case .string(let property)? = object["property"], case .integer(let seed)? = object["seed"] else {
                    throw Problem(description: "\(place): a failure needs 'property' and 'seed'")
                }
                guard Property(property) != nil else {
                    throw Problem(description: "\(place): 'property' is \"\(property.prefix(64))\", not an invariant (\"invariant 6\"), \"expectation\", \"run\" or \"determinism\"")
                }
                if let known = failures[property], known.seed <= seed { continue }
                failures[property] = (seed, String(line))
            case .string("summary")?:
                summaries += 1
                try addSummary(object, place: place)
            default:
                throw Problem(description: "\(place): 'type' is neither \"failure\" nor \"summary\"")
            }
        }
        guard summaries == 1 else { throw Problem(description: "\(file): \(summaries) summary lines (a shard writes one, last)") }
        shards += 1
    }

    private mutating func addSummary(_ object: [String: JSONValue], place: String) throws(Problem) {
        guard case .integer(let runs)? = object["runs"], case .integer(let steps)? = object["steps"],
              case .object(let counts)? = object["coverage"], case .object(let broken)? = object["broken"] else {
            throw Problem(description: "\(place): a summary needs 'runs', 'steps', 'coverage' and 'broken'")
        }
        self.runs += Int(runs)
        self.steps += Int(steps)
        switch object["traceDigest"] {
        case .string(let text)?:
            guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else {
                throw Problem(description: "\(place): 'traceDigest' is not 16 hex digits")
            }
            digest = (digest ?? 0) &+ value
        case nil, .null?: undigested += 1
        default: throw Problem(description: "\(place): 'traceDigest' is not 16 hex digits")
        }
        var added: [String: Int] = [:]
        for (key, value) in counts {
            guard case .integer(let count) = value else { throw Problem(description: "\(place): coverage[\"\(key)\"] is not a whole number") }
            added[key] = Int(count)
        }
        coverage.add(Coverage(counts: added))
        for (property, value) in broken {
            guard case .object(let pair) = value, case .integer(let seeds)? = pair["seeds"], case .integer(let first)? = pair["first"] else {
                throw Problem(description: "\(place): broken[\"\(property)\"] needs 'seeds' and 'first'")
            }
            let known = self.broken[property]
            self.broken[property] = Pair(seeds: (known?.seeds ?? 0) + seeds, first: min(known?.first ?? first, first))
        }
    }

    /// What the shards found together.
    package var report: String {
        var text = "\(shards) shards, \(runs) runs, \(steps) steps; \(broken.count) properties broken\n"
        for (property, pair) in broken.sorted(by: { $0.key < $1.key }) {
            text += "  \(property): \(pair.seeds) seed(s), first \(pair.first)\n"
        }
        let unreached = coverage.unreached
        text += unreached.isEmpty ? "every coverage counter reached\n" : "unreached: \(unreached.joined(separator: ", "))\n"
        if let digest {
            text += undigested == 0 ? "trace digest \(ExploreSession.hex(digest))\n" : "trace digest: \(undigested) shard(s) wrote none\n"
        }
        return text
    }
}
