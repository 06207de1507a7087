import ProcessKit
import SiteSettings

/// One run as a self-contained HTML page: what went wrong, a timeline of every process
/// incarnation and tab (inline SVG), the steps linked to their moments, and the trace, folded.
/// No script, font or style from elsewhere, so it opens from `file://` and in CI artifacts.
package enum RunPage {
    /// Everything a page shows about a run.
    package struct Run: Sendable {
        package var scenario: Scenario
        package var outcome: ScenarioRunner.Outcome
        var wallSeconds: Double
        /// How it was run: `seed 1, transport process`, and any flaws.
        var settings: String

        package init(scenario: Scenario, outcome: ScenarioRunner.Outcome, wallSeconds: Double, settings: String) {
            self.scenario = scenario
            self.outcome = outcome
            self.wallSeconds = wallSeconds
            self.settings = settings
        }
    }

    static func html(_ run: Run) -> String {
        let outcome = run.outcome
        let timeline = RunTimeline(log: outcome.log, marks: outcome.marks, epoch: outcome.epoch)
        let axis = TimeAxis(timeline)
        // A failure found once the run was healed belongs to no step.
        let failedLines = Set(outcome.marks.failures.filter { !$0.afterHealing }.map(\.line))
        var page = Page()
        page.add("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">")
        page.add("<title>\(outcome.passed ? "pass" : "FAIL") \(escape(run.scenario.name))</title>\n<style>\(style)</style>\n</head>\n<body>")
        page.add("<header>\n<h1>\(escape(run.scenario.name))</h1>")
        page.add("<p class=\"result \(outcome.passed ? "pass" : "fail")\">\(outcome.passed ? "pass" : "FAIL")</p>")
        if !run.scenario.description.isEmpty { page.add("<p class=\"description\">\(escape(run.scenario.description))</p>") }
        page.add("<p class=\"facts\">\(escape(run.settings)) · \(run.scenario.lines.count) steps · \(TimeAxis.readable(outcome.virtualTime)) virtual · "
                 + "\(milliseconds(run.wallSeconds)) ms wall · times from \(Timestamp.format(outcome.epoch))</p>\n</header>")
        if !outcome.passed { failures(outcome, into: &page) }
        page.add("<section>\n<h2>Timeline</h2>")
        Lanes(timeline: timeline, axis: axis, marks: outcome.marks, epoch: outcome.epoch).draw(into: &page)
        page.add(timeline.runsOwnPages ? ownPagesLegend : legend)
        page.add("</section>")
        steps(run.scenario, outcome.marks, failedLines: failedLines, epoch: outcome.epoch, into: &page)
        if outcome.marks.failures.contains(where: \.afterHealing) {
            page.add("<p class=\"step failed healed\"><a href=\"#healed\">After the run was healed</a>: the checks made once every fault was gone failed (see above).</p>")
        }
        page.add("<details class=\"trace\">\n<summary>Trace (\(outcome.trace.count) lines)</summary>\n<pre>")
        page.add(traceLines(outcome))
        page.add("</pre>\n</details>\n</body>\n</html>")
        return page.text
    }

    /// The trace, each line's time a link to the timeline at the step it belongs to.
    private static func traceLines(_ outcome: ScenarioRunner.Outcome) -> String {
        var stepAt = outcome.marks.steps.startIndex
        var lines: [String] = []
        for (index, line) in outcome.trace.enumerated() {
            while stepAt + 1 < outcome.marks.steps.count && outcome.marks.steps[stepAt + 1].traceIndex <= index { stepAt += 1 }
            let time = line.prefix { $0 != " " }
            if stepAt < outcome.marks.steps.count, outcome.marks.steps[stepAt].traceIndex <= index {
                let step = outcome.marks.steps[stepAt].line
                lines.append("<a href=\"#step-\(step)\" title=\"line \(step) of the scenario\">\(escape(String(time)))</a>" + escape(String(line.dropFirst(time.count))))
            } else {
                lines.append(escape(line))
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func failures(_ outcome: ScenarioRunner.Outcome, into page: inout Page) {
        page.add("<section class=\"problems\">\n<h2>What went wrong</h2>\n<ol>")
        // Each with what was expected (the step) and what happened (the message).
        for (index, failure) in outcome.marks.failures.enumerated() {
            let step = failure.afterHealing ? "after the run was healed" : "line \(failure.line) <code>\(escape(failure.step))</code>"
            page.add("<li class=\"failure\" id=\"problem-\(index)\"><a href=\"#failure-\(index)\">\(step)</a>, \(escape(failure.property.description)), found at "
                     + "\(Trace.relative(failure.at - outcome.epoch))<pre>\(escape(failure.message))</pre></li>")
        }
        page.add("</ol>\n</section>")
    }

    private static func steps(_ scenario: Scenario, _ marks: RunMarks, failedLines: Set<Int>, epoch: EpochMillis, into page: inout Page) {
        let moments = Dictionary(marks.steps.map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
        page.add("<section>\n<h2>Steps</h2>\n<ol class=\"steps\">")
        for line in scenario.lines {
            let failed = failedLines.contains(line.number)
            let number: String
            let time: String
            if let moment = moments[line.number] {
                number = "<a href=\"#step-\(line.number)\">\(line.number)</a>"
                time = Trace.relative(moment.at - epoch)
            } else {
                number = "\(line.number)"
                time = "setup"
            }
            page.add("<li id=\"line-\(line.number)\" class=\"step\(failed ? " failed" : "")\"><span class=\"number\">\(number)</span> "
                     + "<code>\(escape(line.text))</code> <span class=\"at\">\(time)</span></li>")
        }
        page.add("</ol>\n</section>")
    }

    static func escape(_ text: String) -> String { Reports.escape(text) }

    static func milliseconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The page's text, built a line at a time.
    struct Page {
        private var lines: [String] = []
        mutating func add(_ line: String) { lines.append(line) }
        var text: String { lines.joined(separator: "\n") + "\n" }
    }

    private static let legend = """
        <p class="legend"><span class="swatch alive"></span>alive <span class="swatch frozen"></span>frozen \
        <span class="swatch held"></span>held at a yield point <span class="swatch suspended"></span>app suspended \
        <span class="mark killed">✕</span>killed or crashed <span class="mark unloaded">■</span>unloaded \
        <span class="swatch waiting"></span>no decision yet <span class="swatch disabled"></span>disabled \
        <span class="mark first">▲</span>first decision (C: before any native reply) · arrows: \
        <span class="arrowkey request">request</span> <span class="arrowkey applied">applied</span> \
        <span class="arrowkey unchanged">unchanged</span> <span class="arrowkey refused">refused</span> \
        <span class="arrowkey dropped">dropped</span> <span class="arrowkey timedout">timed out</span> \
        <span class="arrowkey message">app message, change notice</span> · Safari: \
        <span class="swatch" style="background:#c8e6c9"></span>in front <span class="swatch" style="background:#eceff1"></span>in the background \
        <span class="swatch" style="background:#ffe0b2"></span>suspended <span class="swatch" style="background:#b0bec5"></span>device asleep · \
        <span class="swatch" style="background:#e1bee7"></span>alarm set, <span class="mark" style="color:#6a1b9a">|</span>due · \
        <span class="mark" style="color:#0d47a1">|</span>a write of the document</p>
        """

    /// The legend when the extension's own pages ran: no decisions, the pages' messages.
    private static let ownPagesLegend = """
        <p class="legend"><span class="swatch alive"></span>alive (for: what started it) <span class="swatch frozen"></span>frozen \
        <span class="swatch held"></span>held at a yield point <span class="swatch suspended"></span>app suspended \
        <span class="mark killed">✕</span>killed or crashed <span class="mark unloaded">■</span>unloaded \
        <span class="swatch page"></span>what a page's scripts left on it · arrows: \
        <span class="arrowkey page">page message or answer</span> <span class="arrowkey request">native request</span> \
        <span class="arrowkey unchanged">reply</span> <span class="arrowkey refused">refused</span> \
        <span class="arrowkey dropped">dropped</span> <span class="arrowkey timedout">timed out</span> \
        <span class="arrowkey message">app message</span> · Safari: \
        <span class="swatch" style="background:#c8e6c9"></span>in front <span class="swatch" style="background:#eceff1"></span>in the background \
        <span class="swatch" style="background:#ffe0b2"></span>suspended <span class="swatch" style="background:#b0bec5"></span>device asleep · \
        <span class="swatch" style="background:#e1bee7"></span>alarm set, <span class="mark" style="color:#6a1b9a">|</span>due</p>
        """

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
        h1{font-size:1.3em;margin:0 0 .2em;word-break:break-all}h2{font-size:1.1em;margin:1.2em 0 .4em}
        .result{display:inline-block;font-weight:bold;padding:.1em .6em;border-radius:3px;margin:.2em 0}
        .result.pass{background:#d8f0d0;color:#1b5e20}.result.fail{background:#fbd5d5;color:#b71c1c}
        .description{white-space:pre-line;color:#444}.facts{color:#666;font-size:.9em}
        .problems li{margin-bottom:.6em}.problems pre{background:#fff4f4;border-left:3px solid #c62828;padding:.4em .6em;white-space:pre-wrap;margin:.2em 0}
        .timeline{display:flex;border:1px solid #ddd}.timeline .scroll{overflow-x:auto;flex:1}
        .timeline svg{display:block;font-size:11px}.labels text{font-weight:600}
        .alive{fill:#a5d6a7}.frozen{fill:#90caf9}.held{fill:#ffcc80}.suspended{fill:#cfd8dc}
        .waiting{fill:#fff;stroke:#999;stroke-dasharray:3 2}.hidden{fill:#eee;opacity:.8}
        .yield{stroke:#2e7d32;stroke-width:1}.fault{fill:#ef6c00}.timeout{fill:#c62828}.problem{fill:#6a1b9a}
        .killed{fill:#c62828;color:#c62828}.unloaded{fill:#757575;color:#757575}.first{fill:#000;color:#000}
        .arrow{stroke-width:1.4;fill:none}.arrow.request{stroke:#546e7a}.arrow.applied{stroke:#2e7d32}.arrow.unchanged{stroke:#9e9e9e}
        .arrow.refused{stroke:#ef6c00}.arrow.dropped{stroke:#c62828;stroke-dasharray:4 3}.arrow.timedout{stroke:#c62828;stroke-dasharray:1 2}
        .arrow.message{stroke:#6a1b9a}.arrow.page{stroke:#00838f}.startnote{fill:#1b5e20;font-size:10px}
        .steprule{stroke:#bbb;stroke-dasharray:2 3}.failrule{stroke:#d50000;stroke-width:2}.eventrule{stroke:#000;stroke-dasharray:6 3}
        .endnote{fill:#777;font-size:10px}.gapbreak{fill:#f5f5f5}.gaptext{fill:#777}.check{fill:#c62828}
        .legend{font-size:.85em;color:#555}.swatch{display:inline-block;width:1.6em;height:.8em;margin:0 .3em 0 .8em;vertical-align:middle;border:1px solid #aaa}
        .swatch.alive{background:#a5d6a7}.swatch.frozen{background:#90caf9}.swatch.held{background:#ffcc80}.swatch.suspended{background:#cfd8dc}
        .swatch.waiting{background:#fff;border-style:dashed}.swatch.disabled{background:repeating-linear-gradient(45deg,#fff 0 3px,#777 3px 5px)}
        .mark{margin:0 .2em 0 .8em}.arrowkey{margin-left:.6em;border-bottom:2px solid}.arrowkey.request{border-color:#546e7a}
        .arrowkey.applied{border-color:#2e7d32}.arrowkey.unchanged{border-color:#9e9e9e}.arrowkey.refused{border-color:#ef6c00}
        .arrowkey.dropped{border-color:#c62828;border-bottom-style:dashed}.arrowkey.timedout{border-color:#c62828;border-bottom-style:dotted}
        .arrowkey.message{border-color:#6a1b9a}.arrowkey.page{border-color:#00838f}.swatch.page{background:#eef3fb;border-color:#9ab}
        .steps{list-style:none;padding:0}.steps li{padding:.05em .4em}.steps .number{display:inline-block;width:3em;text-align:right;color:#777}
        .steps .at{color:#999;font-size:.85em}.steps li.failed,p.healed{background:#fbd5d5}p.healed{padding:.2em .4em}.steps li:target{outline:2px solid #1565c0}
        .trace pre{font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere;background:#fafafa;padding:.6em}.trace a{color:#1565c0;text-decoration:none}
        """
}
