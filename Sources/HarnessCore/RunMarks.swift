import ProcessKit
import SiteSettings

/// Where a run's steps and failures fall in its trace, and what the shared document's and the
/// cache's revisions were after each step: what the run's page needs beside the trace itself.
/// None of it is part of the trace, so traces stay comparable between transports and runs.
public struct RunMarks: Sendable {
    /// A step began when the trace had `traceIndex` lines, at virtual time `at`.
    public struct Step: Sendable, Equatable {
        public var line: Int
        public var traceIndex: Int
        public var at: EpochMillis
    }

    /// A failed expectation or broken invariant, reported on step `line` (whose text is
    /// `step`), or once the run was healed after its last step.
    public struct Failure: Sendable, Equatable {
        public var line: Int
        public var step: String
        /// `invariant 6`, `expectation` or `run`, as `ScenarioRunner.Outcome.properties`.
        public var property: String
        public var message: String
        public var afterHealing: Bool
        public var traceIndex: Int
        public var at: EpochMillis
    }

    /// The files as they were after a step (nil: absent or unreadable).
    public struct Revisions: Sendable, Equatable {
        public var traceIndex: Int
        public var at: EpochMillis
        public var shared: Int?
        /// The front profile's cache: the revision of the document it holds, and how many
        /// changes wait in its outbox.
        public var profile: String
        public var cache: Int?
        public var outbox: Int
    }

    /// The Safari profile in front at the start.
    public var profile = Simulation.defaultProfile
    public var steps: [Step] = []
    public var failures: [Failure] = []
    public var revisions: [Revisions] = []

    public init() {}

    static func revisions(of simulation: Simulation) -> Revisions {
        let shared = simulation.containerFile(FileContainer.documentName).flatMap { try? DocumentCodec.decode($0).document }
        let local = simulation.storedLocal
        return Revisions(traceIndex: simulation.trace.count, at: simulation.now, shared: shared.map { Int($0.revision) },
                         profile: simulation.profile, cache: local?.cache.map { Int($0.revision) }, outbox: local?.outbox.count ?? 0)
    }
}
