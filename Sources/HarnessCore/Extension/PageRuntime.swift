import Foundation
import ProcessKit
import SiteSettings
import Synchronization

/// The JavaScript runtime an extension's own pages run in (`PROTOCOL.md`, section 15): one
/// `node` process (`PageHost`, kept between runs: `PageHostPool`) holding each tab's page with its content scripts and the
/// popup's page while it is open, each in a realm of its own.
package enum PageRuntime {
    /// The page host's runtime, beside the background's (`ExtensionRuntime.folder`).
    static let fileName = "pages.mjs"

    /// The page host's runtime beside the running executable.
    package static func installed() throws(ExtensionRuntime.Unavailable) -> String {
        try ExtensionRuntime.folder.get() + "/" + fileName
    }

    /// Where the pages' DOM, Debian's jsdom (`node-jsdom`), and the modules it needs are: node
    /// searches there only when `NODE_PATH` names it, so the page host is started with it.
    static let jsdomModules = "/usr/share/nodejs"

    /// The page host's environment: `NODE_PATH` for jsdom, and nothing else of the harness's.
    static let environment = ["NODE_PATH": jsdomModules]

    /// Why no page can run here, or nil when jsdom is installed (in `folder`).
    static func jsdomMissing(in folder: String = jsdomModules) -> ExtensionRuntime.Unavailable? {
        FileManager.default.fileExists(atPath: folder + "/jsdom/lib/api.js") ? nil : .noJsdom(folder)
    }
    package static var jsdomMissing: ExtensionRuntime.Unavailable? { jsdomMissing() }

    /// The page host's command: `node` running the runtime at `path` for the extension in `folder`.
    package static func command(node: String, runtime path: String, extension folder: String, watchdogMilliseconds: Int = ExtensionRuntime.watchdogMilliseconds) -> ProcessExecutables.Command {
        ProcessExecutables.Command(path: node, arguments: ExtensionRuntime.nodeOptions() + [path, "--extension", folder, "--watchdog", String(watchdogMilliseconds)])
    }
}

/// The extension's own pages as one process: what Safari tells them (`Input`), one input at a
/// time, and what they did (`Output`). It reads no clock: each input carries the time.
/// Used by one run at a time: `PageHostPool` hands it from run to run under its lock.
package final class PageHost: @unchecked Sendable {
    private let child: ChildProcess
    /// Its watchdog and heap limit, which name its death.
    private let limits: ExtensionRuntime.Limits?
    /// What it runs, and how many runs took it (`PageHostPool`).
    let command: ProcessExecutables.Command
    var runs = 1

    /// Starts `command` with the run's `seed` and the platform Safari runs on (what a page's
    /// `navigator` says).
    package init(_ command: ProcessExecutables.Command, seed: UInt64, platform: Simulation.Platform = .iOS) throws(ChildProcess.SpawnError) {
        child = try ChildProcess(executable: command.path, arguments: command.arguments + ["--seed", String(seed), "--platform", platform.rawValue],
                                 environment: PageRuntime.environment)
        limits = ExtensionRuntime.Limits(command)
        self.command = command
    }

    deinit {
        child.kill()
        _ = child.wait()
    }

    /// Why the pages stopped answering, or what they answered that cannot be read.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The input could not be written, or no frame came back in time: why, and the end of
        /// the host's stderr.
        case stoppedAnswering(String, stderr: String)
        /// The host died before it answered: how, and the end of its stderr.
        case ended(ProcessDriver.Death, stderr: String)
        /// The frame that came back is not `{"outputs": [...]}`; its first 200 bytes.
        case notOutputs(String)
        /// Output `number` of a frame (the first is 1) is not one the pages write: its `type`, if
        /// it has one the harness knows, and what is wrong with it.
        case malformedOutput(number: Int, type: String?, problem: String)

        package var description: String {
            switch self {
            case .stoppedAnswering(let reason, let stderr): "the pages' runtime stopped answering (\(reason)): \(stderr)"
            case .ended(let death, let stderr): "the pages' runtime died: \(death); its stderr ends: \(stderr.suffix(1000))"
            case .notOutputs(let text): "the pages' runtime sent something that is not its outputs: \(text)"
            case .malformedOutput(let number, let type, let problem): "the pages' runtime sent output \(number)\(type.map { " (\($0))" } ?? ""): \(problem)"
            }
        }
    }

    /// Hands the pages `input` at `now`, in Safari's local time `utcOffsetMinutes` from UTC;
    /// returns what they did. One input may run several turns (each script of a page, every page for a change of
    /// appearance), each under the watchdog: the default `timeoutMilliseconds` only catches a
    /// host that hangs.
    package func send(_ input: Input, now: EpochMillis, utcOffsetMinutes: Int = 0, timeoutMilliseconds: Int = 120_000) throws(Failure) -> [Output] {
        let bytes: [UInt8]?
        do {
            try child.send(input.frame(now: now, utcOffsetMinutes: utcOffsetMinutes))
            bytes = try child.receive(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw .stoppedAnswering("\(error)", stderr: child.stderrTail)
        }
        guard let bytes else {
            throw .ended(ProcessDriver.Death(child.reap().status, stderr: child.stderrTail, limits: limits), stderr: child.stderrTail)
        }
        return try Output.decode(frame: bytes)
    }
}

/// Page hosts kept between runs, as background hosts are (`ContextHostPool`), so that a harness
/// running scenario after scenario loads jsdom once for many: a run takes one (`take`), of any
/// extension's, which is reset to the run's extension, seed and platform
/// (`PageHost.Input.reset`), and gives it back when it is over (`give`). At most `kept` wait,
/// the oldest ended first. A host that served `retiredAfter` runs ends when it is given back:
/// node never collects a context that ran an ES module (a popup's), so a host grows with its runs.
/// A host that refuses its reset (an earlier run's page changed what every page shares, or the
/// extension cannot be read) or does not answer it is ended, and the run gets a new one.
package final class PageHostPool: Sendable {
    /// The harness's pool: every run takes its page host here.
    package static let shared = PageHostPool()

    private let idle = Mutex<[PageHost]>([])
    let kept: Int
    let retiredAfter: Int
    /// How long a reset may take: a host given back answers at once, and one just started once
    /// node and jsdom are loaded.
    static let resetTimeoutMilliseconds = 20_000

    init(kept: Int = 2, retiredAfter: Int = 40) {
        self.kept = kept
        self.retiredAfter = retiredAfter
    }

    /// A host running `command` for a run with `seed` on `platform`: one given back and reset,
    /// or a new one.
    func take(_ command: ProcessExecutables.Command, seed: UInt64, platform: Simulation.Platform) throws(ChildProcess.SpawnError) -> PageHost {
        let (runtime, folder) = Self.split(command)
        let reused: PageHost? = idle.withLock { hosts in
            guard let index = hosts.lastIndex(where: { Self.split($0.command).runtime == runtime }) else { return nil }
            return hosts.remove(at: index)
        }
        if let reused, let folder,
           (try? reused.send(.reset(extension: folder, seed: seed, platform: platform), now: 0, timeoutMilliseconds: Self.resetTimeoutMilliseconds)) == [] {
            reused.runs += 1
            return reused
        }
        return try PageHost(command, seed: seed, platform: platform)
    }

    /// Starts a host for `command` to wait for the first run that needs one, unless one waits:
    /// node and jsdom load while earlier runs go on.
    func prepare(_ command: ProcessExecutables.Command) {
        let runtime = Self.split(command).runtime
        guard !idle.withLock({ hosts in hosts.contains { Self.split($0.command).runtime == runtime } }),
              let host = try? PageHost(command, seed: 0) else { return }
        host.runs = 0
        give(host)
    }

    /// Starts a host for the first of `scenarios` that runs an extension's pages (`extension DIR
    /// pages`, or `executables` that run pages already), on the process transport.
    package func prepare(for scenarios: [Scenario], _ executables: ProcessExecutables, transport: Simulation.Transport) {
        guard transport == .process else { return }
        if let pages = executables.pages { return prepare(pages) }
        for scenario in scenarios {
            for case .extensionFolder(let path, true) in scenario.lines.map(\.step) {
                let folder = ScenarioSetup.resolve(path, in: scenario.folder)
                if case .success(let chosen) = ExtensionRuntime.background(replacing: executables, extension: folder, transport: transport, ownPages: true),
                   let pages = chosen.pages {
                    return prepare(pages)
                }
            }
        }
    }

    /// `command` as what a host runs whatever the extension (its extension folder left out), and
    /// that folder.
    private static func split(_ command: ProcessExecutables.Command) -> (runtime: ProcessExecutables.Command, folder: String?) {
        guard let flag = command.arguments.firstIndex(of: "--extension"), flag + 1 < command.arguments.count else { return (command, nil) }
        var runtime = command
        runtime.arguments[flag + 1] = ""
        return (runtime, command.arguments[flag + 1])
    }

    /// `host`, whose run is over, waits for the next run (or ends, when it served its runs).
    func give(_ host: PageHost) {
        guard host.runs < retiredAfter else { return }
        // The oldest past `kept` are handed out of the lock and end there (a host ends its
        // process when it goes).
        _ = idle.withLock { hosts in
            hosts.append(host)
            let over = max(0, hosts.count - kept)
            defer { hosts.removeFirst(over) }
            return Array(hosts.prefix(over))
        }
    }
}

/// What a scenario can check on a tab's page: the root element's inline style, classes, data
/// attributes and a few other attributes, and the text of the style elements scripts added.
package struct PageState: Equatable, Sendable {
    var style: [String: String] = [:]
    var classes: [String] = []
    var data: [String: String] = [:]
    var attributes: [String: String] = [:]
    var styles: [String] = []

    init() {}

    init?(json: JSONValue) {
        guard case .object(let members) = json else { return nil }
        func strings(_ name: String) -> [String: String] {
            guard case .object(let object)? = members[name] else { return [:] }
            return object.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
        }
        func list(_ name: String) -> [String] {
            guard case .array(let items)? = members[name] else { return [] }
            return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        style = strings("style")
        classes = list("classes")
        data = strings("data")
        attributes = strings("attributes")
        styles = list("styles")
    }

    /// The page in a line, as the trace shows it.
    var summary: String {
        var parts: [String] = []
        parts += style.keys.sorted().map { "style.\($0)=\(style[$0]!)" }
        if !classes.isEmpty { parts.append("class " + classes.joined(separator: " ")) }
        parts += data.keys.sorted().map { "data.\($0)=\(data[$0]!)" }
        parts += attributes.keys.sorted().map { "\($0)=\(attributes[$0]!)" }
        if !styles.isEmpty { parts.append("\(styles.count) style element\(styles.count == 1 ? "" : "s")") }
        return parts.isEmpty ? "nothing set" : parts.joined(separator: ", ")
    }
}

extension PageRuntime {
    /// What loading an extension's pages showed: the page loaded for each content script entry
    /// (an address its first match pattern matches), and the popup; their console, and why the
    /// pages' runtime could not run, if it could not.
    package struct Load: Sendable {
        package var pages: [String] = []
        package var console: [(page: String, level: String, message: String, at: String?)] = []
        package var failure: String?
        /// The uncaught exceptions and rejections, each with its page and place.
        package var uncaught: [(page: String, at: String?, message: String)] {
            console.filter { $0.level == "error" && $0.message.hasPrefix("Uncaught") }.map { ($0.page, $0.at, $0.message) }
        }
    }

    /// An address a match pattern matches: `<all_urls>` and a `*` host are `example.com`, a
    /// `*.` host gets `www.`, a `*` scheme is https, and a `*` in the path is nothing.
    static func address(matching pattern: String) -> String {
        guard pattern != "<all_urls>", let schemeEnd = pattern.range(of: "://") else { return "https://example.com/" }
        let scheme = pattern[..<schemeEnd.lowerBound] == "*" ? "https" : String(pattern[..<schemeEnd.lowerBound])
        let rest = pattern[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var host = String(rest[..<slash])
        if host == "*" || host.isEmpty { host = "example.com" } else if host.hasPrefix("*.") { host = "www." + host.dropFirst(2) }
        let path = rest[slash...].replacingOccurrences(of: "*", with: "")
        return scheme + "://" + host + (path.isEmpty ? "/" : path)
    }

    /// Loads a page for each of the manifest's content script entries, the popup and the options
    /// page (in a tab of its own, `options`), once, as
    /// Safari loads them (nothing answers their messages), over an empty extension storage of
    /// their own, then lets them run on until no timer is pending or
    /// `ExtensionRuntime.checkWindow` has passed, and reports what came of it.
    package static func load(_ manifest: ExtensionManifest, node: String) -> Load {
        var load = Load()
        let start = ExtensionRuntime.checkStart
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("check-storage-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: storage) }
        do {
            try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
            let folder = ExtensionManifest.absolute(manifest.folder)
            let host = try PageHost(command(node: node, runtime: try installed(), extension: folder), seed: 1)
            var inputs: [(String, PageHost.Input)] = []
            for (index, entry) in manifest.contentScripts.enumerated() {
                let url = address(matching: entry.matches.first ?? "<all_urls>")
                inputs.append(("the page \(url)", .load(PageKey(TabID("t\(index + 1)")), url: url, visible: true, appearance: .light, nativeDark: nil,
                                                                      storage: storage)))
            }
            if manifest.popup != nil {
                inputs.append(("the popup", .openPopup(TabID("t1"), appearance: .light, tabs: nil, windowId: nil, storage: storage)))
            }
            if let options = manifest.optionsPage {
                inputs.append(("the options page", .load(PageKey(.options), url: ExtensionManifest.pageURL(options), visible: true, appearance: .light,
                                                         nativeDark: nil, storage: storage)))
            }
            var timers = PendingPageTimers()
            func take(_ outputs: [PageHost.Output]) {
                timers.take(outputs)
                for case .log(let page, let level, let text, let at) in outputs { load.console.append((page?.hostName ?? "pages", level, text, at)) }
            }
            for (name, input) in inputs {
                load.pages.append(name)
                take(try host.send(input, now: start))
            }
            var turns = 0
            while let timer = timers.next(limit: start + ExtensionRuntime.checkWindow) {
                guard turns < ExtensionRuntime.checkTurns else {
                    load.failure = "they were still busy after \(ExtensionRuntime.checkTurns) timers, \((timer.at - start) / 1000) s after they loaded"
                    break
                }
                turns += 1
                take(try host.send(.timer(load: timer.load, number: timer.number), now: timer.at))
            }
        } catch {
            load.failure = "the pages' runtime could not be run: \(error)"
        }
        return load
    }
}
