import ProcessKit
import SiteSettings

/// Where a run's steps and failures fall in its trace, and what the shared document's and the
/// cache's revisions were after each step: what the run's page needs beside the trace itself.
/// None of it is part of the trace, so traces stay comparable between transports and runs.
package struct RunMarks: Sendable {
    /// A step began when the trace had `traceIndex` lines, at virtual time `at`.
    package struct Step: Sendable, Equatable {
        var line: Int
        var traceIndex: Int
        var at: EpochMillis
    }

    /// A failed expectation or broken invariant, reported on step `line` (whose text is
    /// `step`), or once the run was healed after its last step.
    package struct Failure: Sendable, Equatable {
        package var line: Int
        package var step: String
        package var property: Property
        package var message: String
        package var afterHealing: Bool
        var traceIndex: Int
        var at: EpochMillis
    }

    /// The files as they were after a step (nil: absent or unreadable).
    struct Revisions: Sendable, Equatable {
        var traceIndex: Int
        var at: EpochMillis
        var shared: Int?
        /// The front profile's cache: the revision of the document it holds, and how many
        /// changes wait in its outbox.
        var profile: String
        var cache: Int?
        var outbox: Int
    }

    /// The Safari profile in front at the start.
    var profile = Simulation.defaultProfile
    var steps: [Step] = []
    package var failures: [Failure] = []
    var revisions: [Revisions] = []

    init() {}

    static func revisions(of simulation: Simulation) -> Revisions {
        let shared = simulation.files.containerFile(FileContainer.documentName).flatMap { try? DocumentCodec.decode($0).document }
        let local = simulation.storedLocal
        return Revisions(traceIndex: simulation.trace.count, at: simulation.now, shared: shared.map { Int($0.revision) },
                         profile: simulation.profile, cache: local?.cache.map { Int($0.revision) }, outbox: local?.outbox.count ?? 0)
    }
}
