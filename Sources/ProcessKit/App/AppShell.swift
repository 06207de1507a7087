import SiteSettings

/// The app's process: runs until its input ends, one input frame at a time.
public enum AppShell {
    public static func main(arguments: [String]) -> Int32 {
        guard let (directory, free) = ChildExit.options(arguments, option: "--container") else {
            ChildExit.printUsage("usage: AppProcess --container DIRECTORY [--free] (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        return serve(gate: .standardStreams(free: free, role: .app),
                     storage: FileContainer(directory: directory, blocking: free))
    }

    /// The shell of the process: frames through `gate`, the container in `storage` (the
    /// in-process transport steps the same work through `stepped`).
    public static func serve<Storage: ContainerStorage>(gate: WireGate, storage: Storage) -> Int32 {
        var gate = gate
        var core = core(storage: storage)
        core.serve(&gate)
        return ChildExit.harnessGone
    }

    /// An input frame read into the machine's input, with its flaws switched on.
    static func prepare<Storage, Gate>(_ given: ChildInput, now: EpochMillis, seed: UInt64, flaws: [String], machine: inout AppMachine,
                                       executor: inout ContainerExecutor<Storage, Gate>) -> Result<AppMachine.Input, ShellRefusal> {
        guard case .app(let event) = given else { return .failure(ShellRefusal("invalid input: the app takes only its own inputs")) }
        let input: AppMachine.Input
        do { input = try AppWire.input(for: event, now: now, seed: seed) } catch {
            return .failure(ShellRefusal("invalid input: \(error)"))
        }
        machine.flaws = Flaw.set(flaws)
        executor.inPlaceWrites = machine.flaws.contains(.inPlaceWrites)
        return .success(input)
    }
}
