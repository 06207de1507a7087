@testable import HarnessCore
import ProcessKit
import SiteSettings
import Testing

struct ReportsTests {
    /// Trace times count from the run's start, in seconds with milliseconds, as people read a run.
    @Test func traceTimesReadAsSecondsFromTheStart() {
        #expect(Trace.relative(0) == "+0.000s")
        #expect(Trace.relative(26_000) == "+26.000s")
        #expect(Trace.relative(5_001) == "+5.001s")
        #expect(Trace.relative(3_600_050) == "+3600.050s")
        #expect(Trace.relative(-500) == "-0.500s")
        #expect(Trace(epoch: 1_000).time(27_000) == "+26.000s")
        #expect(Trace().time(27_000) == "27000", "with no start, Unix milliseconds")
        for millis: EpochMillis in [0, 5_001, 3_600_050, -500] { #expect(Trace.millis(Substring(Trace.relative(millis))) == millis) }
    }

    /// The harness's own clock check compares the times of the trace's events.
    @Test func aClockThatRunsBackwardsIsFoundInTheTrace() {
        func log(_ times: [EpochMillis]) -> TraceLog {
            let trace = Trace(epoch: 0)
            for (index, time) in times.enumerated() { trace.record(time, "a", "x\(index)") }
            return trace.log
        }
        #expect(log([1_000, 2_500, 2_500]).firstStepBackwards == nil)
        #expect(log([1_000, 2_500, 2_499]).firstStepBackwards == "+2.499s a x2")
        #expect(log([1_000, 999, 2_000, 1_500]).firstStepBackwards == "+0.999s a x1", "the first step back is the one named")
        #expect(log([]).firstStepBackwards == nil)
    }

    @Test func aTraceBecomesASequenceDiagramWithAnArrowPerMessage() {
        let trace = [
            #"100 background#1 <- {"tab":"t1","type":"tabRequestedDecision","url":"https://a.example/"}"#,
            #"100 background#1 -> {"decision":{"enabled":true,"mode":"on","nativeDarkPolicy":"respect","reason":"modeOn","schedule":"20:00-06:00","scope":null,"source":{"mode":"default","nativeDarkPolicy":"default","theme":"default"},"theme":"gray"},"tab":"t1","type":"sendDecision"}"#,
            "100 handler#2 yield rename",
            "100 safari tab t1 asks again",
        ]
        let diagram = Reports.mermaid(title: "a: b#c", log: TraceLog.read(lines: trace, epoch: nil))
        #expect(diagram.hasPrefix("```mermaid\nsequenceDiagram\n    title a  b c\n"))
        #expect(diagram.contains("    S->>B: [1] tabRequestedDecision t1\n"))
        #expect(diagram.contains("    B-->>S: [1] sendDecision t1 on gray\n"))
        #expect(diagram.contains("    Note over N: [2] yield rename\n"))
        #expect(diagram.contains("    Note over S: tab t1 asks again\n"))
        #expect(diagram.hasSuffix("```\n"))
    }

    @Test func junitHasACasePerScenarioAndEscapedFailuresAndSkips() {
        let xml = Reports.junit(suite: "s", results: [
            Reports.Result(name: "ok.scenario", failures: [], wallSeconds: 0.5),
            Reports.Result(name: "bad.scenario", failures: ["bad.scenario:3: expect tab t1 theme=<dark>\n  expected \"dark\" & more"], wallSeconds: 0.25),
            Reports.Result(name: "js.scenario", failures: [], wallSeconds: 0, skipped: "node is not installed"),
        ])
        #expect(xml.contains(#"<testsuite name="s" tests="3" failures="1" skipped="1" time="0.75">"#))
        #expect(xml.contains(#"<testcase classname="s" name="js.scenario" time="0.0">\#n      <skipped message="node is not installed"/>\#n    </testcase>"#), "\(xml)")
        #expect(xml.contains(#"<testcase classname="s" name="ok.scenario" time="0.5"/>"#))
        #expect(xml.contains(#"<failure message="bad.scenario:3: expect tab t1 theme=&lt;dark&gt;   expected &quot;dark&quot; &amp; more">"#))
    }
}
