import ProcessKit
import SiteSettings

/// Turns a scenario's text into typed steps, checking every line before anything runs. Every
/// mistake in the file is reported (not only the first), each with its line, what was expected
/// and the nearest valid word.
///
/// Lines end with LF, CRLF or CR. A word that starts with `#` starts a comment to the end of
/// the line (so `https://a.example/#top` keeps its fragment). The first comment block is the
/// scenario's description.
struct ScenarioParser {
    let file: String
    var errors: [ScenarioError] = []
    /// Whether an action came yet: setup steps must come before it.
    var started = false
    /// The profile in front, and the tabs open in each profile (by the line that opened them).
    var profile = Simulation.defaultProfile
    var openTabs: [String: [TabID: Int]] = [:]
    var closedTabs: [String: [TabID: Int]] = [:]
    /// Processes held by a `hold` step and not yet released.
    var holds: Set<ProcessName> = []
    var appEdits = 0
    /// The page each open tab shows, the tab the popup is open on, the platform, and the
    /// lines of the setup steps that may come once (and of the first shared and cache lines).
    var urls: [String: [TabID: String]] = [:]
    var popupTab: TabID?
    /// The extension's own pages run (`extension DIR pages`).
    var ownPages = false
    var platform = Simulation.Platform.iOS
    var setupLines: [String: Int] = [:]
    /// The App Group suites the lines name (with the first line of each), and those the
    /// `expect group defaults` lines read.
    var suitesNamed: [String: Int] = [:]
    var suitesExpected: [(suite: String, line: Int)] = []

    init(file: String) { self.file = file }

    /// Reads the whole text; throws every mistake found.
    mutating func parse(_ text: String) throws(ScenarioErrors) -> Scenario {
        var description: [String] = []
        var inHeader = true
        var lines: [Scenario.Line] = []
        for (index, raw) in Self.lines(of: text).enumerated() {
            let number = index + 1
            let words = Self.words(of: raw)
            guard !words.isEmpty else {
                let trimmed = raw.drop { $0 == " " || $0 == "\t" }
                if trimmed.hasPrefix("#") {
                    if inHeader { description.append(String(trimmed.dropFirst().drop { $0 == " " })) }
                } else if !description.isEmpty {
                    inHeader = false
                }
                continue
            }
            inHeader = false
            do {
                let step = try self.step(Cursor(file: file, line: number, words: words))
                lines.append(Scenario.Line(number: number, text: words.joined(separator: " "), step: step))
            } catch {
                errors.append(error)
            }
        }
        let unnamed = unnamedSuites() + probeMistakes(lines)
        if !unnamed.isEmpty {
            errors = (errors + unnamed).enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        }
        if lines.isEmpty && errors.isEmpty {
            errors.append(ScenarioError(file: file, line: 0, message: "the scenario has no steps"))
        }
        if !errors.isEmpty { throw ScenarioErrors(errors) }
        return Scenario(name: file, description: description.joined(separator: " "), lines: lines)
    }

    // MARK: - Steps

    private mutating func step(_ cursor: Cursor) throws(ScenarioError) -> Step {
        var words = cursor
        let verb = words.words[0]
        let step: Step
        switch verb {
        case "platform":
            step = .platform(try words.choose(Simulation.Platform.self))
        case "epoch":
            let text = try words.next("an ISO 8601 time")
            guard let time = Timestamp.parse(text) else { throw words.error("'\(text)' is not an ISO 8601 time (as 2026-03-01T09:00:00Z)") }
            step = .epoch(time)
        case "seed":
            let text = try words.next("a number")
            guard let value = UInt64(text) else { throw words.error("'\(text)' is not a seed (a whole number)") }
            step = .seed(value)
        case "shared":
            switch try words.choose(["defaults", "site", "file", "legacy", "damaged"]) {
            case "legacy": step = .sharedLegacy(enabled: try words.choose(["enabled", "disabled"]) == "enabled")
            case "damaged": step = .sharedDamaged
            case let kind: step = .shared(try startingDocument(kind, &words))
            }
        case "fresh-install":
            step = .freshInstall
        case "group":
            step = try groupDefaults(&words)
        case "probe":
            step = .probe(words.atEnd ? nil : try words.next(""))
            // A probe runs the extension's own pages.
            ownPages = true
        case "watchdog":
            step = .watchdog(milliseconds: Int(try duration(try words.next("a duration of wall time (500ms, 2s)"), words)))
        case "heap-limit":
            let text = try words.next("a size in MiB (64MiB)")
            guard text.hasSuffix("MiB"), let mebibytes = Int(text.dropLast(3)) else {
                throw words.error("'\(text)' is not a size in MiB (64MiB)")
            }
            step = .heapLimit(mebibytes: mebibytes)
        case "alarm-minimum":
            step = .alarmMinimum(try duration(try words.next("a duration (30s, or 1m as older Safari releases had)"), words))
        case "background-load-time":
            step = .backgroundLoadTime(try duration(try words.next("a duration (250ms)"), words))
        case "expect-failure" where words.words.dropFirst().first == "invariant":
            _ = try words.next("invariant")
            let text = try words.next("an invariant's number")
            guard let number = Int(text), KnownFailure.invariants.contains(number) else {
                throw words.error("there is no invariant \(text) (they are numbered \(KnownFailure.invariants.lowerBound) to \(KnownFailure.invariants.upperBound))")
            }
            step = .expectFailure(invariant: number)
        case "extension":
            let folder = try words.next("an unpacked extension's folder (relative to the scenario)")
            let pages = words.atEnd ? false : try words.choose(["pages"]) == "pages"
            ownPages = ownPages || pages
            step = .extensionFolder(folder, pages: pages)
        case "fetch":
            let url = try words.next("the address the extension fetches")
            let text = try words.next("the answer's status (200)")
            guard let status = Int(text), (100...599).contains(status) else { throw words.error("a status is from 100 to 599, not '\(text)'") }
            let rest = words.rest()
            // `file PATH`: the body is a file's, which may hold what a line cannot (a `#`, runs
            // of spaces, lines).
            step = .fetchStub(url: url, status: status, body: rest.count == 2 && rest[0] == "file" ? .file(rest[1]) : .text(rest.joined(separator: " ")))
        case "cache":
            step = .cache(try startingDocument(try words.choose(["defaults", "site", "file"]), &words))
        case "profile":
            // Before the first action it chooses the profile in front at the start.
            profile = try profileName(try words.next("a profile name"), words)
            // The popup belongs to the profile that was in front.
            popupTab = nil
            step = .profile(profile)
        case "app":
            step = .app(try appStep(&words))
        case "safari":
            step = .safari(try safariStep(&words))
        case "tab":
            step = .tab(try tabStep(&words))
        case "popup":
            step = .popup(try popupStep(&words))
        case "appearance":
            step = .appearance(try words.choose(Appearance.self))
        case "background":
            step = .background(try words.choose(BackgroundStep.self))
        case "handler":
            let word = try words.choose(["healthy", "slow", "hung", "crashing", "garbage", "reuse", "fresh", "source"])
            switch word {
            case "reuse": step = .handlerReuse
            case "fresh": step = .handlerFresh
            case "source": step = .handlerSource(try words.next("the team's handler: a Swift file or a folder (relative to the scenario)"))
            default: step = .handler(try handlerBehaviour(word, &words))
            }
        case "hold", "crash", "fail":
            let process = try words.choose(ProcessName.self)
            try words.expectWord("at")
            let point = try words.choose(YieldPoint.self)
            switch verb {
            case "hold":
                holds.insert(process)
                step = .hold(process, at: point)
            case "crash":
                step = .crash(process, at: point)
            default:
                try words.expectWord("with")
                let errno = try words.choose(StorageErrno.self)
                let after = words.atEnd ? false : try words.choose(["after"]) == "after"
                if after && ![.writeTemp, .rename, .storageWriteTemp, .storageRename].contains(point) {
                    throw words.error("'after' needs a point that writes: write-temp, rename, storage-write-temp or storage-rename")
                }
                step = .fail(process, at: point, with: errno, after: after)
            }
        case "release":
            let process = try words.choose(ProcessName.self)
            guard holds.remove(process) != nil else { throw words.error("'release \(process.rawValue)' with no 'hold \(process.rawValue) at POINT' before it") }
            step = .release(process)
        case "legacy":
            step = .legacy(try words.choose(LegacyStep.self))
        case "command":
            step = .command(try words.next("the command's name (as the manifest's commands give it)"))
        case "action":
            // `action click TAB`: the toolbar item over the tab.
            try words.expectWord("click")
            let tab = try tabName(&words)
            try requireOpen(tab, words)
            // It opens the popup over the tab where the item has one there, which only the run
            // knows: the popup's steps after it act on what Safari shows (none: nothing happens).
            popupTab = tab
            step = .actionClick(tab)
        case "options":
            step = try optionsStep(&words)
        case "permission":
            // `permission grant|refuse`: the user's answer to the oldest prompt on screen;
            // `permission revoke ITEM`: a grant the user takes back.
            switch try words.choose(["grant", "refuse", "revoke"]) {
            case "revoke":
                // One word, or a JSON string in quotes.
                let word = try words.next("the permission or host pattern to take back (as permissions.getAll names it)")
                guard word.hasPrefix("\"") else { step = .permissionRevoke(word); break }
                guard case .string(let item)? = try? JSONParser.parse(word) else { throw words.error("the item to take back: \(word) is not one string in quotes") }
                step = .permissionRevoke(item)
            case let answer: step = .permission(granted: answer == "grant")
            }
        case "menu":
            // `menu click ID TAB`: an id with spaces is a JSON string.
            try words.expectWord("click")
            let word = try words.next("the menu item's id (as menus.create gave it)")
            var id = word
            if word.hasPrefix("\"") {
                guard case .string(let text)? = try? JSONParser.parse(word) else { throw words.error("the menu item's id: \(word) is not one string in quotes") }
                id = text
            }
            let tab = try tabName(&words)
            try requireOpen(tab, words)
            step = .menuClick(id, tab)
        case "advance":
            step = .advance(try duration(try words.next("a duration"), words))
        case "device":
            try words.expectWord("sleep")
            step = .deviceSleep(try duration(try words.next("a duration"), words))
        case "settle":
            step = .settle
        case "expect", "expect-failure":
            // `... within 5s` at the end: the rest is the expectation. `expect-failure` marks
            // one that fails on purpose.
            let fails = verb == "expect-failure"
            var within: EpochMillis?
            if words.words.last == "within" { throw words.error("'within' needs a duration after it (30s, 500ms, 2m, 1h)") }
            if words.words.count >= 4, words.words[words.words.count - 2] == "within" {
                within = try duration(words.words.last!, words)
                guard within! > 0 else { throw words.error("'within' needs a time longer than zero") }
                var shorter = Cursor(file: file, line: words.line, words: Array(words.words.dropLast(2)))
                step = .expect(try expectation(&shorter), within: within, fails: fails)
                try shorter.end()
                words = Cursor(file: file, line: words.line, words: [])
            } else {
                step = .expect(try expectation(&words), fails: fails)
            }
        default:
            if let hint = Self.stepHints[verb.lowercased()] {
                throw ScenarioError(file: file, line: words.line, message: "unknown step '\(verb)': \(hint.text)", suggestion: hint.step)
            }
            throw ScenarioError(file: file, line: words.line, message: "unknown step '\(verb)'", suggestion: nearestWord(verb, in: Scenario.verbs))
        }
        try words.end()
        if step.isSetup && started {
            throw words.error("'\(verb)' must come before the first action")
        }
        if !started { try checkSetup(step, words) }
        if !step.isSetup, verb != "profile" { started = true }
        return step
    }

    /// Setup lines that could contradict each other: a step given twice, a document file after
    /// lines it would replace, a `shared` line after the `cache` lines that start from it.
    private mutating func checkSetup(_ step: Step, _ words: Cursor) throws(ScenarioError) {
        func once(_ name: String) throws(ScenarioError) {
            if let line = setupLines[name] { throw words.error("'\(name)' is given twice (first on line \(line))") }
            setupLines[name] = words.line
        }
        switch step {
        case .platform(let chosen):
            try once("platform")
            platform = chosen
        case .epoch: try once("epoch")
        case .seed: try once("seed")
        case .profile: try once("profile")
        case .sharedLegacy: try once("shared legacy")
        case .sharedDamaged: try once("shared damaged")
        case .handlerReuse, .handlerFresh: try once("handler reuse or fresh")
        case .handlerSource(let path): try once("handler source \(path)")
        case .groupDefaults(let suite, let key, _): try once("group defaults \(suite)\(key.map { " " + $0 } ?? "")")
        case .probe: try once("probe")
        case .freshInstall:
            try once("fresh-install")
            if let line = setupLines["cache"] { throw words.error("a fresh install has nothing cached, and line \(line) gives the cache") }
        case .extensionFolder: try once("extension")
        case .fetchStub(let url, _, _): try once("fetch \(url)")
        case .expectFailure(let number): try once("expect-failure invariant \(number)")
        case .watchdog(let milliseconds):
            try once("watchdog")
            guard (100...60_000).contains(milliseconds) else {
                throw words.error("a watchdog is from 100ms to 1m, not \(ScenarioPrinter.duration(EpochMillis(milliseconds)))")
            }
        case .heapLimit(let mebibytes):
            try once("heap-limit")
            guard (16...16_384).contains(mebibytes) else { throw words.error("a heap limit is from 16MiB to 16384MiB, not \(mebibytes)MiB") }
        case .backgroundLoadTime(let time):
            try once("background-load-time")
            guard time <= 10_000 else { throw words.error("a background's load time is at most 10s, not \(ScenarioPrinter.duration(time))") }
        case .alarmMinimum(let minimum):
            try once("alarm-minimum")
            guard (1_000...600_000).contains(minimum) else { throw words.error("an alarm minimum is from 1s to 10m, not \(ScenarioPrinter.duration(minimum))") }
        case .shared(let document):
            if let line = setupLines["cache"] {
                throw words.error("a 'shared' line after the cache's (line \(line)): the cache starts from the shared document as it stands then; put every 'shared' line first")
            }
            if case .file = document, let line = setupLines["shared"] {
                throw words.error("'shared file' replaces the 'shared' lines before it (line \(line)); put it first")
            }
            setupLines["shared"] = setupLines["shared"] ?? words.line
        case .cache(let document):
            if case .file = document, let line = setupLines["cache"] {
                throw words.error("'cache file' replaces the 'cache' lines before it (line \(line)); put it first")
            }
            if let line = setupLines["fresh-install"] { throw words.error("a fresh install has nothing cached (line \(line))") }
            setupLines["cache"] = setupLines["cache"] ?? words.line
        case .app, .safari, .tab, .popup, .appearance, .background, .handler, .hold, .release, .crash, .fail, .legacy, .menuClick, .command, .actionClick, .optionsOpen, .permission, .permissionRevoke, .advance,
             .deviceSleep, .settle, .expect:
            break
        }
    }

    private func startingDocument(_ kind: String, _ words: inout Cursor) throws(ScenarioError) -> StartingDocument {
        switch kind {
        case "defaults": return .defaults(try values(&words, allowSchedule: true))
        case "site":
            let key = try scope(&words)
            return .site(key, try values(&words, allowSchedule: false))
        default: return .file(try words.next("a path"))
        }
    }

    private mutating func appStep(_ words: inout Cursor) throws(ScenarioError) -> AppStep {
        switch try words.choose(["launch", "foreground", "background", "kill", "set", "reset", "delete", "dispatch"]) {
        case "dispatch": return try dispatch(&words)
        case "set" where words.peek == "group":
            _ = try words.next("")
            return try setGroup(&words)
        case "reset" where words.peek == "group":
            _ = try words.next("")
            return try resetGroup(&words)
        case "launch": return .launch
        case "foreground": return .foreground
        case "background": return .background
        case "kill": return .kill
        case "set":
            appEdits += 1
            if try words.choose(["default", "site", "group"]) == "default" { return .setDefaults(try values(&words, allowSchedule: true)) }
            let key = try scope(&words)
            return .setSite(key, try values(&words, allowSchedule: false))
        case "reset":
            appEdits += 1
            _ = try words.choose(["site", "group"])
            let key = try scope(&words)
            return .resetSite(key, try fields(&words))
        default:
            appEdits += 1
            try words.expectWord("site")
            return .deleteSite(try scope(&words))
        }
    }

    private mutating func safariStep(_ words: inout Cursor) throws(ScenarioError) -> SafariStep {
        switch try words.choose(["foreground", "background", "restart", "inspect", "update-extension"]) {
        case "foreground": return .foreground
        case "background": return .background
        case "restart":
            // The popup goes with Safari, and with a new version of the extension.
            popupTab = nil
            return .restart
        case "inspect": return .inspect(try words.choose(["on", "off"]) == "on")
        default:
            popupTab = nil
            guard let option = words.peek else { return .updateExtension() }
            if !option.hasPrefix("version="), let equals = option.firstIndex(of: "=") {
                throw words.error("unknown option '\(option[..<equals])=' after update-extension (expected version=VERSION, the same files as that version, "
                    + "or a folder: the extension's files to install, relative to the scenario)")
            }
            _ = try words.next("version=VERSION or FOLDER")
            guard option.hasPrefix("version=") else { return .updateExtension(folder: option) }
            let version = String(option.dropFirst("version=".count))
            guard ExtensionVersion(version) != nil else {
                throw words.error("version=\(version): expected one to four numbers from 0 to 65535 joined by dots, as a manifest's version (1.1, 2.0.3)")
            }
            return .updateExtension(version: version)
        }
    }

    /// The FILE of an `html=FILE` option: a path relative to the scenario, read before the run.
    private func documentPath(_ option: String, _ words: Cursor) throws(ScenarioError) -> String {
        let path = String(option.dropFirst("html=".count))
        guard !path.isEmpty else { throw words.error("html= names no file (html=FILE, relative to the scenario)") }
        return path
    }

    private mutating func tabStep(_ words: inout Cursor) throws(ScenarioError) -> TabStep {
        let verb = try words.choose(["open", "activate", "reload", "navigate", "close", "native-dark", "click", "choose"])
        let tab = try tabName(&words)
        if verb == "open" {
            if let line = openTabs[profile]?[tab] { throw words.error("tab \(tab.rawValue) is already open (line \(line)); use 'tab navigate'") }
            let url = try pageURL(try words.next("a URL"), words)
            // Opened even when an option below is wrong, so later lines are not wrong with it.
            openTabs[profile, default: [:]][tab] = words.line
            closedTabs[profile]?[tab] = nil
            urls[profile, default: [:]][tab] = url
            var nativeDark = false
            var window: Int?
            var html: String?
            while !words.atEnd {
                let option = try words.next("an option")
                if option == "native-dark" && !nativeDark {
                    nativeDark = true
                } else if option.hasPrefix("html="), html == nil {
                    html = try documentPath(option, words)
                } else if option.hasPrefix("window="), window == nil {
                    let text = option.dropFirst("window=".count)
                    guard let number = Int(text), number >= 1, number <= 64 else {
                        throw words.error("'\(text)' is not a window number (1 to 64)")
                    }
                    guard platform == .macOS else { throw words.error("iOS shows one window: 'window=' needs 'platform macos'") }
                    window = number
                } else {
                    let key = option.split(separator: "=", maxSplits: 1).first.map { String($0) } ?? option
                    let twice = option == "native-dark" || option.hasPrefix("window=") || option.hasPrefix("html=")
                    throw ScenarioError(file: file, line: words.line,
                                        message: twice ? "'\(key)' is given twice"
                                            : "unknown option '\(option)' after the URL (expected native-dark, window=N or html=FILE; a URL has no spaces)",
                                        suggestion: twice ? nil : nearestWord(key, in: ["native-dark", "window", "html"]).map { $0 == "native-dark" ? $0 : $0 == "window" ? "window=N" : "html=FILE" })
                }
            }
            return .open(tab, url: url, nativeDark: nativeDark, window: window, html: html)
        }
        try requireOpen(tab, words)
        switch verb {
        case "activate": return .activate(tab)
        case "reload": return .reload(tab)
        case "navigate":
            let url = try pageURL(try words.next("a URL"), words)
            urls[profile, default: [:]][tab] = url
            var html: String?
            if !words.atEnd {
                let option = try words.next("html=FILE")
                guard option.hasPrefix("html=") else {
                    throw ScenarioError(file: file, line: words.line, message: "unknown option '\(option)' after the URL (expected html=FILE; a URL has no spaces)",
                                        suggestion: nearestWord(String(option.split(separator: "=").first ?? ""), in: ["html"]).map { _ in "html=FILE" })
                }
                html = try documentPath(option, words)
            }
            return .navigate(tab, url: url, html: html)
        case "close":
            closedTabs[profile, default: [:]][tab] = words.line
            openTabs[profile]?[tab] = nil
            if popupTab == tab { popupTab = nil }
            return .close(tab)
        case "click", "choose":
            guard ownPages else { throw words.error("'tab \(verb)' acts in a page the extension's own scripts run in: name it with 'extension DIR pages' first") }
            let gesture = try pageGesture(verb, "tab \(verb) \(tab.rawValue)", &words)
            switch gesture {
            case .click(let id): return .click(tab, id)
            case .choose(let id, let value): return .choose(tab, id, value: value)
            }
        default: return .nativeDark(tab, try words.choose(["on", "off"]) == "on")
        }
    }

    /// `options open`, or `options click ID`, `options choose ID VALUE` and `options close`,
    /// which are the tab steps on the tab `options open` opened.
    private mutating func optionsStep(_ words: inout Cursor) throws(ScenarioError) -> Step {
        let verb = try words.choose(["open", "click", "choose", "close"])
        guard ownPages else { throw words.error("'options \(verb)' acts on the extension's own options page: name it with 'extension DIR pages' first") }
        let tab = TabID.options
        if verb == "open" {
            if let line = openTabs[profile]?[tab] { throw words.error("the options page is already open in tab options (line \(line)); close it with 'options close'") }
            openTabs[profile, default: [:]][tab] = words.line
            closedTabs[profile]?[tab] = nil
            return .optionsOpen
        }
        guard openTabs[profile]?[tab] != nil else { throw words.error("'options \(verb)' with no options page open (open it with 'options open')") }
        if verb == "close" {
            closedTabs[profile, default: [:]][tab] = words.line
            openTabs[profile]?[tab] = nil
            if popupTab == tab { popupTab = nil }
            return .tab(.close(tab))
        }
        switch try pageGesture(verb, "options \(verb)", &words) {
        case .click(let id): return .tab(.click(tab, id))
        case .choose(let id, let value): return .tab(.choose(tab, id, value: value))
        }
    }

    /// A click on an element of a page (`click ID`) or a pick in its select (`choose ID VALUE`,
    /// the rest of the line the value, `""` the empty one).
    private func pageGesture(_ verb: String, _ written: String, _ words: inout Cursor) throws(ScenarioError) -> SafariMachine.PopupGesture {
        let id = try words.next("an element's id")
        guard verb == "choose" else { return .click(id) }
        let value = words.rest().joined(separator: " ")
        guard !value.isEmpty else { throw words.error("missing the option's value after '\(written) \(id)' (\"\" for the empty value)") }
        return .choose(id, value: value == "\"\"" ? "" : value)
    }

    private mutating func popupStep(_ words: inout Cursor) throws(ScenarioError) -> PopupStep {
        let verb = try words.choose(["open", "scope", "set", "reset", "forget", "pause", "close", "click", "choose"])
        if verb == "open" {
            let tab = try tabName(&words)
            try requireOpen(tab, words)
            popupTab = tab
            return .open(tab)
        }
        guard let tab = popupTab else { throw words.error("'popup \(verb)' with no popup open (open one with 'popup open TAB')") }
        if verb == "click" || verb == "choose" {
            guard ownPages else { throw words.error("'popup \(verb)' acts in the extension's own popup: name it with 'extension DIR pages' first") }
            switch try pageGesture(verb, "popup \(verb)", &words) {
            case .click(let id): return .click(id)
            case .choose(let id, let value): return .choose(id, value: value)
            }
        }
        if ownPages && verb != "close" {
            throw words.error("'popup \(verb)' sends the reference popup's messages, and this scenario's extension runs its own popup: use 'popup click ID' or 'popup choose ID VALUE'")
        }
        switch verb {
        case "scope":
            let key = try scope(&words)
            // The popup edits one of its page's records: the page, the host or the domain.
            let keys = (try? PageAddress.parse(urls[profile]?[tab] ?? "").get())?.scopeKeys() ?? []
            guard keys.contains(key.key) else {
                let texts = keys.map(\.text)
                throw ScenarioError(file: file, line: words.line,
                                    message: "'\(key.text)' is not a record of the popup's page (expected \(texts.isEmpty ? "none: the page is not supported" : texts.joined(separator: ", ")))",
                                    suggestion: nearestWord(key.key.text, in: texts))
            }
            return .scope(key)
        case "set": return .set(try values(&words, allowSchedule: false))
        case "reset": return .reset(try fields(&words))
        case "forget": return .forget
        case "pause": return .pause(try duration(try words.next("a duration"), words))
        default:
            popupTab = nil
            return .close
        }
    }

    /// One check of a page: `style.NAME contains TEXT`, `style.NAME empty`, `style.NAME=VALUE`,
    /// `class NAME`, `no-class NAME`, `data.NAME=VALUE`.
    func pageCheck(_ words: inout Cursor) throws(ScenarioError) -> PageCheck {
        let word = try words.next("what to check on the page (style.NAME, class NAME, no-class NAME, data.NAME=VALUE)")
        let check: PageCheck
        if word.hasPrefix("style.") {
            let rest = word.dropFirst("style.".count)
            if let equals = rest.firstIndex(of: "=") {
                check = .styleEquals(String(rest[..<equals]), String(rest[rest.index(after: equals)...]))
            } else {
                guard !rest.isEmpty else { throw words.error("'style.' names no property (for example style.filter)") }
                switch try words.choose(["contains", "empty"]) {
                case "contains": check = .styleContains(String(rest), try words.next("the text the property contains"))
                default: check = .styleEmpty(String(rest))
                }
            }
        } else if word.hasPrefix("data."), let equals = word.firstIndex(of: "=") {
            check = .data(String(word[word.index(word.startIndex, offsetBy: 5)..<equals]), String(word[word.index(after: equals)...]))
        } else if word == "class" || word == "no-class" {
            let name = try words.next("a class name")
            check = word == "class" ? .hasClass(name) : .lacksClass(name)
        } else {
            throw words.error("unknown page check '\(word)' (expected style.NAME contains TEXT, style.NAME empty, style.NAME=VALUE, class NAME, no-class NAME or data.NAME=VALUE)",
                              suggestion: nearestWord(word, in: ["class", "no-class", "style.filter", "data."]))
        }
        try words.end()
        return check
    }

    private func handlerBehaviour(_ word: String, _ words: inout Cursor) throws(ScenarioError) -> Simulation.HandlerBehaviour {
        switch word {
        case "healthy": return .healthy
        case "slow": return .slow(try duration(try words.next("a duration"), words))
        case "hung": return .hung
        case "crashing": return .crashing(afterWrite: try words.choose(["before-write", "after-write"]) == "after-write")
        default: return .garbage
        }
    }

    /// Words other tools use that are not steps here, with the step to write instead and why.
    static let stepHints: [String: (step: String, text: String)] = {
        let time = (step: "advance", text: "virtual time moves with 'advance DURATION' (what falls due fires on the way); 'settle' lets pending work play out without moving it")
        let check = (step: "expect", text: "a check is an 'expect' line (expect tab, popup, app, shared, background, alarm, converged)")
        return ["wait": time, "sleep": time, "delay": time, "pause": (step: "popup pause", text: "a pause is set in the popup: 'popup pause DURATION'; time moves with 'advance'"),
                "assert": check, "check": check, "verify": check,
                "open": (step: "tab open", text: "a tab opens with 'tab open NAME URL', the popup with 'popup open NAME'"),
                "kill": (step: "background kill", text: "a process dies with 'background kill', 'app kill' or 'crash PROCESS at POINT'"),
                "unload": (step: "background unload", text: "Safari unloads the background with 'background unload'"),
                "restart": (step: "safari restart", text: "Safari restarts with 'safari restart'")]
    }()
}
