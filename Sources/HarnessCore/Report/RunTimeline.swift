import ProcessKit
import SiteSettings

/// A run told as lanes over time, read from its trace: what the run's page draws. Every moment
/// is a trace line's index, so events at one virtual instant keep their order; `TimeAxis`
/// turns indices into positions.
package struct RunTimeline: Sendable {
    /// One incarnation of a process (`background#2`): when it lived, and how it ended.
    package struct ProcessLane: Sendable {
        package enum Kind: String, Sendable { case app, background, handler }
        package enum End: Sendable, Equatable {
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
        package struct Span: Sendable {
            package enum State: String, Sendable { case frozen, held, suspended }
            package var state: State
            package var from: Int
            package var to: Int
            package var note: String
        }
        /// Something at one moment: a yield point, a failed step, a withheld reply.
        package struct Mark: Sendable {
            package enum Kind: String, Sendable { case yield, fault, timeout, problem }
            package var kind: Kind
            package var at: Int
            package var note: String
        }

        package var label: String
        package var kind: Kind
        package var from: Int
        package var to: Int
        /// Why a background started: the event that woke it, or Safari's launch, the install or
        /// an update.
        package var startedFor: String?
        package var end: End = .running
        package var spans: [Span] = []
        package var marks: [Mark] = []
    }

    /// One tab of one profile: what its page showed over time.
    package struct TabLane: Sendable {
        package struct Segment: Sendable {
            /// nil: no decision applied since the page (re)loaded.
            package var decision: Shown?
            package var from: Int
            package var to: Int
            /// What the extension's own page shows, when its pages run (`PageState.summary`).
            package var page: String?
        }
        /// A decision as a page shows it.
        package struct Shown: Sendable, Equatable {
            package var enabled: Bool
            package var theme: String
            package var reason: String
        }
        /// The first decision since a load, and how many native replies the background had by then.
        package struct First: Sendable {
            package var at: Int
            package var repliesBefore: Int
        }

        package var profile: String
        package var tab: String
        package var segments: [Segment] = []
        package var firsts: [First] = []
        /// When its profile was out of sight.
        package var hidden: [ClosedRange<Int>] = []
        package var name: String { profile == RunMarks().profile ? tab : "\(tab) (\(profile))" }
    }

    /// A message between two processes.
    package struct Arrow: Sendable {
        package enum Outcome: String, Sendable {
            case request, applied, unchanged, refused, dropped, timedOut = "timed out", message
            /// A message between a page (a tab's content scripts) and the background, either way.
            case page
        }
        package var from: String
        package var fromIndex: Int
        package var to: String
        package var toIndex: Int
        package var outcome: Outcome
        package var note: String
    }

    /// A revision read at a moment (nil: no readable document or cache).
    package struct Revision: Sendable, Equatable {
        package var at: Int
        package var revision: Int?
        package var note: String
        /// Whose cache (each Safari profile has its own); nil for the shared document.
        package var profile: String?

        /// The shared document as a process reported it: a handler reads a missing document as
        /// the built-in one, revision 0, which is no document yet. (A cache of revision 0 is a
        /// real cache: of a starting document or of the built-in one.)
        static func shared(at: Int, revision: Int?, note: String) -> Revision {
            Revision(at: at, revision: revision == 0 ? nil : revision, note: note)
        }
    }

    /// Safari over a stretch of the run: in front, in the background (macOS), suspended (iOS),
    /// or the device asleep.
    package struct SafariSpan: Sendable {
        package enum State: String, Sendable { case front, background, suspended, asleep }
        package var state: State
        package var from: Int
        package var to: Int
    }

    /// An alarm of the front profile: set, when it falls due, and how it ended.
    package struct Alarm: Sendable {
        package enum End: String, Sendable { case fired, dropped, replaced, putAway = "put away with its profile", pending = "still set" }
        package var from: Int
        /// When it falls due, from the run's start.
        package var dueAt: EpochMillis
        /// The line at which it fell due, if the trace got that far.
        package var due: Int?
        package var to: Int
        package var end: End
    }

    /// Each line's virtual time from the run's start.
    package var times: [EpochMillis] = []
    package var safari: [SafariSpan] = []
    package var alarms: [Alarm] = []
    package var processes: [ProcessLane] = []
    package var tabs: [TabLane] = []
    package var arrows: [Arrow] = []
    package var shared: [Revision] = []
    package var cache: [Revision] = []
    /// Liveness checks that failed, where they failed (`check` lines).
    package var checks: [(at: Int, note: String)] = []
    /// Moments of the whole run: the power failing, the run healed.
    package var events: [(at: Int, note: String)] = []
    /// Lines of the trace that are bookkeeping (timers, storage tokens): they take no room.
    package var quiet: Set<Int> = []

    package var count: Int { times.count }

    /// Whether the extension's own pages ran: the tabs show what its scripts left, not the
    /// design's decisions.
    package var runsOwnPages: Bool { tabs.contains { $0.segments.contains { $0.page != nil } } }
}
