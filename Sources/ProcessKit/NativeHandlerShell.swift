import SiteSettings

extension NativeHandlerMachine: ContainerMachine {
    public static func input(from outcome: ContainerOutcome) -> Input { .container(outcome) }

    public static func operation(of directive: Directive) -> ContainerOperation? {
        if case .container(let operation) = directive { return operation }
        return nil
    }
}

/// The native handler's process: serves exactly one request, answers, and ends.
public enum NativeHandlerShell {
    public static func main(arguments: [String]) -> Int32 {
        guard let directory = ChildExit.directory(arguments, option: "--container") else {
            ChildExit.printUsage("usage: NativeHandler --container DIRECTORY (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        return serve(gate: .standardStreams,
                     storage: FileContainer(directory: directory))
    }

    /// The shell on any transport: frames through `gate`, the container in `storage`.
    public static func serve<Storage: ContainerStorage>(gate: WireGate, storage: Storage) -> Int32 {
        var executor = ContainerExecutor(storage: storage, gate: gate)
        while let message = executor.gate.receive() {
            guard case .input(let input, let now, let seed, let flaws) = message else {
                executor.gate.send(.error("expected an input frame"))
                continue
            }
            guard let request = NativeHandlerWire.message(in: input) else {
                executor.gate.send(.error("invalid frame: the native handler takes only nativeRequest inputs"))
                continue
            }
            var machine = NativeHandlerMachine()
            machine.flaws = Flaw.set(flaws)
            executor.inPlaceWrites = machine.flaws.contains(.inPlaceWrites)
            let directives = machine.run(.requestArrived(request, now: now, seed: seed), on: &executor)
            executor.gate.send(.done(directives.compactMap(NativeHandlerWire.json)))
            return ChildExit.success
        }
        return ChildExit.harnessGone
    }
}
