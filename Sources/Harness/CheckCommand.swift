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
        for; an exception its scripts do not catch while loading (with its file, line and
        column) or a load that never ends is a mistake. Without node it says it did not load it.
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

    /// The background loaded once in the JavaScript runtime, as Safari loads it: an exception
    /// its scripts do not catch while loading, or a load that never ends, is a mistake.
    private static func loadBackground(_ folder: String, node: String) -> Int32 {
        let load = ExtensionRuntime.load(extension: folder, node: node)
        for entry in load.console where entry.level == .warn { Terminal.err("warning: \(entry.message)\n") }
        let listeners = load.listeners.isEmpty ? "no event (nothing wakes it)" : load.listeners.map(\.rawValue).joined(separator: ", ")
        return verdict(folder, load: (failure: "the background did not load", verb: "the background loads"), failure: load.failure,
                       uncaught: load.uncaught.map { (($0.at.map { "/" + $0 } ?? ""), $0.message) },
                       loaded: "the background listens for \(listeners)")
    }

    /// The extension's own pages loaded once in the pages' runtime: a page for each content
    /// script entry (at an address its first match pattern matches) and the popup. An exception
    /// their scripts do not catch while loading is a mistake.
    private static func loadPages(_ manifest: ExtensionManifest, node: String) -> Int32 {
        let load = PageRuntime.load(manifest, node: node)
        for entry in load.console where entry.level == "warn" || (entry.level == "error" && !entry.message.hasPrefix("Uncaught")) {
            Terminal.err("warning: \(entry.page): \(entry.message)\n")
        }
        return verdict(manifest.folder, load: (failure: "the pages did not load", verb: "the pages load"), failure: load.failure,
                       uncaught: load.uncaught.map { (($0.at.map { "/" + $0 } ?? "") + " (\($0.page))", $0.message) },
                       loaded: load.pages.joined(separator: ", "))
    }

    /// What loading a part of the extension came to: it could not run, its scripts threw
    /// (`uncaught`: each error's place after the folder, and its message), or it `loaded`.
    private static func verdict(_ folder: String, load part: (failure: String, verb: String), failure: String?,
                                uncaught: [(place: String, message: String)], loaded: String) -> Int32 {
        if let failure {
            Terminal.out("INVALID  \(folder)  \(part.failure)\n")
            Terminal.err("\(folder): \(failure)\n")
            return 2
        }
        guard uncaught.isEmpty else {
            Terminal.out("INVALID  \(folder)  \(uncaught.count) uncaught error(s) while \(part.verb)\n")
            for error in uncaught { Terminal.err("\(folder)\(error.place): \(error.message)\n") }
            return 2
        }
        Terminal.out("loaded   \(loaded)\n")
        return 0
    }

    /// `--extension DIR`: the folder's manifest and every file it names.
    private static func checkExtension(_ folder: String) -> Int32 {
        switch ExtensionManifest.load(folder: folder) {
        case .success(let (manifest, warnings)):
            for warning in warnings { Terminal.err("warning: \(warning)\n") }
            let parts = [manifest.background.map { "a background of \($0.scripts.count) \($0.kind.rawValue) script(s)" },
                         manifest.contentScripts.isEmpty ? nil : "\(manifest.contentScripts.count) content script entr\(manifest.contentScripts.count == 1 ? "y" : "ies")",
                         manifest.popup.map { "the popup \($0)" }].compactMap { $0 }
            Terminal.out("ok       \(folder)  \(manifest.name) \(manifest.version): \(parts.joined(separator: ", "))\n")
            let hasPages = !manifest.contentScripts.isEmpty || manifest.popup != nil
            guard manifest.background != nil || hasPages else { return 0 }
            guard let node = ExtensionRuntime.installedNode else {
                Terminal.out("note     node is not installed: the extension's scripts were not loaded\n")
                return 0
            }
            let background = manifest.background == nil ? 0 : loadBackground(folder, node: node)
            return max(background, hasPages ? loadPages(manifest, node: node) : 0)
        case .failure(let problems):
            Terminal.out("INVALID  \(folder)  \(problems.errors.count) mistake(s)\n")
            Terminal.err(problems.description + "\n")
            return 2
        }
    }
}
