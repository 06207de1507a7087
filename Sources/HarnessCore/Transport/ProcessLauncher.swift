#if canImport(Glibc)
import Glibc
#endif
import ProcessKit
import SiteSettings

/// Starts incarnations of the three processes on a run's transport: real executables over
/// pipes, or the same shells stepped by the harness over the simulated disk. It numbers
/// incarnations per process (`handler#12`) and knows where each one's files are.
struct ProcessLauncher {
    let transport: Simulation.Transport
    /// What plays each role on the process transport.
    let executables: ProcessExecutables
    let containerDirectory: String
    let disk: SimulatedDisk
    let seed: UInt64
    let trace: Trace
    /// Only for proving the transport-equality check: in-process processes hide this yield point.
    var hiddenYield: YieldPoint?
    /// Handlers start to serve requests in turn (`NativeHandler --reuse`).
    var handlerReuse = false
    /// The folder of the extension's files an update installed, which later backgrounds run
    /// (`runtime.mjs --installed FOLDER`); nil: the run's (`--extension`).
    var installedExtension: String?
    private(set) var incarnations: [ProcessName: Int] = [:]
    /// On real processes, each role's next process, started ahead of need (on another thread)
    /// with the arguments it will get, so that its start-up overlaps the run's other work; it
    /// waits for its first frame. Taken only when the arguments match (a background over
    /// another profile's folder starts afresh), and numbered when taken: traces, incarnations
    /// and yield arrivals are those of a process started at need.
    private var spares: [ProcessName: (arguments: [String], process: StartingProcess)] = [:]
    /// The host of the backgrounds' contexts, when they run in one (`backgroundHost`), taken
    /// from the pool for this run and given back at its end; its next incarnation is opened
    /// ahead of need, as a spare process is started.
    private(set) var host: ContextHost?
    private var spareContext: (arguments: [String], context: HostedContext)?

    /// The largest frame read from a handler: a 1 MiB reply and its envelope.
    static let handlerFrameLimit = Framing.replyLimit + 4096

    init(transport: Simulation.Transport, executables: ProcessExecutables, containerDirectory: String, disk: SimulatedDisk, seed: UInt64, trace: Trace) {
        self.transport = transport
        self.executables = executables
        self.containerDirectory = containerDirectory
        self.disk = disk
        self.seed = seed
        self.trace = trace
        if transport == .process, let command = executables.backgroundHost { host = ContextHostPool.take(command) }
    }

    private var installed: [String] { installedExtension.map { ["--installed", $0] } ?? [] }

    /// The number of the latest incarnation of a process (0 before the first).
    func incarnation(of name: ProcessName) -> Int { incarnations[name] ?? 0 }

    /// Starts the next incarnation. A background runs over a profile's extension storage: its
    /// folder on disk, or its folder on the simulated disk.
    mutating func start(_ name: ProcessName, storageDirectory: @autoclosure () -> String, storageFolder: String) throws -> ProcessDriver {
        let incarnation = self.incarnation(of: name) + 1
        incarnations[name] = incarnation
        // Browsers cap a native reply at 1 MiB; the frame around it adds a small envelope. The
        // app's and the background's frames are capped like frames to a child.
        // A team's handler answers in its own messages, as large as WebKit lets a message be
        // (`webExtensionMaxMessageLength`, 64 MiB).
        let limit = name == .handler && !executables.teamHandler ? Self.handlerFrameLimit : Framing.requestLimit
        let endpoint: FrameEndpoint
        switch (transport, name) {
        case (.process, .app):
            endpoint = try process(.app, ["--container", containerDirectory], replyLimit: limit)
        case (.process, .background) where host != nil:
            endpoint = try context(["--storage", storageDirectory()] + installed)
        case (.process, .background):
            endpoint = try process(.background, ["--storage", storageDirectory()] + installed, replyLimit: limit)
        case (.process, .handler):
            endpoint = try process(.handler, ["--container", containerDirectory] + (handlerReuse ? ["--reuse"] : []), replyLimit: limit)
        case (.inProcess, .app):
            let storage = SimulatedContainer(disk: disk, owner: "\(name.rawValue)#\(incarnation)")
            endpoint = SteppedChild(SimulatedApp(storage: storage), role: .app, limit: limit, hidingYield: hiddenYield)
        case (.inProcess, .background):
            let files = SimulatedExtensionFolder(disk: disk, location: storageFolder)
            endpoint = SteppedChild(SimulatedBackground(files: files), role: .background, limit: limit, hidingYield: hiddenYield)
        case (.inProcess, .handler):
            let storage = SimulatedContainer(disk: disk, owner: "\(name.rawValue)#\(incarnation)")
            endpoint = SteppedChild(SimulatedHandler(storage: storage, reuse: handlerReuse), role: .handler, limit: limit, hidingYield: hiddenYield)
        }
        let driver = ProcessDriver(name: name, incarnation: incarnation, endpoint: endpoint, seed: seed, trace: trace)
        if transport == .process && name == .background { driver.limits = ExtensionRuntime.Limits(executables.background) }
        return driver
    }

    /// `role`'s process with `arguments`: the spare when it was started with them, else a new
    /// one; then the next spare is started. Every process finds the run's container as its
    /// configuration folder (`XDG_CONFIG_HOME`), where swift-corelibs-foundation keeps
    /// `UserDefaults(suiteName:)`: a team's handler's App Group defaults are the run's.
    private mutating func process(_ role: ProcessName, _ arguments: [String], replyLimit: Int) throws(ChildProcess.SpawnError) -> ChildProcess {
        let environment = ["XDG_CONFIG_HOME": containerDirectory]
        let child: ChildProcess
        if let spare = spares.removeValue(forKey: role), spare.arguments == arguments, let started = spare.process.child {
            child = started
        } else {
            child = try executables.start(role, arguments, replyLimit: replyLimit, environment: environment)
        }
        let executables = self.executables
        spares[role] = (arguments, StartingProcess { try? executables.start(role, arguments, replyLimit: replyLimit, environment: environment) })
        return child
    }

    /// A background incarnation in the host, opened with `arguments`: the spare when it was
    /// opened with them, else a new one; then the next spare is opened.
    /// A host that died (killed with a stuck incarnation, or ended) is replaced, as a process
    /// of its own would be started afresh, and so is one that asked to be (its heap half full);
    /// its spare goes with it.
    private mutating func context(_ arguments: [String]) throws -> HostedContext {
        if !host!.isRunning || host!.retiring {
            ContextHostPool.give(host!)
            host = ContextHostPool.take(host!.command)
            spareContext = nil
        }
        let host = host!
        let context: HostedContext
        if let spare = spareContext, spare.arguments == arguments {
            context = spare.context
        } else {
            spareContext?.context.kill()
            context = try host.open(arguments: arguments, role: .background)
        }
        spareContext = (try? host.open(arguments: arguments, role: .background)).map { (arguments, $0) }
        return context
    }

    /// The process waiting to be `role`'s next.
    func spare(of role: ProcessName) -> ChildProcess? { spares[role]?.process.child }

    /// Ends the spare processes (the run is over).
    mutating func stopSpares() {
        for spare in spares.values { spare.process.child?.kill() }
        spares = [:]
        spareContext = nil
        if let host { ContextHostPool.give(host) }
        host = nil
    }
}
