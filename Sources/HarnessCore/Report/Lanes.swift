import SiteSettings

/// The timeline as two inline SVGs side by side: lane names, which stay put, and the lanes,
/// which scroll. A lane per process incarnation, one per tab, then the shared document's
/// revision and the cache's; steps, failures and the run's big moments as vertical rules.
struct Lanes {
    let timeline: RunTimeline
    let axis: TimeAxis
    let marks: RunMarks
    let epoch: EpochMillis

    static let axisHeight = 44.0
    static let checkHeight = 20.0
    static let processHeight = 22.0
    static let tabHeight = 26.0
    static let revisionHeight = 22.0
    static let stateHeight = 20.0
    static let labelWidth = 190.0

    /// A row of the timeline: its name, kind and top.
    private struct Row {
        var name: String
        var kind: String
        var top: Double
        var height: Double
        var middle: Double { top + height / 2 }
    }

    private var hasChecks: Bool { !timeline.checks.isEmpty || !marks.failures.isEmpty }

    private var rows: [Row] {
        var rows: [Row] = []
        var top = Self.axisHeight
        func add(_ name: String, _ kind: String, _ height: Double) {
            rows.append(Row(name: name, kind: kind, top: top, height: height))
            top += height
        }
        if hasChecks { add("failures", "checks", Self.checkHeight) }
        add("Safari", "safari", Self.stateHeight)
        if !timeline.alarms.isEmpty { add("alarm", "alarm", Self.stateHeight) }
        top += 4
        for lane in timeline.processes { add(lane.label, "process", Self.processHeight) }
        top += 8
        for lane in timeline.tabs { add("tab " + lane.name, "tab", Self.tabHeight) }
        top += 8
        if showsRevisions {
            add("shared document", "revision", Self.revisionHeight)
            add("cache", "revision", Self.revisionHeight)
        }
        return rows
    }

    /// The design's lanes (its shared document, its cache) are drawn unless the extension's own
    /// pages ran and neither ever held a revision: an extension of another design has neither.
    private var showsRevisions: Bool {
        !timeline.runsOwnPages || (timeline.shared + timeline.cache).contains { $0.revision != nil }
    }

    func draw(into page: inout RunPage.Page) {
        let rows = self.rows
        let height = (rows.last.map { $0.top + $0.height } ?? Self.axisHeight) + 14
        let byName = Dictionary(rows.map { ($0.kind + " " + $0.name, $0) }, uniquingKeysWith: { first, _ in first })
        page.add("<div class=\"timeline\">")
        page.add("<svg class=\"labels\" width=\"\(Int(Self.labelWidth))\" height=\"\(Int(height))\">")
        page.add("<text x=\"6\" y=\"14\" class=\"gaptext\">time</text><text x=\"6\" y=\"34\" class=\"gaptext\">step (line)</text>")
        for row in rows { page.add("<text x=\"6\" y=\"\(f(row.middle + 4))\">\(escape(row.name))</text>") }
        page.add("</svg>\n<div class=\"scroll\">")
        page.add("<svg class=\"lanes\" width=\"\(Int(axis.width.rounded(.up)))\" height=\"\(Int(height))\">")
        page.add(Self.definitions)
        gaps(height: height, into: &page)
        ticks(into: &page)
        if let row = byName["safari Safari"] { safari(row: row, into: &page) }
        if let row = byName["alarm alarm"] { alarms(row: row, into: &page) }
        for (index, lane) in timeline.processes.enumerated() {
            if let row = byName["process " + lane.label] { process(lane, index: index, row: row, into: &page) }
        }
        for lane in timeline.tabs {
            if let row = byName["tab tab " + lane.name] { tab(lane, row: row, into: &page) }
        }
        if showsRevisions {
            revisions(timeline.shared, row: rows[rows.count - 2], into: &page)
            revisions(timeline.cache, row: rows[rows.count - 1], into: &page)
        }
        arrows(byName, into: &page)
        rules(height: height, checks: hasChecks ? rows.first : nil, into: &page)
        page.add("</svg>\n</div>\n</div>")
    }

    // MARK: Time

    /// Long idle stretches as shaded breaks with their length.
    private func gaps(height: Double, into page: inout RunPage.Page) {
        for gap in axis.gaps where gap.isBreak {
            page.add("<g class=\"break\"><rect class=\"gapbreak\" x=\"\(f(gap.from + 2))\" y=\"0\" width=\"\(f(gap.to - gap.from - 4))\" height=\"\(f(height))\"/>"
                     + "<text class=\"gaptext\" x=\"\(f(gap.from + 4))\" y=\"\(f(height - 3))\">\(TimeAxis.readable(gap.millis))</text>"
                     + "<title>\(TimeAxis.readable(gap.millis)) with no line in the trace, drawn short\(dueIn(gap))</title></g>")
        }
    }

    /// What fell due in a stretch drawn short, though nothing ran then (Safari suspended, the
    /// device asleep): an alarm due there fires only when Safari runs again.
    private func dueIn(_ gap: TimeAxis.Gap) -> String {
        // The gap lies before line `gap.index`: an alarm due after the line before it and
        // before that line fell due inside.
        let inside = timeline.alarms.filter { alarm in
            alarm.due == gap.index && alarm.dueAt > timeline.times[gap.index - 1] && alarm.dueAt < timeline.times[gap.index]
        }
        return inside.isEmpty ? "" : "; the alarm fell due in it (at \(Trace.relative(inside[0].dueAt))) and fired only when Safari ran again"
    }

    /// The virtual time at each instant where it moved, where there is room for the label.
    private func ticks(into page: inout RunPage.Page) {
        var last = -1000.0
        for index in timeline.times.indices where index == 0 || timeline.times[index] != timeline.times[index - 1] {
            let x = axis.at(index)
            guard x - last >= 62 else { continue }
            last = x
            page.add("<text x=\"\(f(x))\" y=\"14\">\(Trace.relative(timeline.times[index]))</text>")
        }
    }

    // MARK: Safari and alarms

    /// Safari in front, in the background, suspended (iOS) or the device asleep, a band each.
    private func safari(row: Row, into page: inout RunPage.Page) {
        let colours: [RunTimeline.SafariSpan.State: String] = [.front: "#c8e6c9", .background: "#eceff1", .suspended: "#ffe0b2", .asleep: "#b0bec5"]
        let y = row.top + 3, h = row.height - 6
        page.add("<g data-lane=\"safari\">")
        for span in timeline.safari {
            let x = axis.at(span.from), width = max(axis.at(span.to) - x, 2)
            let words = span.state == .front ? "in front" : span.state.rawValue
            page.add("<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(h))\" fill=\"\(colours[span.state]!)\">"
                     + "<title>Safari \(words), \(time(span.from)) to \(time(span.to))</title></rect>")
            if width > Double(words.count) * 6.5 + 6 { page.add("<text x=\"\(f(x + 3))\" y=\"\(f(row.middle + 4))\" pointer-events=\"none\">\(words)</text>") }
        }
        page.add("</g>")
    }

    /// Each alarm from when it was set to how it ended, with the moment it fell due.
    private func alarms(row: Row, into page: inout RunPage.Page) {
        let y = row.top + 3, h = row.height - 6
        page.add("<g data-lane=\"alarm\">")
        for alarm in timeline.alarms {
            let x = axis.at(alarm.from), end = axis.at(alarm.to) + TimeAxis.slot / 2
            let due = "due at \(Trace.relative(alarm.dueAt))"
            page.add("<rect class=\"alarm\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(max(end - x, 2)))\" height=\"\(f(h))\" fill=\"#e1bee7\">"
                     + "<title>alarm set at \(time(alarm.from)), \(due), \(alarm.end.rawValue) at \(time(alarm.to))</title></rect>")
            if let index = alarm.due {
                let dx = axis.at(index)
                page.add("<line class=\"due\" x1=\"\(f(dx))\" x2=\"\(f(dx))\" y1=\"\(f(y - 2))\" y2=\"\(f(y + h + 2))\" stroke=\"#6a1b9a\" stroke-width=\"2\"><title>the alarm fell due, \(time(index))</title></line>")
            }
            let words = alarm.end.rawValue
            if end - x > Double(words.count) * 6.5 + 8 {
                page.add("<text x=\"\(f(end - Double(words.count) * 6.5 - 3))\" y=\"\(f(row.middle + 4))\" pointer-events=\"none\">\(words)</text>")
            } else {
                page.add("<text class=\"endnote\" x=\"\(f(end + 3))\" y=\"\(f(row.middle + 4))\">\(words)</text>")
            }
        }
        page.add("</g>")
    }

    // MARK: Processes

    private func process(_ lane: RunTimeline.ProcessLane, index: Int, row: Row, into page: inout RunPage.Page) {
        let from = axis.at(lane.from), to = axis.at(lane.to) + TimeAxis.slot / 2
        let y = row.top + 5, h = row.height - 10
        let end: String
        switch lane.end {
        case .running: end = "still running when the run ended"
        case .exited: end = "exited after its work"
        case .unloaded(let how): end = how
        case .killed(let how): end = how
        }
        let started = lane.startedFor.map { "started for \($0); " } ?? ""
        page.add("<g data-lane=\"process\" data-name=\"\(escape(lane.label))\"\(lane.startedFor.map { " data-started=\"\(escape($0))\"" } ?? "")>")
        page.add("<rect class=\"alive\" x=\"\(f(from))\" y=\"\(f(y))\" width=\"\(f(max(to - from, 3)))\" height=\"\(f(h))\">"
                 + "<title>\(escape(lane.label)): from \(time(lane.from)) to \(time(lane.to)); \(escape(started + end))</title></rect>")
        // Why it started, written at its start where there is room.
        if let reason = lane.startedFor, to - from > Double(reason.count + 4) * 5.5 {
            page.add("<text class=\"startnote\" x=\"\(f(from + 3))\" y=\"\(f(row.middle + 3))\" pointer-events=\"none\">for \(escape(reason))</text>")
        }
        for span in lane.spans {
            let x = axis.at(span.from)
            page.add("<rect class=\"\(span.state.rawValue)\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(max(axis.at(span.to) - x, 3)))\" height=\"\(f(h))\">"
                     + "<title>\(escape(lane.label)) \(escape(span.note)), \(time(span.from)) to \(time(span.to))</title></rect>")
        }
        for mark in lane.marks {
            let x = axis.at(mark.at) + TimeAxis.slot / 2
            let title = "<title>\(escape(lane.label)) \(escape(mark.note)) at \(time(mark.at))</title>"
            switch mark.kind {
            case .yield:
                page.add("<line class=\"yield\" x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"\(f(y))\" y2=\"\(f(y + h))\">\(title)</line>")
            case .fault:
                page.add("<path class=\"fault\" d=\"M\(f(x - 5)) \(f(y + h)) L\(f(x)) \(f(y - 3)) L\(f(x + 5)) \(f(y + h))Z\">\(title)</path>")
            case .timeout:
                page.add("<circle class=\"timeout\" cx=\"\(f(x))\" cy=\"\(f(row.middle))\" r=\"5\">\(title)</circle>")
            case .problem:
                page.add("<rect class=\"problem\" x=\"\(f(x - 4))\" y=\"\(f(y))\" width=\"8\" height=\"\(f(h))\">\(title)</rect>")
            }
        }
        // How it ended, in words beside the mark: which process missed what, without hovering.
        switch lane.end {
        case .killed(let how):
            page.add("<text class=\"killed\" x=\"\(f(to - 2))\" y=\"\(f(row.middle + 5))\" font-size=\"15\">✕<title>\(escape(lane.label)) \(escape(how)) at \(time(lane.to))</title></text>")
            page.add("<text class=\"endnote\" x=\"\(f(to + 12))\" y=\"\(f(row.middle + 4))\">\(escape(how))</text>")
        case .unloaded(let how):
            page.add("<rect class=\"unloaded\" x=\"\(f(to - 2))\" y=\"\(f(y))\" width=\"\(f(h))\" height=\"\(f(h))\"><title>\(escape(lane.label)) \(escape(how)) at \(time(lane.to))</title></rect>")
            page.add("<text class=\"endnote\" x=\"\(f(to + h + 2))\" y=\"\(f(row.middle + 4))\">\(escape(how))</text>")
        case .running, .exited: break
        }
        page.add("</g>")
    }

    private func arrows(_ rows: [String: Row], into page: inout RunPage.Page) {
        for arrow in timeline.arrows {
            // A process's lane, or a tab's (a page's message).
            guard let from = rows["process " + arrow.from] ?? rows["tab " + arrow.from], let to = rows["process " + arrow.to] ?? rows["tab " + arrow.to] else { continue }
            let x1 = axis.at(arrow.fromIndex) + TimeAxis.slot / 2, x2 = axis.at(arrow.toIndex) + TimeAxis.slot / 2
            let down = to.top > from.top
            let y1 = down ? from.top + from.height - 4 : from.top + 4
            let y2 = down ? to.top + 3 : to.top + to.height - 3
            let kind = arrow.outcome == .timedOut ? "timedout" : arrow.outcome.rawValue
            page.add("<path class=\"arrow \(kind)\" data-outcome=\"\(arrow.outcome.rawValue)\" d=\"M\(f(x1)) \(f(y1)) L\(f(max(x2, x1 + 2))) \(f(y2))\" marker-end=\"url(#head-\(kind))\">"
                     + "<title>\(escape(arrow.from)) → \(escape(arrow.to)): \(escape(arrow.note)) (\(arrow.outcome.rawValue)), \(time(arrow.fromIndex))</title></path>")
        }
    }

    // MARK: Tabs and revisions

    private func tab(_ lane: RunTimeline.TabLane, row: Row, into page: inout RunPage.Page) {
        let y = row.top + 7, h = row.height - 11
        page.add("<g data-lane=\"tab\" data-name=\"\(escape(lane.name))\">")
        let firsts = Set(lane.firsts.map(\.at))
        for segment in lane.segments {
            let x = axis.at(segment.from), width = max(axis.at(segment.to) - x, 3)
            let shown = segment.decision
            if let look = segment.page {
                // The extension's own page: what its scripts left on it.
                page.add("<rect class=\"page\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(h))\" fill=\"#eef3fb\" stroke=\"#9ab\">"
                         + "<title>tab \(escape(lane.name))'s page: \(escape(look)), \(time(segment.from)) to \(time(segment.to))</title></rect>")
                let room = Int((width - 7) / 6.5)
                if room >= 4 {
                    let words = look.count <= room ? look : String(look.prefix(room - 1)) + "…"
                    page.add("<text x=\"\(f(x + 3))\" y=\"\(f(row.middle + 4))\" fill=\"#222\" pointer-events=\"none\">\(escape(words))</text>")
                }
                continue
            }
            if shown == nil && timeline.runsOwnPages {
                // The extension's own page before its scripts set anything: no decision is due.
                page.add("<rect class=\"page\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(h))\" fill=\"#fff\" stroke=\"#9ab\">"
                         + "<title>tab \(escape(lane.name))'s page: loaded, its scripts have set nothing yet, \(time(segment.from)) to \(time(segment.to))</title></rect>")
                continue
            }
            let fill = shown.map { $0.enabled ? Self.colour(of: $0.theme) : "url(#disabled)" } ?? "#fff"
            let detail = shown.map { "\($0.enabled ? $0.theme : "disabled") (\($0.reason))" } ?? "no decision applied yet"
            page.add("<rect class=\"\(shown == nil ? "waiting" : "shown")\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(h))\" fill=\"\(fill)\">"
                     + "<title>tab \(escape(lane.name)): \(escape(detail)), \(time(segment.from)) to \(time(segment.to))</title></rect>")
            // The look and its reason, or as much of it as there is room for; past the
            // first-decision mark and its "C" when one stands at the start.
            let inset = firsts.contains(segment.from) ? 14.0 : 3.0
            let candidates = shown.map { [($0.enabled ? $0.theme : "off") + " · " + $0.reason, $0.enabled ? $0.theme : "off"] } ?? ["no decision"]
            if let words = candidates.first(where: { width > Double($0.count) * 6.5 + inset + 4 }) {
                let dark = shown.map { $0.enabled && ["dark", "invert", "gray"].contains($0.theme) } ?? false
                // Over the striped "off" band the words get a plate, so they stay readable.
                if shown?.enabled == false {
                    page.add("<rect x=\"\(f(x + inset - 1))\" y=\"\(f(row.middle - 6))\" width=\"\(f(Double(words.count) * 6.5 + 2))\" height=\"12\" fill=\"#fff\" opacity=\"0.85\" pointer-events=\"none\"/>")
                }
                page.add("<text x=\"\(f(x + inset))\" y=\"\(f(row.middle + 4))\" fill=\"\(dark ? "#fff" : "#222")\" pointer-events=\"none\">\(escape(words))</text>")
            }
        }
        for first in lane.firsts {
            let x = axis.at(first.at)
            let fromCache = first.repliesBefore == 0
            let what = fromCache ? "before any native reply (from the cache or the built-in defaults)" : "after \(first.repliesBefore) native \(first.repliesBefore == 1 ? "reply" : "replies")"
            page.add("<g class=\"first\"><path d=\"M\(f(x - 4)) \(f(row.top + 7)) L\(f(x)) \(f(row.top)) L\(f(x + 4)) \(f(row.top + 7))Z\"/>"
                     + (fromCache ? "<text x=\"\(f(x + 5))\" y=\"\(f(row.top + 7))\" font-size=\"9\">C</text>" : "")
                     + "<title>tab \(escape(lane.name)): first decision since its page loaded, at \(time(first.at)), \(what)</title></g>")
        }
        for stretch in lane.hidden {
            let x = axis.at(stretch.lowerBound)
            page.add("<rect class=\"hidden\" x=\"\(f(x))\" y=\"\(f(row.top + 1))\" width=\"\(f(max(axis.at(stretch.upperBound) - x, 2)))\" height=\"\(f(row.height - 2))\">"
                     + "<title>profile \(escape(lane.profile)) out of sight, \(time(stretch.lowerBound)) to \(time(stretch.upperBound))</title></rect>")
        }
        page.add("</g>")
    }

    /// A revision lane: a band per stretch with one revision, its number written in it.
    /// With several profiles, each stretch of the cache lane names whose cache it shows.
    private func revisions(_ readings: [RunTimeline.Revision], row: Row, into page: inout RunPage.Page) {
        var stretches: [(from: Int, revision: Int?, note: String, profile: String?)] = []
        for reading in readings where stretches.isEmpty || stretches.last!.revision != reading.revision || stretches.last!.profile != reading.profile {
            stretches.append((reading.at, reading.revision, reading.note, reading.profile))
        }
        let profiles = Set(readings.compactMap(\.profile)).count > 1
        let y = row.top + 4, h = row.height - 8
        page.add("<g data-lane=\"revision\" data-name=\"\(escape(row.name))\">")
        for (index, stretch) in stretches.enumerated() {
            let x = axis.at(stretch.from)
            let end = index + 1 < stretches.count ? axis.at(stretches[index + 1].from) : axis.at(timeline.count)
            let words = (profiles ? "\(stretch.profile ?? ""): " : "") + (stretch.revision.map { "r\($0)" } ?? "none")
            page.add("<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(max(end - x, 2)))\" height=\"\(f(h))\" fill=\"\(index % 2 == 0 ? "#e3f2fd" : "#bbdefb")\">"
                     + "<title>\(escape(row.name)): \(words) at \(time(stretch.from)) (\(escape(stretch.note)))</title></rect>")
            if end - x > Double(words.count) * 6.5 + 4 { page.add("<text x=\"\(f(x + 3))\" y=\"\(f(row.middle + 4))\" pointer-events=\"none\">\(words)</text>") }
        }
        // Every write, even of a revision already written (two writers that both made r2).
        for reading in readings where reading.note.hasPrefix("written by") {
            let x = axis.at(reading.at) + TimeAxis.slot / 2
            page.add("<line class=\"write\" x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"\(f(y))\" y2=\"\(f(y + h))\" stroke=\"#0d47a1\" stroke-width=\"2\">"
                     + "<title>\(escape(row.name)): r\(reading.revision.map(String.init) ?? "?") \(escape(reading.note)) at \(time(reading.at))</title></line>")
        }
        page.add("</g>")
    }

    // MARK: Rules

    /// Steps, failures, failed checks and the run's big moments, across every lane.
    private func rules(height: Double, checks: Row?, into page: inout RunPage.Page) {
        let bottom = height - 14
        for step in marks.steps {
            let x = axis.at(step.traceIndex)
            page.add("<g id=\"step-\(step.line)\" class=\"stepmark\"><line class=\"steprule\" x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"22\" y2=\"\(f(bottom))\"/>"
                     + "<title>line \(step.line) at \(Trace.relative(step.at - epoch))</title></g>")
        }
        // Step numbers too close to be read apart become a range (`13–16`), linked to the first.
        for label in Self.labels(marks.steps.map { (x: axis.at($0.traceIndex), item: $0.line) }, width: { lines in
            6.5 * Double((lines.count == 1 ? "\(lines[0])" : "\(lines.first!)–\(lines.last!)").count) + 6
        }) {
            let text = label.items.count == 1 ? "\(label.items[0])" : "\(label.items.first!)–\(label.items.last!)"
            page.add("<a href=\"#line-\(label.items[0])\"><text x=\"\(f(label.x + 2))\" y=\"34\" fill=\"#555\">\(text)</text></a>")
        }
        for event in timeline.events {
            let x = axis.at(event.at)
            let healed = event.note == "healed"
            page.add("<g class=\"event\"\(healed ? " id=\"healed\"" : "")><line class=\"eventrule\" x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"18\" y2=\"\(f(bottom))\"/>"
                     + "<text x=\"\(f(x + 3))\" y=\"\(f(bottom + 11))\">\(healed ? "healed" : "power lost")</text>"
                     + "<title>\(escape(event.note)) at \(time(event.at))</title></g>")
        }
        if let checks {
            for check in timeline.checks {
                let x = axis.at(check.at) + TimeAxis.slot / 2
                page.add("<path class=\"check\" d=\"M\(f(x)) \(f(checks.top + 3)) L\(f(x + 6)) \(f(checks.middle)) L\(f(x)) \(f(checks.top + checks.height - 3)) L\(f(x - 6)) \(f(checks.middle))Z\">"
                         + "<title>\(escape(check.note)) at \(time(check.at))</title></path>")
            }
        }
        // A rule per failure at its moment, and labels that name the lines failing there.
        var moments: [(x: Double, item: Int)] = []
        for (index, failure) in marks.failures.enumerated() {
            let x = axis.at(moment(of: failure))
            moments.append((x, index))
            page.add("<line id=\"failure-\(index)\" class=\"failrule\" x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"\(f(checks?.top ?? 22))\" y2=\"\(f(bottom))\">"
                     + "<title>\(escape(Self.describe(failure)))</title></line>")
        }
        for label in Self.labels(moments, width: { items in 14 + 6.2 * Double(Self.failureWords(items.map { marks.failures[$0] }).count) }) {
            let failures = label.items.map { marks.failures[$0] }
            let lines = Set(failures.map { $0.line }).sorted().map(String.init).joined(separator: " ")
            page.add("<g class=\"failure\" data-line=\"\(lines)\"><a href=\"#problem-\(label.items[0])\"><text class=\"killed\" x=\"\(f(label.x + 3))\" y=\"\(f((checks?.middle ?? 30) + 4))\">"
                     + "✕ \(escape(Self.failureWords(failures)))</text></a><title>\(escape(failures.map(Self.describe).joined(separator: "\n")))</title></g>")
        }
    }

    /// Where a failure happened: at the failed check it reports (a liveness deadline, a
    /// background that started without its cache), else where the runner found it.
    private func moment(of failure: RunMarks.Failure) -> Int {
        timeline.checks.last { failure.message.contains($0.note) }?.at ?? failure.traceIndex
    }

    static func describe(_ failure: RunMarks.Failure) -> String {
        (failure.afterHealing ? "after the run was healed" : "line \(failure.line), \(failure.step)") + " (\(failure.property)): \(failure.message)"
    }

    /// `lines 9, 12`, `line 4 and after healing`.
    static func failureWords(_ failures: [RunMarks.Failure]) -> String {
        let lines = Set(failures.filter { !$0.afterHealing }.map(\.line)).sorted().map(String.init)
        var words = lines.isEmpty ? "" : (lines.count == 1 ? "line " : "lines ") + lines.joined(separator: ", ")
        if failures.contains(where: \.afterHealing) { words += (words.isEmpty ? "" : " and ") + "after healing" }
        return words
    }

    /// Labels left to right, each taking the items that start before it ends.
    static func labels<Item>(_ placed: [(x: Double, item: Item)], width: ([Item]) -> Double = { _ in 26 }) -> [(x: Double, items: [Item])] {
        var labels: [(x: Double, items: [Item])] = []
        for (x, item) in placed.enumerated().sorted(by: { ($0.element.x, $0.offset) < ($1.element.x, $1.offset) }).map(\.element) {
            if let last = labels.last, x < last.x + width(last.items) {
                labels[labels.count - 1].items.append(item)
            } else {
                labels.append((x, [item]))
            }
        }
        return labels
    }

    // MARK: Helpers

    private func time(_ index: Int) -> String {
        guard !timeline.times.isEmpty else { return "+0.000s" }
        return Trace.relative(timeline.times[min(max(index, 0), timeline.count - 1)])
    }

    private func escape(_ text: String) -> String { RunPage.escape(text) }

    private func f(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// A theme as a page shows it.
    static func colour(of theme: String) -> String {
        switch theme {
        case "dark": "#263238"
        case "gray": "#8d8d8d"
        case "sepia": "#d7b98e"
        case "invert": "#5e35b1"
        default: "#ffb300"
        }
    }

    private static let definitions = """
        <defs>
        <pattern id="disabled" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><rect width="2" height="6" fill="#777"/></pattern>
        \(["request": "#546e7a", "applied": "#2e7d32", "unchanged": "#9e9e9e", "refused": "#ef6c00", "dropped": "#c62828", "timedout": "#c62828", "message": "#6a1b9a", "page": "#00838f"]
            .sorted { $0.key < $1.key }
            .map { "<marker id=\"head-\($0.key)\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L8 4L0 8Z\" fill=\"\($0.value)\"/></marker>" }
            .joined(separator: "\n"))
        </defs>
        """
}
