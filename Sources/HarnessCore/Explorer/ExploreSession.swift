import ProcessKit
import SiteSettings

/// A failure the explorer found: the seed whose schedule first broke a property, the options it
/// ran with, and the schedule shrunk to a scenario that breaks it the same way.
package struct Finding: Sendable {
    package let seed: UInt64
    package let options: SwarmOptions
    /// An invariant, an expectation, the run, or determinism (a replay gave another trace).
    package let property: Property
    /// The failure as the shrunk scenario reports it.
    package let message: String
    /// The power cut its runs planned (`--power-loss`), if any.
    var powerCut: PowerCutPlan?
    package let originalSteps: Int
    package let shrunk: [Step]
    /// Runs the shrinking took.
    package let shrinkRuns: Int
    /// The seed whose schedule guided search mutated into the failing one; nil for a seed's
    /// own schedule, which `--seed` alone makes again.
    var parent: UInt64?
    /// The failing schedule as it ran, before shrinking (what the seed alone no longer gives
    /// when it is a mutant).
    var schedule: [Step] = []

    /// The scenario's actions, without its setup lines.
    var shrunkActions: Int { shrunk.count(where: { !$0.isSetup }) }

    /// The name of the file the shrunk scenario is written to, in the folder the command gives;
    /// its failures name it.
    package var fileName: String { Self.fileName(seed: seed, property: property) }

    static func fileName(seed: UInt64, property: Property) -> String {
        "seed-\(seed)-\(property.description.replacing(" ", with: "-")).scenario"
    }

    /// The shrunk scenario as a file: a header saying where it came from, what broke and how
    /// to rerun it, then its steps.
    /// `extensionFolder` is the extension whose JavaScript was the background, if any.
    /// `pages`: the steps name the extension themselves (`extension DIR pages`).
    package func scenarioText(file: String, flaws: Set<Flaw>, extensionFolder: String? = nil, differential: Bool = false, pages: Bool = false) -> String {
        var rerunOptions = flaws.isEmpty ? "" : " --flaw " + flaws.map(\.rawValue).sorted().joined(separator: ",")
        if let powerCut { rerunOptions += " --transport in-process --power-loss \(powerCut)" }
        if let extensionFolder, !pages { rerunOptions += " --extension \(extensionFolder)" + (differential ? " --differential" : "") }
        let firstLine = message.split(separator: "\n").dropFirst().first.map { $0.drop { $0 == " " } } ?? Substring(message)
        let header = [
            parent.map { "Found by harness explore --search guided: seed \(seed), a mutation of seed \($0)'s schedule, \(options)." }
                ?? "Found by harness explore: seed \(seed), \(options).",
            "Breaks \(property): \(firstLine)",
            "Shrunk from \(originalSteps) steps to \(shrunk.count) in \(shrinkRuns) runs.",
            "Rerun: swift run harness run \(file)\(rerunOptions)\(powerCut == nil && extensionFolder == nil ? " (on either transport)" : "")",
        ]
        precondition(header.count == Self.headerLines, "the finding's message names its lines below a header of \(Self.headerLines)")
        return ScenarioPrinter.print(shrunk, description: header)
    }

    /// The lines of the header above a written finding's steps.
    static let headerLines = 4

    package func json(flaws: Set<Flaw>) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string("failure"), "seed": .integer(Int64(bitPattern: seed)), "options": .string(options.description),
                 "property": .string(property.description), "message": .string(message), "steps": .integer(Int64(originalSteps)),
                 "shrunkSteps": .integer(Int64(shrunk.count)), "flaws": .array(flaws.map(\.rawValue).sorted().map(JSONValue.string)),
                 "powerLoss": powerCut.map { .string($0.description) } ?? .null,
                 "scenario": .string(ScenarioPrinter.print(shrunk))]
        // A mutant is not its seed's own schedule: the line carries the schedule that failed.
        if let parent {
            members["parent"] = .integer(Int64(bitPattern: parent))
            members["schedule"] = .string(ScenarioPrinter.print(schedule))
        }
        return .object(members)
    }
}

/// Explores seed after seed: runs each, adds up coverage, checks replays when asked, and
/// shrinks the first failure of each property (later ones are counted by property).
package struct ExploreSession: Sendable {
    let explorer: Explorer
    /// When set, every schedule runs a second time with `replayer` and the traces must match.
    let replayCheck: Bool
    /// The explorer a replay runs with: the same one with each JavaScript background in a
    /// process of its own, so the replay also shows that a host's contexts behave as processes
    /// (unless a test plants a difference).
    var replayer: Explorer
    /// Every how many runs a replay also runs on the process transport (0: never).
    var processSampleEvery = 0
    package private(set) var runs = 0
    /// Of the runs, those of a schedule guided search mutated.
    package private(set) var mutants = 0
    package private(set) var steps = 0
    package private(set) var coverage = Coverage()
    package private(set) var failures: [Finding] = []
    /// How many seeds broke each property, and the first that did.
    package private(set) var broken: [Property: (seeds: Int, first: UInt64)] = [:]
    /// Schedules the parser refused: a fault in the generator, reported as a failure.
    package private(set) var invalid: [String] = []
    /// With `digests` set, the sum over runs of each trace's hash mixed with its seed: the same
    /// for the same seeds whatever the order, workers or shards, and different when any run's
    /// trace differs, so two builds can be shown to run the same schedules the same way.
    package var digests = false
    package private(set) var digest: UInt64 = 0
    /// With `signatures` set, each run's `CoverageSignature` is made, and `features` holds
    /// every feature the runs reached.
    package var signatures = false
    package private(set) var features: Set<UInt64> = []
    /// Whether a failure is shrunk; when not, its finding holds the whole schedule (for
    /// counting how soon a search finds something, not for reading).
    var shrinking = true
    /// The corpus of a guided search, once it ran (`GuidedSearch`).
    package var corpus: Corpus?
    /// When set, a failing run counts only if its schedule passes with no flaw on (the failure
    /// is the flaws'); one that fails without them too is counted in `unflawed` and not shrunk.
    var flawsOnly = false
    private(set) var unflawed = 0

    init(explorer: Explorer, replayCheck: Bool = false) {
        self.explorer = explorer
        self.replayCheck = replayCheck
        replayer = explorer
        replayer.executables = explorer.executables.isolated
    }

    /// Adds another session's runs to this one (workers of one exploration): counts and
    /// coverage add up, and each property keeps the finding of the lowest seed.
    mutating func absorb(_ other: ExploreSession) {
        runs += other.runs
        mutants += other.mutants
        unflawed += other.unflawed
        steps += other.steps
        digest &+= other.digest
        features.formUnion(other.features)
        coverage.add(other.coverage)
        invalid += other.invalid
        for (property, seen) in other.broken {
            let known = broken[property]
            broken[property] = ((known?.seeds ?? 0) + seen.seeds, min(known?.first ?? seen.first, seen.first))
        }
        for finding in other.failures {
            if let index = failures.firstIndex(where: { $0.property == finding.property }) {
                if finding.seed < failures[index].seed { failures[index] = finding }
            } else {
                failures.append(finding)
            }
        }
        failures.sort { $0.seed < $1.seed }
    }

    /// The seed of run `run` (from 0) of shard `index` of `count`: shards take every `count`th
    /// seed from `first`, so together they run the seeds one unsharded run would.
    package static func seed(run: Int, from first: UInt64, shard: (index: Int, count: Int)) -> UInt64 {
        first &+ UInt64(run * shard.count + shard.index - 1)
    }

    /// The schedule guided search gives a seed: the seed's own swarm schedule (no parent), or
    /// a mutant of the schedule of `parent`, with the options of the swarm schedule it
    /// descends from.
    struct Planned: Sendable {
        let seed: UInt64
        let options: SwarmOptions
        let steps: [Step]
        let parent: UInt64?

        init(seed: UInt64, options: SwarmOptions, steps: [Step], parent: UInt64?) {
            self.seed = seed
            self.options = options
            self.steps = steps
            self.parent = parent
        }
    }

    /// Runs one seed; a finding when it broke a property no earlier seed broke.
    mutating func explore(seed: UInt64) -> Finding? {
        explore(seed: seed, planned: nil).finding
    }

    /// Runs one seed's schedule, or the one planned for it; a finding when it broke a property
    /// no earlier seed broke, and the run's signature when `signatures` is set.
    mutating func explore(seed: UInt64, planned: Planned?) -> (finding: Finding?, signature: CoverageSignature?) {
        runs += 1
        let run: Explorer.Run
        do {
            if let planned {
                run = try explorer.run(seed: seed, options: planned.options, steps: planned.steps, parent: planned.parent)
            } else {
                run = try explorer.run(seed: seed)
            }
        } catch {
            invalid.append("seed \(seed): the \(planned?.parent == nil ? "generated" : "mutated") schedule is not a valid scenario: \(error)")
            return (nil, nil)
        }
        steps += run.steps.count
        if run.parent != nil { mutants += 1 }
        if digests { digest &+= Self.digest(seed: seed, trace: run.outcome.trace) }
        coverage.add(Coverage(steps: run.steps, unreached: run.unreachedFaults, outcome: run.outcome))
        var signature: CoverageSignature?
        if signatures {
            let made = CoverageSignature(steps: run.steps, unreached: run.unreachedFaults, outcome: run.outcome)
            features.formUnion(made.features)
            signature = made
        }
        return (explored(run), signature)
    }

    private mutating func explored(_ run: Explorer.Run) -> Finding? {
        let seed = run.seed
        if let failure = run.failure {
            if flawsOnly && failsWithoutFlaws(run) {
                unflawed += 1
                return nil
            }
            return found(run, property: failure.property)
        }
        if replayCheck, let difference = replayDifference(run) {
            return note(Finding(seed: seed, options: run.options, property: .determinism, message: difference,
                                powerCut: run.powerCut, originalSteps: run.steps.count, shrunk: run.steps, shrinkRuns: 0,
                                parent: run.parent, schedule: run.steps))
        }
        return nil
    }

    private mutating func found(_ run: Explorer.Run, property: Property) -> Finding? {
        if let seen = broken[property] {
            broken[property] = (seen.seeds + 1, seen.first)
            return nil
        }
        guard shrinking else {
            return note(Finding(seed: run.seed, options: run.options, property: property, message: run.failure!.message, powerCut: run.powerCut,
                                originalSteps: run.steps.count, shrunk: run.steps, shrinkRuns: 0, parent: run.parent, schedule: run.steps))
        }
        let explorer = self.explorer.cutting(run.powerCut)
        var shrinker = Shrinker(explorer: explorer, property: property)
        var shrunk = shrinker.shrink(run.steps, unreached: run.unreachedFaults)
        // The platform said, even where it is the default: the reader need not know which that is.
        if !shrunk.contains(where: { if case .platform = $0 { true } else { false } }) { shrunk.insert(.platform(.iOS), at: 0) }
        // The shrunk scenario's own report of the property, as `harness run` will print it,
        // naming the file it is written to and its lines there, below the header.
        let outcome = try? explorer.play(shrunk, name: Finding.fileName(seed: run.seed, property: property), below: Finding.headerLines)
        let message = outcome.flatMap { outcome in zip(outcome.properties, outcome.failures).first { $0.0 == property }?.1 }
            ?? run.failure!.message
        return note(Finding(seed: run.seed, options: run.options, property: property, message: message, powerCut: run.powerCut,
                            originalSteps: run.steps.count, shrunk: shrunk, shrinkRuns: shrinker.tries, parent: run.parent, schedule: run.steps))
    }

    /// Whether the run's schedule fails with no flaw on as well.
    private func failsWithoutFlaws(_ run: Explorer.Run) -> Bool {
        var correct = explorer.cutting(run.powerCut)
        correct.flaws = []
        guard let outcome = try? correct.play(run.steps, name: "seed-\(run.seed)", exploring: true) else { return true }
        return !outcome.passed
    }

    private mutating func note(_ finding: Finding) -> Finding {
        broken[finding.property] = (1, finding.seed)
        failures.append(finding)
        return finding
    }

    /// Runs the schedule again (and on the process transport, every `processSampleEvery`
    /// runs) and describes the first difference between the traces, if any.
    private func replayDifference(_ run: Explorer.Run) -> String? {
        var replays: [(String, Explorer)] = [("a replay", replayer.cutting(run.powerCut))]
        // Real processes on a real disk cannot lose power: a run that cuts it is not sampled.
        if processSampleEvery > 0 && runs % processSampleEvery == 0 && run.powerCut == nil {
            var process = replayer
            process.transport = .process
            replays.append(("the process transport", process))
        }
        for (what, explorer) in replays {
            guard let again = try? explorer.play(run.steps, name: "seed-\(run.seed)", exploring: true) else {
                return "\(what) could not run the schedule"
            }
            if let difference = Self.firstDifference(run.outcome.trace, again.trace) {
                return "\(what) gave another trace (hash \(Self.hash(run.outcome.trace)) against \(Self.hash(again.trace))); \(difference)"
            }
        }
        return nil
    }

    /// FNV-1a over the trace's lines: the same on every machine and every run.
    static func hash(_ trace: [String]) -> String { hex(fnv(trace)) }

    private static func fnv(_ trace: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in trace {
            for byte in line.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 10) &* 0x100_0000_01b3
        }
        return hash
    }

    /// One run's part of `digest`: its trace's hash, mixed with its seed so that two runs
    /// trading traces change the sum.
    static func digest(seed: UInt64, trace: [String]) -> UInt64 { fnv(trace) &* (2 &* seed &+ 1) }

    /// Sixteen hex digits.
    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Where two traces part, with the lines around it from each.
    static func firstDifference(_ a: [String], _ b: [String]) -> String? {
        guard a != b else { return nil }
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let first = a[max(0, index - 2)..<min(a.count, index + 3)].map { "    " + $0 }.joined(separator: "\n")
        let second = b[max(0, index - 2)..<min(b.count, index + 3)].map { "    " + $0 }.joined(separator: "\n")
        return "the traces part at line \(index + 1):\n  first run:\n\(first)\n  replay:\n\(second)"
    }

    /// The summary line of a run of the session, for `--json`.
    package func summaryJSON(seconds: Double, shard: (index: Int, count: Int), seed: UInt64) -> JSONValue {
        var summary: [String: JSONValue] = [
            "type": .string("summary"), "seed": .integer(Int64(bitPattern: seed)),
            "shard": .string("\(shard.index)/\(shard.count)"), "runs": .integer(Int64(runs)), "steps": .integer(Int64(steps)),
            "seconds": .double(seconds), "failures": .integer(Int64(failures.count + invalid.count)),
            "broken": .object(Dictionary(uniqueKeysWithValues: broken.map { ($0.key.description, $0.value) }).mapValues { .object(["seeds": .integer(Int64($0.seeds)), "first": .integer(Int64(bitPattern: $0.first))]) }),
            "coverage": .object(Coverage.keys.reduce(into: [:]) { $0[$1] = .integer(Int64(coverage.counts[$1] ?? 0)) }),
        ]
        if digests { summary["traceDigest"] = .string(Self.hex(digest)) }
        if signatures { summary["features"] = .integer(Int64(features.count)) }
        if let corpus {
            summary["search"] = .string(Search.guided.rawValue)
            summary["corpus"] = .integer(Int64(corpus.entries.count))
        }
        return .object(summary)
    }
}
