import ProcessKit
import SiteSettings

/// What a scenario's own setup lines change in what plays each role, over the executables the
/// command chose: the extension's runtime limits (`watchdog`, `heap-limit`), its network's
/// answers (`fetch`), a probe's extension (`probe`) and the team's handler (`handler source`);
/// and the steps a team's handler cannot take.
struct ScenarioRoles {
    let scenario: Scenario
    let setup: ScenarioSetup
    let transport: Simulation.Transport

    /// Why a scenario cannot run here, said instead of a pass.
    struct Skipped: Error, CustomStringConvertible {
        let description: String
    }

    /// The manifest of the extension `background` runs (the scenario's, a probe's or the
    /// command's), if it runs one, as Safari reads it: each `command NAME` must name one of its
    /// commands (`_execute_action` and its kin open the popup: `popup open TAB`), `options open`
    /// needs its options page (unless an update to another folder's files comes first), and
    /// Safari on iOS refuses a persistent background, which skips the run, saying why.
    func installed(by background: ProcessExecutables.Command) throws(ScenarioErrors) -> Result<ExtensionManifest?, Skipped> {
        let manifest = ExtensionVersion.manifest(of: background)
        let commands = manifest?.commandNames ?? []
        var errors: [ScenarioError] = []
        var updated = false
        for line in scenario.lines {
            if case .safari(.updateExtension(_, _?)) = line.step { updated = true }
            if case .optionsOpen = line.step, manifest != nil, manifest?.optionsPage == nil, !updated {
                errors.append(ScenarioError(file: scenario.name, line: line.number,
                                            message: "the extension has no options page (its manifest gives neither options_ui.page nor options_page)"))
            }
            guard case .command(let name) = line.step else { continue }
            if name.hasPrefix("_execute_") {
                errors.append(ScenarioError(file: scenario.name, line: line.number, message: "'\(name)' opens the extension's popup rather than firing commands.onCommand: use 'popup open TAB'"))
            } else if !commands.contains(name) {
                errors.append(ScenarioError(file: scenario.name, line: line.number,
                                            message: "the extension has no command '\(name)' (its manifest's commands: \(commands.isEmpty ? "none" : commands.joined(separator: ", ")))",
                                            suggestion: nearestWord(name, in: commands)))
            }
        }
        if !errors.isEmpty { throw ScenarioErrors(errors) }
        if manifest?.background?.persistent == true && setup.platform == .iOS {
            return .failure(Skipped(description: "Safari on iOS refuses a persistent background (\"Cannot load persistent background content on this platform\"): "
                + "the extension's Manifest V2 background does not say \"persistent\": false"))
        }
        return .success(manifest)
    }

    /// `executables` with the team's handler the `handler source` lines name built into the
    /// handler role, in place of any the command line named. In process there is none to build:
    /// the run is skipped, saying why. A build error is the first line's mistake.
    func withTeamHandler(_ executables: ProcessExecutables) throws(ScenarioErrors) -> Result<ProcessExecutables, Skipped> {
        guard !setup.handlerSources.isEmpty else { return .success(executables) }
        guard transport == .process else { return .failure(Skipped(description: "its handler is the team's Swift, built into a process of its own: the process transport only")) }
        var chosen = executables
        do {
            chosen.handler = ProcessExecutables.Command(path: try TeamHandler.build(setup.handlerSources, cacheFolder: TeamHandler.cacheFolder))
            chosen.teamHandler = true
        } catch {
            let line = scenario.lines.first { if case .handlerSource = $0.step { true } else { false } }?.number ?? 0
            throw ScenarioErrors([ScenarioError(file: scenario.name, line: line, message: "handler source: \(error)")])
        }
        return .success(chosen)
    }

    /// A probe's extension, with its own pages: the one the command named, else the probe
    /// line's; its tabs open at an address its first content script matches (nil: it has none,
    /// and the tabs keep their own). Why it cannot run, if it cannot.
    func probe(_ named: String?, _ executables: ProcessExecutables) -> Result<(executables: ProcessExecutables, address: String?, folder: String), Skipped> {
        guard let folder = named ?? setup.probeExtension else {
            return .failure(Skipped(description: "a probe runs an extension: give --extension DIR, or name one on its 'probe' line"))
        }
        let address: String?
        switch ExtensionManifest.load(folder: folder) {
        case .failure(let problems): return .failure(Skipped(description: "extension \(folder): " + problems.errors.joined(separator: "; ")))
        case .success(let (manifest, _)): address = manifest.contentScripts.first?.matches.first.map(PageRuntime.address(matching:))
        }
        switch ExtensionRuntime.background(replacing: executables, extension: folder, transport: transport, ownPages: true) {
        case .success(let chosen): return .success((chosen, address, folder))
        case .failure(let reason): return .failure(Skipped(description: reason.description))
        }
    }

    /// The scenario's `fetch` lines, written beside the run's folder (`beside`) for the
    /// extension's JavaScript, whose runtime reads them as each incarnation starts (`--fetch
    /// FILE`, added to `executables`); the file's path, nil when it has none. Only an
    /// extension's JavaScript fetches: with another background, the lines are a mistake.
    func fetchStubs(_ executables: inout ProcessExecutables, beside directory: String) throws(ScenarioErrors) -> String? {
        guard !setup.fetchStubs.isEmpty else { return nil }
        guard ExtensionRuntime.runs(executables.background) else {
            let line = scenario.lines.first { if case .fetchStub = $0.step { true } else { false } }?.number ?? 0
            throw ScenarioErrors([ScenarioError(file: scenario.name, line: line,
                                                message: "'fetch' answers an extension's JavaScript, and this run's background is not one: name it with 'extension DIR', or run with --extension DIR")])
        }
        let path = directory + ".fetch.json"
        let json = JSONValue.object(setup.fetchStubs.mapValues { .object(["status": .integer(Int64($0.status)), "body": .string($0.body)]) })
        do { try FileIO.writeSynced(JSONWriter.compact(json), to: path, name: path) } catch {
            throw ScenarioErrors([ScenarioError(file: scenario.name, line: 0, message: "the fetch answers could not be written to \(path): \(error)")])
        }
        executables.background.arguments += ["--fetch", path]
        executables.backgroundHost?.arguments += ["--fetch", path]
        return path
    }

    /// The steps only the built-in handler can take, each a mistake with a team's handler: it
    /// answers in messages of its own (no `handler garbage` stands for them), and it runs its
    /// Swift as it ships, with no yield points to hold, crash or fail it at.
    func refuseBuiltInHandlerSteps() throws(ScenarioErrors) {
        var errors: [ScenarioError] = []
        for line in scenario.lines {
            let refusal: String? = switch line.step {
            case .handler(.garbage): "'handler garbage' needs the built-in handler: the team's handler answers in messages of its own"
            case .hold(.handler, let point), .crash(.handler, let point), .fail(.handler, let point, _, _):
                "the team's handler has no yield points (it runs its Swift as it ships), so nothing can stop it at \(point.rawValue)"
            default: nil
            }
            if let refusal { errors.append(ScenarioError(file: scenario.name, line: line.number, message: refusal)) }
        }
        if !errors.isEmpty { throw ScenarioErrors(errors) }
    }

    /// `executables` with the `watchdog` and `heap-limit` lines given to the extension's runtime:
    /// its background's and its pages'. Only an extension's JavaScript has them: with another
    /// background, either line is a mistake.
    func limited(_ executables: ProcessExecutables) throws(ScenarioErrors) -> ProcessExecutables {
        let watchdog = setup.watchdogMilliseconds, heap = setup.heapLimitMiB
        guard watchdog != nil || heap != nil else { return executables }
        guard ExtensionRuntime.runs(executables.background) else {
            let line = scenario.lines.first { line in
                switch line.step {
                case .watchdog, .heapLimit: true
                default: false
                }
            }!
            let word = if case .watchdog = line.step { "watchdog" } else { "heap-limit" }
            throw ScenarioErrors([ScenarioError(file: scenario.name, line: line.number,
                                                message: "'\(word)' limits an extension's JavaScript, and this run's background is not one: name it with 'extension DIR', or run with --extension DIR")])
        }
        func limited(_ command: ProcessExecutables.Command) -> ProcessExecutables.Command {
            ExtensionRuntime.with(watchdogMilliseconds: watchdog, heapLimitMiB: heap, command)
        }
        var chosen = executables
        chosen.background = limited(executables.background)
        chosen.backgroundHost = executables.backgroundHost.map(limited)
        chosen.pages = executables.pages.map(limited)
        return chosen
    }
}

/// What plays each role, in words, for a run's header and its trace: the built-in process, an
/// executable a command named, an extension's folder, or the sources a team's handler was built
/// from. A scenario's own `extension` and `handler source` lines change it for that run.
package struct RoleNames: Sendable, Equatable, CustomStringConvertible {
    package var app = "built-in"
    package var background = "built-in"
    package var handler = "built-in"

    package init() {}

    package static func extensionFolder(_ folder: String) -> String { "extension \(folder)" }
    package static func executable(_ path: String) -> String { "executable \(path)" }
    package static func handlerSources(_ paths: [String]) -> String { "built from \(paths.joined(separator: ", "))" }

    package var description: String { "app \(app), background \(background), handler \(handler)" }
}
