@testable import HarnessCore
import SiteSettings
import Testing

/// The run page's reading of a trace: lanes, arrows, tabs and revisions.
struct RunTimelineTests {
    /// A trace as the simulation writes it: a background answers from its cache, its handler's
    /// patch is answered after the background was unloaded (the reply is dropped), a second
    /// background is frozen and thawed, a handler is held and killed at a yield point, and a
    /// request times out; the app is suspended and comes back.
    static let trace = [
        #"+0.000s safari tab t1 opened in profile default, window 1: https://docs.example.com/"#,
        #"+0.000s background#1 <- {"appearance":"light","tabs":{"t1":"https://docs.example.com/"},"type":"started"}"#,
        #"+0.000s background#1 yield storage-read"#,
        #"+0.000s background#1 -> {"token":1,"type":"storagePending"}"#,
        #"+0.000s background#1 -> {"decision":{"enabled":true,"mode":"on","nativeDarkPolicy":"respect","reason":"modeOn","schedule":"20:00-06:00","scope":null,"source":{"mode":"default","nativeDarkPolicy":"default","theme":"default"},"theme":"gray"},"tab":"t1","type":"sendDecision"}"#,
        #"+0.000s background#1 -> {"message":{"at":1,"edit":1,"reset":[],"scope":"docs.example.com","set":{"mode":"off"},"type":"patch"},"request":1,"type":"sendNative"}"#,
        #"+0.000s handler#1 <- {"message":{"at":1,"edit":1,"reset":[],"scope":"docs.example.com","set":{"mode":"off"},"type":"patch"},"profile":"default","type":"requestArrived"}"#,
        #"+0.000s handler#1 -> {"message":{"changed":true,"documentId":"D","revision":2,"type":"applied"},"type":"reply"}"#,
        #"+0.000s background#1 unloaded"#,
        #"+0.000s safari dropped reply for background#1"#,
        #"+60.000s safari tab t1 loads https://docs.example.com/"#,
        #"+60.000s background#2 <- {"appearance":"light","tabs":{"t1":"https://docs.example.com/"},"type":"started"}"#,
        #"+60.000s background#2 -> {"message":{"type":"getSnapshot"},"request":1,"type":"sendNative"}"#,
        #"+60.000s handler#2 <- {"message":{"type":"getSnapshot"},"profile":"default","type":"requestArrived"}"#,
        #"+60.000s handler#2 -> {"message":{"documentId":"D","revision":2,"type":"notModified"},"type":"reply"}"#,
        #"+60.000s background#2 <- {"reply":{"documentId":"D","revision":2,"type":"notModified"},"request":1,"type":"nativeReplyArrived"}"#,
        #"+60.000s background#2 -> {"decision":{"enabled":false,"mode":"off","nativeDarkPolicy":"respect","reason":"modeOff","schedule":"20:00-06:00","scope":null,"source":{"mode":"default","nativeDarkPolicy":"default","theme":"default"},"theme":"gray"},"tab":"t1","type":"sendDecision"}"#,
        #"+60.000s safari tab t2 opened in profile default, window 1: https://b.example/"#,
        #"+60.000s background#2 -> {"decision":{"enabled":true,"mode":"on","nativeDarkPolicy":"respect","reason":"modeOn","schedule":"20:00-06:00","scope":null,"source":{"mode":"default","nativeDarkPolicy":"default","theme":"default"},"theme":"dark"},"tab":"t2","type":"sendDecision"}"#,
        #"+60.000s background#2 frozen"#,
        #"+70.000s background#2 thawed"#,
        #"+70.000s background#2 -> {"message":{"type":"getSnapshot"},"request":2,"type":"sendNative"}"#,
        #"+70.000s handler#3 <- {"message":{"type":"getSnapshot"},"profile":"default","type":"requestArrived"}"#,
        #"+70.000s handler#3 held at read"#,
        #"+75.000s background#2 <- {"timer":{"nativeTimeout":2},"type":"timerFired"}"#,
        #"+75.000s handler#3 killed at read"#,
        #"+75.000s safari profile work in front"#,
        #"+75.000s safari tab t1 opened in profile work, window 1: https://other.example/"#,
        #"+75.000s check tab t1 asked at +70.000s and had no decision 5 s later (invariant 6)"#,
        #"+75.000s harness heal"#,
        #"+75.000s safari tab t1 closed"#,
        #"+75.000s app#1 <- {"type":"launched"}"#,
        #"+75.000s app#1 suspended"#,
        #"+80.000s app#1 <- {"type":"cameToForeground"}"#,
        #"+80.000s app#1 yield read"#,
    ]

    static let timeline = RunTimeline(lines: trace, marks: RunMarks(), epoch: 1_772_355_600_000)

    @Test func aLanePerProcessIncarnationWithHowItEnded() throws {
        let lanes = Self.timeline.processes
        #expect(lanes.map(\.label) == ["background#1", "handler#1", "background#2", "handler#2", "handler#3", "app#1"])
        #expect(lanes[0].end == .unloaded("unloaded"))
        #expect(lanes[1].end == .exited)
        #expect(lanes[2].end == .running)
        #expect(lanes[2].to == Self.trace.count - 1)
        #expect(lanes[4].end == .killed("killed at read"))
        let frozen = try #require(lanes[2].spans.first)
        #expect(frozen.state == .frozen && frozen.from == 19 && frozen.to == 20)
        let held = try #require(lanes[4].spans.first)
        // Held until it was killed there.
        #expect(held.state == .held && held.from == 23 && held.to == 25)
        let suspended = try #require(lanes[5].spans.first)
        #expect(suspended.state == .suspended && suspended.from == 32 && suspended.to == 33)
        #expect(lanes[2].marks.map(\.kind) == [.timeout])
        #expect(lanes[0].marks.map(\.kind) == [.yield])
    }

    @Test func requestsAndRepliesAreArrowsWithTheirOutcome() {
        let arrows = Self.timeline.arrows.map { "\($0.from)>\($0.to) \($0.outcome.rawValue) \($0.fromIndex)-\($0.toIndex)" }
        #expect(arrows == [
            "background#1>handler#1 request 5-6",
            "handler#1>background#1 dropped 7-9",
            "background#2>handler#2 request 12-13",
            "handler#2>background#2 unchanged 14-15",
            "background#2>handler#3 request 21-22",
        ])
    }

    @Test func aTabShowsEachDecisionAndItsFirstSinceEachLoad() throws {
        let tabs = Self.timeline.tabs
        #expect(tabs.map(\.name) == ["t1", "t2", "t1 (work)"])
        let t1 = tabs[0]
        #expect(t1.segments.map { $0.decision.map { $0.enabled ? $0.theme : "off" } ?? "none" } == ["none", "gray", "none", "off"])
        #expect(t1.segments.map(\.from) == [0, 4, 10, 16])
        // The first decision came before any native reply; after the reload, after one.
        #expect(t1.firsts.map(\.repliesBefore) == [0, 1])
        // Out of sight from the profile switch on.
        #expect(t1.hidden == [26...(Self.trace.count - 1)])
        // A tab opened after a native reply counts none before its own first decision.
        #expect(tabs[1].firsts.map(\.repliesBefore) == [0])
        #expect(tabs[1].segments.last?.decision?.theme == "dark")
        // Closed in the work profile, where it was opened at 27.
        #expect(tabs[2].segments.map(\.from) == [27])
        #expect(tabs[2].segments.map(\.to) == [30])
    }

    @Test func revisionsTimesChecksAndEvents() {
        let timeline = Self.timeline
        #expect(timeline.shared.map(\.revision) == [2, 2])
        #expect(timeline.times[10] == 60_000 && timeline.times.last == 80_000)
        // Bookkeeping takes no room on the timeline.
        #expect(timeline.quiet == [3])
        #expect(timeline.checks.map(\.at) == [28])
        #expect(timeline.events.map(\.note) == ["healed"])
    }

    /// Safari's own lane (in front, suspended, the device asleep) and the alarm's: when it was
    /// set, the line at which it fell due (raised to the minimum, later by a sleep), how it ended.
    @Test func safariAndAlarmLanes() {
        let trace = [
            #"+0.000s background#1 -> {"at":1772359200000,"type":"setAlarm"}"#,
            #"+0.000s safari Safari goes to the background: iOS suspends it, and the extension with it"#,
            #"+7200.000s safari Safari comes to the front"#,
            #"+7200.000s background#1 <- {"type":"alarmFired"}"#,
            #"+7200.000s background#1 -> {"at":1772362810000,"type":"setAlarm"}"#,
            #"+7200.000s safari alarm raised to the minimum delay, 30 s"#,
            #"+7200.000s harness the device sleeps for 2h: Safari's timers stop with its monotonic clock"#,
            #"+14400.000s harness the device wakes"#,
            #"+14500.000s safari alarms dropped: Safari keeps them in memory only"#,
            #"+14500.000s background#2 -> {"at":1772380000000,"type":"setAlarm"}"#,
            #"+14500.000s safari profile work in front"#,
        ]
        let timeline = RunTimeline(lines: trace, marks: RunMarks(), epoch: 1_772_355_600_000)
        #expect(timeline.safari.map(\.state) == [.front, .suspended, .front, .asleep, .front])
        #expect(timeline.safari.map(\.from) == [0, 1, 2, 6, 7])
        #expect(timeline.alarms.map(\.end) == [.fired, .dropped, .putAway])
        // Due at 1 h while Safari was away: the line at which it was due is Safari's return.
        #expect(timeline.alarms[0].dueAt == 3_600_000 && timeline.alarms[0].due == 2 && timeline.alarms[0].to == 3)
        // Asked for 10 s, raised to 30 s, then 2 h later for the sleep.
        #expect(timeline.alarms[1].dueAt == 7_230_000 + 7_200_000 && timeline.alarms[1].due == 8)
        #expect(timeline.alarms[2].from == 9 && timeline.alarms[2].to == 10)
    }

    @Test func aPowerCutEndsEveryProcess() {
        let timeline = RunTimeline(lines: ["+0.000s background#1 yield storage-read", "+0.000s harness power lost: 0 unsynced changes kept, 1 dropped; the device restarts",
                                           "+0.000s background#1 power lost", "+0.000s background#2 yield storage-read"],
                                   marks: RunMarks(), epoch: 0)
        #expect(timeline.processes.map(\.end) == [.killed("power lost"), .running])
        #expect(timeline.processes[0].to == 2)
        #expect(timeline.events.map(\.at) == [1])
    }

    @Test func aTraceInUnixTimesIsReadFromTheEpoch() {
        let timeline = RunTimeline(lines: ["1772355600000 background#1 yield storage-read", "1772355601500 background#1 unloaded"],
                                   marks: RunMarks(), epoch: 1_772_355_600_000)
        #expect(timeline.times == [0, 1500])
    }

    /// A handler reads a missing document as revision 0: no shared document yet. A cache of
    /// revision 0 is a cache (of the starting or the built-in document).
    @Test func revisionZeroIsNoSharedDocumentYetButACache() {
        var marks = RunMarks()
        marks.revisions = [RunMarks.Revisions(traceIndex: 1, at: 0, shared: nil, profile: "default", cache: 0, outbox: 0)]
        let timeline = RunTimeline(lines: [#"+0.000s handler#1 -> {"message":{"documentId":"D","revision":0,"type":"notModified"},"type":"reply"}"#],
                                   marks: marks, epoch: 0)
        #expect(timeline.shared.map(\.revision) == [nil, nil])
        #expect(timeline.cache.map(\.revision) == [0])
    }

    /// Nothing on its way arrives after a power cut; a refused request and a withheld reply
    /// draw no arrow; each dropped reply is the oldest on its way.
    @Test func whatNeverArrivesDrawsNoArrow() {
        let patch = #"{"at":1,"edit":1,"reset":[],"scope":"a.example","set":{"mode":"off"},"type":"patch"}"#
        let trace = [
            #"+0.000s background#1 -> {"message":\#(patch),"request":1,"type":"sendNative"}"#,
            #"+0.000s harness power lost: 0 unsynced changes kept, 1 dropped; the device restarts"#,
            #"+0.000s background#1 power lost"#,
            #"+0.000s background#2 -> {"message":\#(patch),"request":1,"type":"sendNative"}"#,
            #"+0.000s handler#1 <- {"message":\#(patch),"profile":"default","type":"requestArrived"}"#,
            #"+0.000s handler#1 reply withheld (hung)"#,
            #"+0.000s background#2 -> {"message":{"type":"getSnapshot"},"request":2,"type":"sendNative"}"#,
            #"+0.000s safari refused a native request: 150 in flight"#,
            #"+0.000s background#2 -> {"message":{"type":"getSnapshot"},"request":3,"type":"sendNative"}"#,
            #"+0.000s handler#2 <- {"message":{"type":"getSnapshot"},"profile":"default","type":"requestArrived"}"#,
            #"+0.000s background#2 -> {"message":{"type":"getSnapshot"},"request":4,"type":"sendNative"}"#,
            #"+0.000s handler#3 <- {"message":{"type":"getSnapshot"},"profile":"default","type":"requestArrived"}"#,
            #"+0.000s handler#3 -> {"message":{"documentId":"D","revision":1,"type":"notModified"},"type":"reply"}"#,
            #"+0.000s handler#2 -> {"message":{"documentId":"D","revision":1,"type":"notModified"},"type":"reply"}"#,
            #"+0.000s background#2 unloaded"#,
            #"+0.000s safari dropped reply for background#2"#,
            #"+1.000s safari dropped reply for background#2"#,
        ]
        let timeline = RunTimeline(lines: trace, marks: RunMarks(), epoch: 0)
        let arrows = timeline.arrows.map { "\($0.from)>\($0.to) \($0.outcome.rawValue) \($0.fromIndex)-\($0.toIndex)" }
        #expect(arrows == [
            "background#2>handler#1 request 3-4",
            "background#2>handler#2 request 8-9",
            "background#2>handler#3 request 10-11",
            "handler#3>background#2 dropped 12-15",
            "handler#2>background#2 dropped 13-16",
        ])
        #expect(timeline.processes.first { $0.label == "background#2" }?.marks.map(\.note) == ["request 2 refused by Safari (150 in flight)"])
    }
}

extension RunTimeline {
    /// The timeline of a trace given as its lines, read back with each role's codec.
    init(lines: [String], marks: RunMarks, epoch: EpochMillis) {
        self.init(log: TraceLog.read(lines: lines, epoch: epoch), marks: marks, epoch: epoch)
    }
}
