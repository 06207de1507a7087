import Foundation
import ProcessKit
import SiteSettings

/// The starting state a scenario's setup steps describe (the lines before its first action),
/// with every file they name read and checked. It is built before any process starts, so a
/// missing or damaged document is reported with its line before anything runs.
package struct ScenarioSetup: Sendable {
    var platform = Simulation.Platform.iOS
    /// The Safari profile in front at the start (its storage gets the cache).
    var profile = Simulation.defaultProfile
    var epoch: EpochMillis = 1_772_355_600_000
    var seed: UInt64
    var shared: SettingsDocument?
    var cache: SettingsDocument?
    /// The first version's boolean in the group's preferences, if the scenario plants one.
    var legacyEnabled: Bool?
    /// `shared damaged`: the document on disk is cut off halfway, its last good copy beside it.
    var damaged = false
    /// The shortest delay Safari allows an alarm.
    var alarmMinimum = SafariMachine.alarmMinimum
    /// How long a background's load takes before its scripts run (`background-load-time`).
    var backgroundLoadTime: EpochMillis = 0
    /// The extension's background is Manifest V2's persistent one (macOS only), and the line
    /// that names the extension.
    var persistentBackground = false
    private var extensionLine: Int?
    /// The run starts as the extension is installed (`fresh-install`).
    var freshInstall = false
    /// The system keeps a handler's process for the next request, as it usually does (`handler
    /// reuse`, the default), or starts one for each request (`handler fresh`).
    var handlerReuse = true
    /// `handler source PATH` lines: the team's handler's sources (paths as the harness opens them).
    var handlerSources: [String] = []
    /// A lifecycle probe (`probe`), and the extension it runs when the command names none.
    var isProbe = false
    var probeExtension: String?
    /// The App Group's defaults before the run, by suite (`group defaults`).
    var groupDefaults: [String: [String: JSONValue]] = [:]
    /// `extension DIR`: the unpacked extension whose JavaScript is the background, its
    /// manifest read and checked (the path as the harness opens it).
    var extensionFolder: String?
    /// `watchdog DURATION`: how long a turn of the extension's JavaScript may run, in wall time.
    var watchdogMilliseconds: Int?
    /// `heap-limit N MiB`: the most heap each `node` process of the extension's runtime may use.
    var heapLimitMiB: Int?
    /// What an extension's JavaScript gets when it fetches each address (`fetch` lines).
    var fetchStubs: [String: FetchStub] = [:]

    /// The largest body a `fetch ... file PATH` line reads.
    static let fetchBodyLimit = 4 << 20

    struct FetchStub: Equatable, Sendable {
        var status: Int
        var body: String
    }
    /// The documents pages show (`tab open|navigate … html=FILE`), by the path as written.
    var pageDocuments: [String: String] = [:]

    /// The largest document an `html=FILE` option reads.
    static let pageDocumentLimit = 4 << 20

    /// `extension DIR pages`: its own pages run too.
    var extensionPages = false
    /// With its own pages: what its popup's controls do (those that edit as the design's
    /// popup does are the user's edits, for the oracle).
    var popupControls = ExtensionManifest.PopupControls()

    /// `folder` is where the files a scenario names are found (paths are relative to it);
    /// `seed` is the run's, unless the scenario sets its own.
    init(_ scenario: Scenario, seed: UInt64, folder: String) throws(ScenarioErrors) {
        self.seed = seed
        var errors: [ScenarioError] = []
        for line in scenario.lines {
            // The parser keeps setup lines before the first action; a `profile` among them
            // chooses the profile in front at the start.
            guard line.step.isSetup || Self.isProfile(line.step) else { break }
            do { try apply(line, folder: folder, file: scenario.name) } catch { errors.append(error) }
        }
        // WebKit refuses a persistent background on iOS as it loads the extension (`WebExtensionContext::load`).
        if persistentBackground && platform == .iOS, let line = extensionLine {
            errors.append(ScenarioError(file: scenario.name, line: line, message: "Safari on iOS refuses a persistent background (\"Cannot load persistent "
                + "background content on this platform\"), and a Manifest V2 background is persistent unless it says \"persistent\": false: "
                + "set it, or run the scenario on macOS (platform macos)"))
        }
        // The documents the steps show, read before anything starts.
        for line in scenario.lines {
            guard case .tab(let step) = line.step, let path = step.document, pageDocuments[path] == nil else { continue }
            do { pageDocuments[path] = try Self.text(of: path, in: folder, limit: Self.pageDocumentLimit, what: "html=\(path)", file: scenario.name, line: line.number) } catch {
                errors.append(error)
            }
        }
        if !errors.isEmpty { throw ScenarioErrors(errors) }
    }

    /// The document a scenario starts from when it describes none.
    var emptyDocument: SettingsDocument { SettingsDocument(documentId: DocumentID.created(seed: seed, at: epoch), revision: 1) }

    /// The UTF-8 text of the file at `path` (relative to `folder`), of at most `limit` bytes, or
    /// an error at `file`:`line` that says `what` could not be read and why.
    private static func text(of path: String, in folder: String, limit: Int, what: String, file: String, line: Int) throws(ScenarioError) -> String {
        let bytes: [UInt8]
        do { bytes = try UserFile.read(resolve(path, in: folder), limit: limit) } catch {
            throw ScenarioError(file: file, line: line, message: "\(what): \(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ScenarioError(file: file, line: line, message: "\(what) is not UTF-8 text")
        }
        return text
    }

    private static func isProfile(_ step: Step) -> Bool {
        if case .profile = step { return true }
        return false
    }

    private mutating func apply(_ line: Scenario.Line, folder: String, file: String) throws(ScenarioError) {
        switch line.step {
        case .platform(let platform): self.platform = platform
        case .epoch(let epoch): self.epoch = epoch
        case .seed(let seed): self.seed = seed
        case .profile(let name): profile = name
        case .sharedLegacy(let enabled): legacyEnabled = enabled
        case .sharedDamaged: damaged = true
        case .alarmMinimum(let minimum): alarmMinimum = minimum
        case .backgroundLoadTime(let time): backgroundLoadTime = time
        case .handlerReuse: handlerReuse = true
        case .handlerFresh: handlerReuse = false
        case .handlerSource(let path):
            let full = Self.resolve(path, in: folder)
            guard FileManager.default.fileExists(atPath: full) else {
                throw ScenarioError(file: file, line: line.number, message: "handler source \(path): no such file or folder")
            }
            handlerSources.append(full)
        case .freshInstall: freshInstall = true
        case .probe(let path):
            isProbe = true
            probeExtension = path.map { Self.resolve($0, in: folder) }
        case .groupDefaults(let suite, let key, let value):
            var values = groupDefaults[suite] ?? [:]
            if let key, let value { values[key] = value }
            groupDefaults[suite] = values
        case .expectFailure: break
        case .watchdog(let milliseconds): watchdogMilliseconds = milliseconds
        case .heapLimit(let mebibytes): heapLimitMiB = mebibytes
        case .fetchStub(let url, let status, .text(let body)): fetchStubs[url] = FetchStub(status: status, body: body)
        case .fetchStub(let url, let status, .file(let path)):
            let body = try Self.text(of: path, in: folder, limit: Self.fetchBodyLimit, what: "fetch \(url): \(path)", file: file, line: line.number)
            fetchStubs[url] = FetchStub(status: status, body: body)
        case .extensionFolder(let path, let pages):
            extensionPages = pages
            let full = Self.resolve(path, in: folder)
            switch ExtensionManifest.runnable(folder: full) {
            case .failure(let problem): throw ScenarioError(file: file, line: line.number, message: "extension \(path): \(problem)")
            case .success(let manifest):
                extensionFolder = full
                persistentBackground = manifest.background?.persistent == true
                extensionLine = line.number
                if pages { popupControls = manifest.popupControls }
            }
        case .shared(.file(let path)): shared = try Self.document(path, folder: folder, file: file, line: line.number)
        case .cache(.file(let path)): cache = try Self.document(path, folder: folder, file: file, line: line.number)
        case .shared(let change):
            var document = shared ?? emptyDocument
            apply(change, to: &document)
            shared = document
        case .cache(let change):
            // The cache starts as the shared document so far, one revision behind it. With no
            // shared document it came from one since gone: another document, which the
            // handler's new one never matches (a cache can only equal what it was made from).
            var document = cache ?? shared ?? SettingsDocument(documentId: DocumentID.created(seed: ~seed, at: epoch), revision: 1)
            apply(change, to: &document)
            document.revision = max(0, (shared?.revision ?? 1) - 1)
            cache = document
        case .app, .safari, .tab, .popup, .appearance, .background, .handler, .hold, .release, .crash, .fail, .legacy, .menuClick, .command, .actionClick, .optionsOpen, .permission, .permissionRevoke, .advance,
             .deviceSleep, .settle, .expect:
            preconditionFailure("not a setup step: \(line.text)")
        }
    }

    private func apply(_ change: StartingDocument, to document: inout SettingsDocument) {
        switch change {
        case .defaults(let values):
            if let mode = values.mode { document.defaults.mode = mode }
            if let theme = values.theme { document.defaults.theme = theme }
            if let policy = values.nativeDarkPolicy { document.defaults.nativeDarkPolicy = policy }
            if let schedule = values.schedule { document.defaults.schedule = schedule }
        case .site(let key, let set):
            var values = document.sites[key.key]?.values ?? SiteValues()
            if let mode = set.mode { values.mode = mode }
            if let theme = set.theme { values.theme = theme }
            if let policy = set.nativeDarkPolicy { values.nativeDarkPolicy = policy }
            var changed: [SiteField: Stamp] = [:]
            for field in values.fields { changed[field] = Stamp(at: epoch) }
            document.sites[key.key] = SiteRecord(values: values, changedAt: changed)
        case .file:
            preconditionFailure("a document file replaces the document")
        }
    }

    /// A settings document from a file, its path relative to the scenario's folder: a regular
    /// file no larger than a document may be.
    static func document(_ path: String, folder: String, file: String, line: Int) throws(ScenarioError) -> SettingsDocument {
        let full = Self.resolve(path, in: folder)
        let bytes: [UInt8]
        do { bytes = try UserFile.read(full, limit: DocumentCodec.maximumBytes) } catch {
            throw ScenarioError(file: file, line: line, message: "\(path): \(error)")
        }
        do { return try DocumentCodec.decode(bytes).document } catch {
            throw ScenarioError(file: file, line: line, message: "\(path): \(error)")
        }
    }

    /// `path` as a scenario names it, relative to the scenario's folder unless absolute, with
    /// each `NAME/..` taken out (as `Scenarios/handlers/reading` for `../handlers/reading` in
    /// `Scenarios/extensions`), so runs and traces name it plainly.
    static func resolve(_ path: String, in folder: String) -> String {
        guard !path.hasPrefix("/"), !folder.isEmpty else { return path }
        var parts: [Substring] = []
        for part in (folder + "/" + path).split(separator: "/", omittingEmptySubsequences: false) {
            if part == "..", let last = parts.last, last != "..", last != ".", !last.isEmpty {
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
