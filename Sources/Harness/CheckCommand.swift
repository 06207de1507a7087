import HarnessCore
/// `harness check`: validates scenario files without running them.
enum CheckCommand: HarnessCommand {
    static let name = "check"
    static let abstract = "Check scenario files without running them."
    static let usage = "harness check [FILE|FOLDER ...]\n       harness check --extension DIR"
    static let discussion = """
        Reads each file whole, as 'harness run' does before it starts anything: every step and
        expectation, and the document files the setup names. Prints a line per file (ok, with
        its steps, or INVALID) and every mistake on stderr with its file and line and the
        nearest valid word. With no file, checks every scenario under Scenarios/.
        --extension DIR reads an unpacked Manifest V3 extension folder as Safari does before
        it runs anything: manifest.json (manifest_version 3; a background of service_worker or
        scripts, classic or module, never persistent; content scripts with match patterns,
        run_at and their files; action.default_popup; permissions; default_locale with
        _locales and __MSG_name__), every file it names, and the popup's page (its scripts must
        be files of the extension: inline scripts and inline event handlers are refused). It
        prints every mistake with its file and JSON path or line, and warnings (a missing icon,
        a permission or key Safari would ignore). With node installed, it then loads the
        background once in the harness's JavaScript runtime and prints the events it listens
        for, and loads a page for each content script entry, the popup and the options page
        (options_ui.page or options_page, checked as the popup's page is); each then runs on
        until nothing is pending or 30 s of virtual time have passed (its timers, its storage
        answers, its alarms raised to Safari's minimum; no native request is answered). An
        exception or rejection its scripts do not catch (with its file, line and column), or a
        load that never ends, is a mistake. The first line says ok only when there is none.
        It also lists, a line per part (lacks), the browser.* members and the web's globals
        the scripts' text uses that the runtime lacks: a list to look at, not a mistake.
        Without node it says it did not load them.
        Exit status: 0 when every file is valid, 2 when any has a mistake.
        """

    static func run(_ arguments: [String]) throws(CommandError) -> Int32 {
        let args = try CommandLineArguments(arguments, options: ["extension"], flags: [])
        if let folder = args.value("extension") {
            try args.noPositionals()
            return checkExtension(folder)
        }
        let files = try ScenarioFiles.files(args.positionals)
        if files.isEmpty { throw .usage("no scenario files found") }
        var invalid = 0
        for file in files {
            switch ScenarioFiles.check(file) {
            case .success(let scenario):
                Terminal.out("ok       \(file)  \(scenario.lines.count) steps\n")
            case .failure(let errors):
                invalid += 1
                Terminal.out("INVALID  \(file)  \(errors.errors.count) mistake(s)\n")
                Terminal.err(errors.description + "\n")
            }
        }
        Terminal.out("\(files.count - invalid) valid, \(invalid) invalid\n")
        return invalid == 0 ? 0 : 2
    }

    /// What loading a part of the extension came to: the line that says what it did, and its
    /// mistakes (each with its place after the folder, or none), which make the check fail.
    private struct Verdict {
        var loaded: String
        var mistakes: [(place: String, message: String)] = []
    }

    /// The background loaded once in the JavaScript runtime, as Safari loads it, and run on for
    /// a while: an exception its scripts do not catch, or a load that never ends, is a mistake.
    private static func loadBackground(_ folder: String, node: String) -> Verdict {
        let load = ExtensionRuntime.load(extension: folder, node: node)
        for entry in load.console where entry.level == .warn { Terminal.err("warning: \(entry.message)\n") }
        var listeners = load.listeners.isEmpty ? "no event at its load's end" : load.listeners.map(\.rawValue).joined(separator: ", ")
        if !load.laterListeners.isEmpty {
            listeners += "; then also for \(load.laterListeners.map(\.rawValue).joined(separator: ", ")), added after its load "
                + "(heard from then on: the event that wakes a background misses them)"
        } else if load.listeners.isEmpty {
            listeners += " (nothing wakes it)"
        }
        var verdict = Verdict(loaded: "the background listens for \(listeners)")
        if let failure = load.failure { verdict.mistakes.append(("", "the background did not load: \(failure)")) }
        verdict.mistakes += load.uncaught.map { (($0.at.map { "/" + $0 } ?? ""), $0.message) }
        return verdict
    }

    /// The extension's own pages loaded once in the pages' runtime, and run on for a while: a
    /// page for each content script entry (at an address its first match pattern matches) and
    /// the popup and the options page. An exception their scripts do not catch is a mistake.
    private static func loadPages(_ manifest: ExtensionManifest, node: String) -> Verdict {
        let load = PageRuntime.load(manifest, node: node)
        for entry in load.console where entry.level == "warn" || (entry.level == "error" && !entry.message.hasPrefix("Uncaught")) {
            Terminal.err("warning: \(entry.page): \(entry.message)\n")
        }
        var verdict = Verdict(loaded: load.pages.joined(separator: ", "))
        if let failure = load.failure { verdict.mistakes.append(("", "the pages did not load: \(failure)")) }
        verdict.mistakes += load.uncaught.map { (($0.at.map { "/" + $0 } ?? "") + " (\($0.page))", $0.message) }
        return verdict
    }

    /// What the scripts use that the runtime lacks, read from their text, a line per part.
    private static func printLacks(_ folder: String, node: String) {
        switch LackedAPIs.read(extension: folder, node: node) {
        case .success(let parts):
            for part in parts where !(part.api.isEmpty && part.globals.isEmpty) {
                let name = ["background": "the background", "content": "the content scripts", "popup": "the popup", "options": "the options page"][part.part] ?? part.part
                Terminal.out("lacks    \(name) use\(part.part == "content" ? "" : "s") what the runtime lacks: \((part.api + part.globals).joined(separator: ", "))\n")
            }
        case .failure(let failure):
            Terminal.err("warning: the scripts could not be read for what the runtime lacks: \(failure)\n")
        }
    }

    /// `--extension DIR`: the folder's manifest and every file it names.
    private static func checkExtension(_ folder: String) -> Int32 {
        switch ExtensionManifest.load(folder: folder) {
        case .success(let (manifest, warnings)):
            for warning in warnings { Terminal.err("warning: \(warning)\n") }
            let parts = [manifest.background.map { "a \($0.persistent ? "persistent background (macOS only: Safari on iOS refuses it)" : "background") of \($0.scripts.count) \($0.kind.rawValue) script(s)" },
                         manifest.contentScripts.isEmpty ? nil : "\(manifest.contentScripts.count) content script entr\(manifest.contentScripts.count == 1 ? "y" : "ies")",
                         manifest.popup.map { "the popup \($0)" }, manifest.optionsPage.map { "the options page \($0)" }].compactMap { $0 }
            let summary = "\(manifest.name) \(manifest.version): \(parts.joined(separator: ", "))"
            let hasPages = !manifest.contentScripts.isEmpty || manifest.popup != nil || manifest.optionsPage != nil
            guard manifest.background != nil || hasPages else {
                Terminal.out("ok       \(folder)  \(summary)\n")
                return 0
            }
            guard let node = ExtensionRuntime.installedNode else {
                Terminal.out("ok       \(folder)  \(summary)\n")
                Terminal.out("note     node is not installed: the extension's scripts were not loaded\n")
                return 0
            }
            // The first line says ok only when the manifest is valid and every part loaded and
            // ran on cleanly.
            let jsdomMissing = hasPages ? PageRuntime.jsdomMissing : nil
            let verdicts = [manifest.background == nil ? nil : loadBackground(folder, node: node),
                            hasPages && jsdomMissing == nil ? loadPages(manifest, node: node) : nil]
                .compactMap { $0 }
            let mistakes = verdicts.flatMap(\.mistakes)
            if mistakes.isEmpty {
                Terminal.out("ok       \(folder)  \(summary)\n")
            } else {
                Terminal.out("INVALID  \(folder)  \(summary): \(mistakes.count) mistake(s) while loading and running on\n")
            }
            for verdict in verdicts { Terminal.out("loaded   \(verdict.loaded)\n") }
            if let jsdomMissing { Terminal.out("note     \(jsdomMissing): they were not loaded\n") }
            printLacks(folder, node: node)
            for mistake in mistakes { Terminal.err("\(folder)\(mistake.place): \(mistake.message)\n") }
            return mistakes.isEmpty ? 0 : 2
        case .failure(let problems):
            Terminal.out("INVALID  \(folder)  \(problems.errors.count) mistake(s)\n")
            Terminal.err(problems.description + "\n")
            return 2
        }
    }
}
