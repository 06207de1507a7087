#if canImport(Glibc)
import Glibc
#endif
import ProcessKit

/// A folder of run pages with an `index.html` listing them: what `harness run --html DIR`
/// and `harness explore --out DIR` write. Each file is written whole under a temporary name
/// and renamed, so a page is never seen half-written.
package struct ReportFolder: Sendable {
    package let directory: String
    private var entries: [Entry] = []
    private var names: Set<String> = []

    /// Makes the folder (and its parents) if it is missing.
    package init(_ directory: String) throws(StoreError) {
        // An empty name would put the pages at the root of the file system.
        guard !directory.isEmpty else { throw StoreError("an empty folder name", errno: EINVAL) }
        self.directory = directory
        var path = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o755) != 0 && errno != EEXIST { throw StoreError("mkdir \(path)", errno: errno) }
        }
    }

    /// A line of the index: a run and its page, or a scenario that could not run as written.
    enum Entry: Sendable {
        case page(RunPage.Run, file: String)
        case unusable(name: String, steps: Int, reason: String)
    }

    /// Writes the run's page and returns its file name within the folder.
    @discardableResult
    package mutating func add(_ run: RunPage.Run) throws(StoreError) -> String {
        let file = fileName(for: run.scenario.name)
        try write(RunPage.html(run), to: file)
        entries.append(.page(run, file: file))
        return file
    }

    /// Lists a scenario that could not run as written (it has no page).
    package mutating func addUnusable(_ scenario: Scenario, reason: String) {
        entries.append(.unusable(name: scenario.name, steps: scenario.lines.count, reason: reason))
    }

    /// Writes `index.html` for the pages added so far.
    package func writeIndex(title: String) throws(StoreError) {
        try write(Self.index(title: title, entries: entries), to: "index.html")
    }

    /// `Scenarios/lifecycle/a-b.scenario` → `lifecycle--a-b.html`, any other path by its last
    /// part (`/tmp/out/seed-7.scenario` → `seed-7.html`); unique within the folder.
    private mutating func fileName(for scenario: String) -> String {
        var base = Substring(scenario)
        if let range = scenario.ranges(of: "Scenarios/").last {
            base = scenario[range.upperBound...]
        } else if let slash = scenario.lastIndex(of: "/") {
            base = scenario[scenario.index(after: slash)...]
        }
        if base.hasSuffix(".scenario") { base.removeLast(".scenario".count) }
        var name = String(base)
        name = name.split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "-" }) }
            .joined(separator: "--")
        if name.isEmpty || name.hasPrefix(".") { name = "run" + name }
        let stem = name
        name += ".html"
        var n = 2
        while names.contains(name) || name == "index.html" {
            name = "\(stem)-\(n).html"
            n += 1
        }
        names.insert(name)
        return name
    }

    private func write(_ text: String, to name: String) throws(StoreError) {
        let temporary = directory + "/." + name + ".tmp"
        try FileIO.writeSynced(Array(text.utf8), to: temporary, name: name)
        if rename(temporary, directory + "/" + name) != 0 { throw StoreError("rename \(name)", errno: errno) }
    }

    static func index(title: String, entries: [Entry]) -> String {
        var passed = 0, failed = 0, unusable = 0
        for entry in entries {
            switch entry {
            case .page(let run, _): if run.outcome.passed { passed += 1 } else { failed += 1 }
            case .unusable: unusable += 1
            }
        }
        var page = RunPage.Page()
        page.add("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>\(RunPage.escape(title))</title>")
        page.add("<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}"
                 + "td,th{padding:.2em .8em;border-bottom:1px solid #eee;text-align:left}td.n{text-align:right}"
                 + ".pass{color:#1b5e20}.fail{color:#b71c1c;font-weight:bold}</style>\n</head>\n<body>")
        page.add("<h1>\(RunPage.escape(title))</h1>\n<p>\(passed) passed, \(failed) failed" + (unusable == 0 ? "" : ", \(unusable) could not run as written") + "</p>")
        page.add("<table>\n<tr><th>result</th><th>scenario</th><th>steps</th><th>virtual time</th><th>wall time</th></tr>")
        for entry in entries {
            guard case .page(let run, let file) = entry else {
                if case .unusable(let name, let steps, let reason) = entry {
                    page.add("<tr class=\"run\"><td class=\"fail\">ERROR</td><td>\(RunPage.escape(name))<br><small>\(RunPage.escape(reason))</small></td>"
                             + "<td class=\"n\">\(steps)</td><td></td><td></td></tr>")
                }
                continue
            }
            let passed = run.outcome.passed
            page.add("<tr class=\"run\"><td class=\"\(passed ? "pass" : "fail")\">\(passed ? "pass" : "FAIL")</td>"
                     + "<td><a href=\"\(RunPage.escape(file))\">\(RunPage.escape(run.scenario.name))</a></td>"
                     + "<td class=\"n\">\(run.scenario.lines.count)</td><td class=\"n\">\(TimeAxis.readable(run.outcome.virtualTime))</td>"
                     + "<td class=\"n\">\(RunPage.milliseconds(run.wallSeconds)) ms</td></tr>")
        }
        page.add("</table>\n</body>\n</html>")
        return page.text
    }
}
