import SiteSettings

/// The app's process: runs until its input ends, one input frame at a time.
public enum AppShell {
    public static func main(arguments: [String]) -> Int32 {
        guard let (directory, free) = ChildExit.options(arguments, option: "--container") else {
            ChildExit.printUsage("usage: AppProcess --container DIRECTORY [--free] (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        return serve(gate: .standardStreams(free: free),
                     storage: FileContainer(directory: directory, blocking: free))
    }

    /// The shell on any transport: frames through `gate`, the container in `storage`.
    public static func serve<Storage: ContainerStorage>(gate: WireGate, storage: Storage) -> Int32 {
        var executor = ContainerExecutor(storage: storage, gate: gate)
        var machine = AppMachine()
        while let message = executor.gate.receive() {
            guard case .input(let json, let now, let seed, let flaws) = message else {
                executor.gate.send(.error("expected an input frame"))
                continue
            }
            let input: AppMachine.Input
            do { input = try AppWire.input(for: AppWire.decode(json), now: now, seed: seed) } catch {
                executor.gate.send(.error("invalid input: \(error)"))
                continue
            }
            machine.flaws = Flaw.set(flaws)
            executor.inPlaceWrites = machine.flaws.contains(.inPlaceWrites)
            let directives = machine.run(input, on: &executor)
            executor.gate.send(.done(directives.compactMap(AppWire.json), lockWaits: executor.storage.takeLockWaits()))
        }
        return ChildExit.harnessGone
    }
}
