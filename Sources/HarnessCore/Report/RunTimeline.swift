import ProcessKit
import SiteSettings

/// A run told as lanes over time, read from its trace: what the run's page draws. Every moment
/// is a trace line's index, so events at one virtual instant keep their order; `TimeAxis`
/// turns indices into positions.
struct RunTimeline: Sendable {
    /// One incarnation of a process (`background#2`): when it lived, and how it ended.
    struct ProcessLane: Sendable {
        enum Kind: String, Sendable { case app, background, handler }
        enum End: Sendable, Equatable {
            /// Alive when the trace ends.
            case running
            /// It finished its work and exited (a handler after its reply).
            case exited
            /// Unloaded or quit by Safari, or its profile left the front.
            case unloaded(String)
            /// Killed, or crashed on its own.
            case killed(String)
        }
        /// A stretch of its life in a state other than running.
        struct Span: Sendable {
            enum State: String, Sendable { case frozen, held, suspended }
            var state: State
            var from: Int
            var to: Int
            var note: String
        }
        /// Something at one moment: a yield point, a failed step, a withheld reply.
        struct Mark: Sendable {
            enum Kind: String, Sendable { case yield, fault, timeout, problem }
            var kind: Kind
            var at: Int
            var note: String
        }

        var label: String
        var kind: Kind
        var from: Int
        var to: Int
        /// Why a background started: the event that woke it, or Safari's launch, the install or
        /// an update.
        var startedFor: String?
        var end: End = .running
        var spans: [Span] = []
        var marks: [Mark] = []
    }

    /// One tab of one profile: what its page showed over time.
    struct TabLane: Sendable {
        struct Segment: Sendable {
            /// nil: no decision applied since the page (re)loaded.
            var decision: Shown?
            var from: Int
            var to: Int
            /// What the extension's own page shows, when its pages run (`PageState.summary`).
            var page: String?
        }
        /// A decision as a page shows it.
        struct Shown: Sendable, Equatable {
            var enabled: Bool
            var theme: String
            var reason: String
        }
        /// The first decision since a load, and how many native replies the background had by then.
        struct First: Sendable {
            var at: Int
            var repliesBefore: Int
        }

        var profile: String
        var tab: String
        var segments: [Segment] = []
        var firsts: [First] = []
        /// When its profile was out of sight.
        var hidden: [ClosedRange<Int>] = []
        var name: String { profile == RunMarks().profile ? tab : "\(tab) (\(profile))" }
    }

    /// A message between two processes.
    struct Arrow: Sendable {
        package enum Outcome: String, Sendable {
            case request, applied, unchanged, refused, dropped, timedOut = "timed out", message
            /// A message between a page (a tab's content scripts) and the background, either way.
            case page
        }
        var from: String
        var fromIndex: Int
        var to: String
        var toIndex: Int
        var outcome: Outcome
        var note: String
    }

    /// A revision read at a moment (nil: no readable document or cache).
    struct Revision: Sendable, Equatable {
        var at: Int
        var revision: Int?
        var note: String
        /// Whose cache (each Safari profile has its own); nil for the shared document.
        var profile: String?

        /// The shared document as a process reported it: a handler reads a missing document as
        /// the built-in one, revision 0, which is no document yet. (A cache of revision 0 is a
        /// real cache: of a starting document or of the built-in one.)
        static func shared(at: Int, revision: Int?, note: String) -> Revision {
            Revision(at: at, revision: revision == 0 ? nil : revision, note: note)
        }
    }

    /// Safari over a stretch of the run: in front, in the background (macOS), suspended (iOS),
    /// or the device asleep.
    struct SafariSpan: Sendable {
        enum State: String, Sendable { case front, background, suspended, asleep }
        var state: State
        var from: Int
        var to: Int
    }

    /// An alarm of the front profile: set, when it falls due, and how it ended.
    struct Alarm: Sendable {
        enum End: String, Sendable { case fired, dropped, replaced, putAway = "put away with its profile", pending = "still set" }
        var from: Int
        /// When it falls due, from the run's start.
        var dueAt: EpochMillis
        /// The line at which it fell due, if the trace got that far.
        var due: Int?
        var to: Int
        var end: End
    }

    /// Each line's virtual time from the run's start.
    var times: [EpochMillis] = []
    var safari: [SafariSpan] = []
    var alarms: [Alarm] = []
    var processes: [ProcessLane] = []
    var tabs: [TabLane] = []
    var arrows: [Arrow] = []
    var shared: [Revision] = []
    var cache: [Revision] = []
    /// Liveness checks that failed, where they failed (`check` lines).
    var checks: [(at: Int, note: String)] = []
    /// Moments of the whole run: the power failing, the run healed.
    var events: [(at: Int, note: String)] = []
    /// Lines of the trace that are bookkeeping (timers, storage tokens): they take no room.
    var quiet: Set<Int> = []

    var count: Int { times.count }

    /// Whether the extension's own pages ran: the tabs show what its scripts left, not the
    /// design's decisions.
    var runsOwnPages: Bool { tabs.contains { $0.segments.contains { $0.page != nil } } }
}
