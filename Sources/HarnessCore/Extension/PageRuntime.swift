import Foundation
import ProcessKit
import SiteSettings

/// The JavaScript runtime an extension's own pages run in (`PROTOCOL.md`, section 15): one
/// `node` process per run (`PageHost`) holding each tab's page with its content scripts and the
/// popup's page while it is open, each in a realm of its own.
package enum PageRuntime {
    /// The page host's runtime, beside the background's (`ExtensionRuntime.folder`).
    package static let fileName = "pages.mjs"

    /// The page host's runtime beside the running executable.
    package static func installed() throws(ExtensionRuntime.Unavailable) -> String {
        try ExtensionRuntime.folder.get() + "/" + fileName
    }

    /// The page host's command: `node` running the runtime at `path` for the extension in `folder`.
    package static func command(node: String, runtime path: String, extension folder: String, watchdogMilliseconds: Int = ExtensionRuntime.watchdogMilliseconds) -> ProcessExecutables.Command {
        ProcessExecutables.Command(path: node, arguments: ["--experimental-vm-modules", "--no-warnings", "--disallow-code-generation-from-strings", path, "--extension", folder,
                                                           "--watchdog", String(watchdogMilliseconds)])
    }
}

/// The extension's own pages as one process: what Safari's effects tell them, one input at a
/// time, and what they did (`Output`). It reads no clock: each input carries the time.
package final class PageHost {
    /// What the pages did in one input.
    package enum Output: Equatable, Sendable {
        /// A page sent the background a message, numbered `id`.
        case sendMessage(id: Int, from: Page, message: JSONValue)
        /// A page answered Safari's message `id` (nil: with nothing); `unreachable`: no page, or
        /// none that listens for messages.
        case answer(id: Int, answer: JSONValue?, unreachable: Bool)
        /// A tab's page changed what a scenario can check on it.
        case state(TabID, PageState)
        /// A page's console, or an error nobody caught (`Uncaught ...`), with its place.
        case log(page: String, level: String, text: String, at: String?)
        /// A page's `setTimeout` or `setInterval`: its timer `number` falls due `at`; `page`
        /// names the page's load (`tab t1#2`), whose timers die with it.
        case setTimer(page: String, number: Int, at: EpochMillis)
        case cancelTimer(page: String, number: Int)
        /// A page opened port `port` to the background (`runtime.connect`), named `name`.
        case connect(port: Int, name: String, from: Page)
        /// A page posted a message on its port.
        case postOnPort(port: Int, message: JSONValue)
        /// A page disconnected its port.
        case disconnectPort(port: Int)
    }

    /// Which page: a tab's, or the popup's.
    package enum Page: Hashable, Sendable {
        case tab(TabID)
        case popup
    }

    private let child: ChildProcess

    /// Starts `command` with the run's `seed`.
    package init(_ command: ProcessExecutables.Command, seed: UInt64) throws(ChildProcess.SpawnError) {
        child = try ChildProcess(executable: command.path, arguments: command.arguments + ["--seed", String(seed)])
    }

    deinit {
        child.kill()
        _ = child.wait()
    }

    /// Why the pages stopped answering.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Hands the pages `input` at `now`; returns what they did.
    package func send(_ input: JSONValue, now: EpochMillis) throws(Failure) -> [Output] {
        let frame = JSONValue.object(["now": .integer(now), "input": input])
        let bytes: [UInt8]?
        do {
            try child.send(JSONWriter.compact(frame))
            // One input may run several turns (each script of a page, every page for a change
            // of appearance), each under the watchdog: this only catches a host that hangs.
            bytes = try child.receive(timeoutMilliseconds: 120_000)
        } catch {
            throw Failure(description: "the pages' runtime stopped answering (\(error)): \(child.stderrTail)")
        }
        guard let bytes else { throw Failure(description: "the pages' runtime ended: \(child.stderrTail)") }
        guard case .object(let reply)? = try? JSONParser.parse(bytes), case .array(let items)? = reply["outputs"] else {
            throw Failure(description: "the pages' runtime sent something that is not its outputs: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        return items.compactMap(Self.output)
    }

    private static func output(_ item: JSONValue) -> Output? {
        guard case .object(let members) = item, case .string(let type)? = members["type"] else { return nil }
        func integer(_ name: String) -> Int? { if case .integer(let value)? = members[name] { Int(clamping: value) } else { nil } }
        func string(_ name: String) -> String? { if case .string(let value)? = members[name] { value } else { nil } }
        switch type {
        case "sendMessage":
            guard let id = integer("id") else { return nil }
            return .sendMessage(id: id, from: string("tab").map { .tab(TabID($0)) } ?? .popup, message: members["message"] ?? .null)
        case "answer":
            guard let id = integer("id") else { return nil }
            return .answer(id: id, answer: members["answer"], unreachable: members["unreachable"] == .bool(true))
        case "page":
            guard let tab = string("tab"), let state = members["state"].flatMap(PageState.init(json:)) else { return nil }
            return .state(TabID(tab), state)
        case "setTimer":
            guard let page = string("page"), let number = integer("timer"), case .integer(let at)? = members["at"] else { return nil }
            return .setTimer(page: page, number: number, at: at)
        case "cancelTimer":
            guard let page = string("page"), let number = integer("timer") else { return nil }
            return .cancelTimer(page: page, number: number)
        case "connect":
            guard let port = integer("port") else { return nil }
            return .connect(port: port, name: string("name") ?? "", from: string("tab").map { .tab(TabID($0)) } ?? .popup)
        case "portPost":
            guard let port = integer("port") else { return nil }
            return .postOnPort(port: port, message: members["message"] ?? .null)
        case "portDisconnect":
            guard let port = integer("port") else { return nil }
            return .disconnectPort(port: port)
        case "log":
            return .log(page: string("page") ?? "pages", level: string("level") ?? "log", text: string("text") ?? "", at: string("at"))
        default: return nil
        }
    }
}

/// What a scenario can check on a tab's page: the root element's inline style, classes, data
/// attributes and a few other attributes, and the text of the style elements scripts added.
package struct PageState: Equatable, Sendable {
    package var style: [String: String] = [:]
    package var classes: [String] = []
    package var data: [String: String] = [:]
    package var attributes: [String: String] = [:]
    package var styles: [String] = []

    package init() {}

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
    package var summary: String {
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
    package static func address(matching pattern: String) -> String {
        guard pattern != "<all_urls>", let schemeEnd = pattern.range(of: "://") else { return "https://example.com/" }
        let scheme = pattern[..<schemeEnd.lowerBound] == "*" ? "https" : String(pattern[..<schemeEnd.lowerBound])
        let rest = pattern[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var host = String(rest[..<slash])
        if host == "*" || host.isEmpty { host = "example.com" } else if host.hasPrefix("*.") { host = "www." + host.dropFirst(2) }
        let path = rest[slash...].replacingOccurrences(of: "*", with: "")
        return scheme + "://" + host + (path.isEmpty ? "/" : path)
    }

    /// Loads a page for each of the manifest's content script entries, and the popup, once, as
    /// Safari loads them (nothing answers their messages), and reports what came of it.
    package static func load(_ manifest: ExtensionManifest, node: String) -> Load {
        var load = Load()
        do {
            let folder = ExtensionManifest.absolute(manifest.folder)
            let host = try PageHost(command(node: node, runtime: try installed(), extension: folder), seed: 1)
            var inputs: [(String, JSONValue)] = []
            for (index, entry) in manifest.contentScripts.enumerated() {
                let url = address(matching: entry.matches.first ?? "<all_urls>")
                inputs.append(("the page \(url)", .object(["type": .string("load"), "tab": .string("t\(index + 1)"), "url": .string(url),
                                                          "visible": .bool(true), "appearance": .string("light")])))
            }
            if manifest.popup != nil {
                inputs.append(("the popup", .object(["type": .string("openPopup"), "tab": .string("t1"), "appearance": .string("light")])))
            }
            for (name, input) in inputs {
                load.pages.append(name)
                for case .log(let page, let level, let text, let at) in try host.send(input, now: 1_772_355_600_000) {
                    load.console.append((page, level, text, at))
                }
            }
        } catch {
            load.failure = "the pages' runtime could not be run: \(error)"
        }
        return load
    }
}
