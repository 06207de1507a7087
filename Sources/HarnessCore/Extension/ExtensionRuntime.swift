import Foundation
import ProcessKit
import SiteSettings

/// The JavaScript runtime an extension's background runs in (`PROTOCOL.md`, section 14): each
/// background incarnation in a context of a `node` host (`ContextHost`), or in a `node` process
/// of its own (`arguments`), speaking the background role's frames. Its files are
/// `Extension/JavaScript/*.mjs`, the target's resources, which the build puts beside the
/// executables (`folder`); node runs them where they are.
package enum ExtensionRuntime {
    /// The background's runtime, in `folder`.
    static let fileName = "runtime.mjs"

    /// The folder the build copies the runtime's files to, beside the executables.
    static let resourceFolder = "SafariExtensionLifecycle_HarnessCore.resources/JavaScript"

    /// The runtime's files beside the running executable (the harness, or the test bundle), or
    /// why they are not there: like the process executables, they are built beside it.
    static let folder: Result<String, Unavailable> = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let folder = executable.deletingLastPathComponent().appendingPathComponent(resourceFolder).path
        guard FileManager.default.fileExists(atPath: folder + "/" + fileName) else {
            return .failure(.missingFiles(folder))
        }
        return .success(folder)
    }()

    /// The background's runtime beside the running executable (`folder`).
    static func installed() throws(Unavailable) -> String {
        try folder.get() + "/" + fileName
    }

    /// How long a turn of a script may run, in wall time, before the runtime stops it as one
    /// that never yields. It only guards the harness against a hang (Safari has no such limit),
    /// so it is generous: on a loaded machine a niced run's turn took over 2 s.
    static let watchdogMilliseconds = 10_000

    /// The status an incarnation ends with when a script's turn ran past the watchdog:
    /// `directives.mjs`'s `watchdogExit`.
    static let watchdogExit: Int32 = 124

    /// The most heap, in MiB, each `node` process of the runtime may use (`--max-old-space-size`).
    /// A script that allocates without end runs out here, named as the cause of its death
    /// (invariant 18), rather than after the machine's memory, and soon: a background keeps
    /// a few MiB, a host of 40 incarnations about 60 (`ContextHostPool`).
    static let heapLimitMiB = 512

    /// The options every `node` process of the runtime starts with, before its script.
    static func nodeOptions(heapLimitMiB: Int = ExtensionRuntime.heapLimitMiB) -> [String] {
        ["--experimental-vm-modules", "--no-warnings", "--disallow-code-generation-from-strings", heapOption + String(heapLimitMiB)]
    }

    /// The arguments for `node` that run the runtime at `path` for the extension in `folder`;
    /// the harness adds its own (`--storage DIR`) after them.
    static func arguments(runtime path: String, extension folder: String, watchdogMilliseconds: Int = ExtensionRuntime.watchdogMilliseconds,
                                  heapLimitMiB: Int = ExtensionRuntime.heapLimitMiB, ownPages: Bool = false) -> [String] {
        nodeOptions(heapLimitMiB: heapLimitMiB) + [path, "--extension", folder, "--watchdog", String(watchdogMilliseconds)] + (ownPages ? ["--own-pages"] : [])
    }

    /// `command`, a runtime's, with the watchdog and the heap limit given (nil: as it was).
    static func with(watchdogMilliseconds: Int?, heapLimitMiB: Int?, _ command: ProcessExecutables.Command) -> ProcessExecutables.Command {
        var changed = command
        if let watchdogMilliseconds, let flag = command.arguments.firstIndex(of: "--watchdog"), flag + 1 < command.arguments.count {
            changed.arguments[flag + 1] = String(watchdogMilliseconds)
        }
        if let heapLimitMiB, let option = command.arguments.firstIndex(where: { $0.hasPrefix(heapOption) }) {
            changed.arguments[option] = heapOption + String(heapLimitMiB)
        }
        return changed
    }

    private static let heapOption = "--max-old-space-size="

    /// The limits a command of the runtime (the background's, or the page host's) was started
    /// with, read from its arguments; nil for another executable, or one given no limits.
    struct Limits: Equatable, Sendable {
        var watchdogMilliseconds: Int
        var heapLimitMiB: Int

        init?(_ command: ProcessExecutables.Command) {
            let arguments = command.arguments
            let heapOption = ExtensionRuntime.heapOption
            guard let heap = arguments.lazy.compactMap({ $0.hasPrefix(heapOption) ? Int($0.dropFirst(heapOption.count)) : nil }).first,
                  let flag = arguments.firstIndex(of: "--watchdog"), flag + 1 < arguments.count, let watchdog = Int(arguments[flag + 1]) else { return nil }
            watchdogMilliseconds = watchdog
            heapLimitMiB = heap
        }

        /// How a process of the runtime that ended with `status`, having written `stderr`, died:
        /// its watchdog, or its heap limit, when it says so; else as the system says.
        func death(_ status: ChildProcess.ExitStatus, stderr: String) -> ProcessDriver.Death {
            if status == .exited(ExtensionRuntime.watchdogExit) { return .scriptDidNotYield(milliseconds: watchdogMilliseconds) }
            // Node aborts when its heap is full, having said so ("… JavaScript heap out of memory").
            if status == .signaled(SIGABRT) && stderr.contains("heap out of memory") { return .outOfMemory(heapLimitMiB: heapLimitMiB) }
            return .status(status)
        }
    }

    /// Whether `command` runs this runtime (an extension's JavaScript), not another executable.
    package static func runs(_ command: ProcessExecutables.Command) -> Bool {
        command.arguments.contains { $0.hasSuffix("/" + fileName) }
    }

    /// The background's command on the process transport: `node` running the runtime at `path`.
    static func background(node: String, runtime path: String, extension folder: String, ownPages: Bool = false) -> ProcessExecutables.Command {
        ProcessExecutables.Command(path: node, arguments: arguments(runtime: path, extension: folder, ownPages: ownPages), environment: environment)
    }

    /// A background's environment: `NODE_PATH`, where a background page's DOM, jsdom, is
    /// looked for (the page host's: `PageRuntime.environment`).
    static let environment = PageRuntime.environment

    /// Why a run cannot have an extension's JavaScript as its background.
    package enum Unavailable: Error, CustomStringConvertible {
        case inProcess
        case noNode
        /// The pages' DOM, jsdom, is not installed in the folder named.
        case noJsdom(String)
        /// The runtime's files are not in the folder named, beside the executable.
        case missingFiles(String)

        package var description: String {
            switch self {
            case .inProcess: "its background is the extension's JavaScript, which runs in node: the process transport only"
            case .noNode: "node is not installed (not on PATH, /usr/bin or /usr/local/bin): the extension's JavaScript cannot run"
            case .noJsdom(let folder): "jsdom is not installed in \(folder): the extension's pages cannot run (install it: apt-get install node-jsdom)"
            case .missingFiles(let folder): "the JavaScript runtime is not in \(folder): it is built beside the harness (swift build), which must run from there"
            }
        }
    }

    /// `executables` with the background's role taken by the runtime over the extension in
    /// `folder`, the runtime's files where the build put them (`folder`); with `ownPages`, the extension's
    /// pages run too, in the page host (`PageRuntime`). Each incarnation runs in a context of a
    /// host (`ContextHost`) that runs after runs share, or in a process of its own when
    /// `executables` do not host backgrounds.
    /// (`jsdom`: the folder the pages' DOM is looked for in.)
    package static func background(replacing executables: ProcessExecutables, extension folder: String,
                                   transport: Simulation.Transport, ownPages: Bool = false,
                                   jsdom: String = PageRuntime.jsdomModules) -> Result<ProcessExecutables, Unavailable> {
        guard transport == .process else { return .failure(.inProcess) }
        guard let node = installedNode else { return .failure(.noNode) }
        do {
            var chosen = executables
            let absolute = ExtensionManifest.absolute(folder)
            let runtime = try installed()
            chosen.background = background(node: node, runtime: runtime, extension: absolute, ownPages: ownPages)
            chosen.backgroundHost = nil
            if executables.hostsBackgrounds {
                chosen.backgroundHost = chosen.background
                chosen.backgroundHost!.arguments.append("--host")
            }
            if ownPages {
                if let missing = PageRuntime.jsdomMissing(in: jsdom) { return .failure(missing) }
                chosen.pages = PageRuntime.command(node: node, runtime: try PageRuntime.installed(), extension: absolute)
            }
            return .success(chosen)
        } catch {
            return .failure(error)
        }
    }

    /// `node` on the harness's `PATH`, if it is there.
    package static var installedNode: String? { node(searchPath: ProcessInfo.processInfo.environment["PATH"]) }

    /// `node` on `searchPath` (a `PATH` value), if it is there.
    static func node(searchPath: String?) -> String? { tool("node", searchPath: searchPath) }

    /// The program `name` on `searchPath` (the harness's `PATH` unless given), `/usr/bin` or
    /// `/usr/local/bin`, if it is there.
    static func tool(_ name: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let folders = (searchPath ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What loading an extension's background showed: the events it listens for once loaded,
    /// its console at load (uncaught errors with their place), and why it did not load, if it
    /// did not (a script that never yields, a runtime that could not start).
    package struct Load: Sendable {
        package var listeners: [BackgroundListener] = []
        /// The events it added listeners for after its load, while the check ran on: Safari
        /// hears them from then on, and only the event that woke it misses them.
        package var laterListeners: [BackgroundListener] = []
        package var console: [(level: FromChild.LogLevel, message: String, at: String?)] = []
        package var failure: String?
        /// The uncaught exceptions and rejections, each with its place in the extension's
        /// folder (`background.js:17:6`) where the runtime knows it.
        package var uncaught: [(at: String?, message: String)] {
            console.filter { $0.level == .error && $0.message.hasPrefix("Uncaught") }.map { ($0.at, $0.message) }
        }
    }

    /// The runtime over one extension, as a process of its own: what a test or a check hands
    /// it, one input at a time, and what it answers.
    final class Session {
        private let child: ChildProcess
        private let limits: Limits?

        /// Starts `node` on the runtime at `runtime` for the extension in `folder`, its storage in
        /// `storage`, with exactly `environment` (a background's, by default).
        init(node: String, runtime: String, extension folder: String, storage: String, watchdogMilliseconds: Int = ExtensionRuntime.watchdogMilliseconds,
                     environment: [String: String] = ExtensionRuntime.environment) throws(ChildProcess.SpawnError) {
            let command = ProcessExecutables.Command(path: node, arguments: arguments(runtime: runtime, extension: folder, watchdogMilliseconds: watchdogMilliseconds))
            limits = Limits(command)
            child = try ChildProcess(executable: node, arguments: command.arguments + ["--storage", storage], environment: environment, role: .background)
        }

        deinit {
            child.kill()
            _ = child.wait()
        }

        /// The frames of the input during which the runtime ended, which `exchange` did not return.
        private(set) var unfinished: [FromChild] = []

        /// Hands it `input` and reads its frames up to the input's `done` or `error`, answering
        /// each yield point with `answer`; nil when the runtime ends first (its frames are
        /// `unfinished`).
        func exchange(_ input: ChildInput, now: EpochMillis, uptime: EpochMillis, seed: UInt64 = 1,
                              answer: (YieldPoint) -> ToChild = { _ in .proceed(now: 0) }) throws -> [FromChild]? {
            try exchange(frame: JSONWriter.compact(ToChild.input(input, now: now, uptime: uptime, seed: seed, flaws: []).json), answer: answer)
        }

        /// The same for an input frame written out already (as a test writes one, byte for byte).
        func exchange(frame: [UInt8], answer: (YieldPoint) -> ToChild = { _ in .proceed(now: 0) }) throws -> [FromChild]? {
            try child.send(frame)
            var frames: [FromChild] = []
            while let bytes = try child.receive(timeoutMilliseconds: 20_000) {
                let frame = try FromChild.decode(bytes, role: .background)
                frames.append(frame)
                switch frame {
                case .done, .error: return frames
                case .yield(let point, _): try child.send(JSONWriter.compact(answer(point).json))
                case .log, .hello: break
                }
            }
            unfinished = frames
            return nil
        }

        /// The end of the runtime's standard error, for a failure's message.
        var stderrTail: String { child.stderrTail }

        /// How the runtime ended, once an exchange found it ended: by its watchdog, out of
        /// memory, or as the system says (then with the end of its standard error).
        var ending: String {
            let death = ProcessDriver.Death(child.reap().status, stderr: child.stderrTail, limits: limits)
            guard case .status = death else { return "\(death)" }
            return "the runtime ended: \(death): \(child.stderrTail.trimmingCharacters(in: .whitespacesAndNewlines).suffix(1000))"
        }
    }

    /// How long a check lets a loaded part of an extension run on (timers, alarms, storage
    /// answers), in virtual time, and how many of its inputs it hands over at most.
    static let checkWindow: EpochMillis = 30_000
    static let checkTurns = 10_000
    /// The moment a check loads the extension at: 2026-03-01T09:00Z.
    static let checkStart: EpochMillis = 1_772_355_600_000

    /// Starts the background of the extension in `folder` once, as Safari loads it (its storage
    /// in a fresh folder, every yield point taken), then lets it run on until nothing is pending
    /// or `checkWindow` has passed: its storage answered, its timers and alarms fired (no native
    /// request is answered). Reports what came of it.
    package static func load(extension folder: String, node: String, watchdogMilliseconds: Int = ExtensionRuntime.watchdogMilliseconds) -> Load {
        var load = Load()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("extension-load-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let start = checkStart
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            let session = try Session(node: node, runtime: try installed(), extension: folder, storage: scratch,
                                      watchdogMilliseconds: watchdogMilliseconds)
            var pending = PendingBackgroundWork()
            var next: (event: ExtensionWire.Event, at: EpochMillis)? = (.started(appearance: .light, tabs: [:]), start)
            var turns = 0
            while let (event, at) = next, load.failure == nil {
                guard turns < checkTurns else {
                    load.failure = "it was still busy after \(checkTurns) inputs (timers, alarms and storage answers), \((at - start) / 1000) s after it loaded"
                    break
                }
                turns += 1
                let exchanged = try session.exchange(.background(event), now: at, uptime: at - start)
                if exchanged == nil { load.failure = session.ending }
                for frame in exchanged ?? session.unfinished {
                    switch frame {
                    case .log(let level, let message, let place): load.console.append((level, message, place))
                    case .done(.background(let outputs), _):
                        for case .listen(let events) in outputs {
                            if case .started = event { load.listeners = events } else {
                                load.laterListeners += events.filter { !load.listeners.contains($0) && !load.laterListeners.contains($0) }
                            }
                        }
                        pending.take(outputs, now: at)
                    case .error(let message): load.failure = message
                    case .done, .hello, .yield: break
                    }
                }
                next = pending.next(now: at, limit: start + checkWindow)
            }
        } catch {
            load.failure = "the runtime could not be run: \(error)"
        }
        return load
    }
}
