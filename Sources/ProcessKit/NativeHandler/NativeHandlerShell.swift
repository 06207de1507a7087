import SiteSettings

extension NativeHandlerMachine: ContainerMachine {
    public static func input(from outcome: ContainerOutcome) -> Input { .container(outcome) }

    public static func operation(of directive: Directive) -> ContainerOperation? {
        if case .container(let operation) = directive { return operation }
        return nil
    }
}

/// The native handler's process: serves one request, answers, and ends; with `--reuse` (the
/// system keeping the app extension's process), it serves requests in turn until the harness
/// closes its input, keeping its statics between them.
public enum NativeHandlerShell {
    public static func main(arguments: [String]) -> Int32 {
        let reuse = arguments.last == "--reuse"
        guard let (directory, free) = ChildExit.options(reuse ? Array(arguments.dropLast()) : arguments, option: "--container") else {
            ChildExit.printUsage("usage: NativeHandler --container DIRECTORY [--free] [--reuse] (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        return serve(gate: .standardStreams(free: free, role: .handler),
                     storage: FileContainer(directory: directory, blocking: free), reuse: reuse)
    }

    /// The shell of the process: frames through `gate`, the container in `storage` (the
    /// in-process transport steps the same work through `stepped`).
    public static func serve<Storage: ContainerStorage>(gate: WireGate, storage: Storage, reuse: Bool = false) -> Int32 {
        var executor = ContainerExecutor(storage: storage, gate: gate)
        var statics = NativeHandlerMachine.Statics()
        var servedAny = false
        while let message = executor.gate.receive() {
            let (answer, served) = respond(to: message, on: &executor, statics: &statics)
            executor.gate.send(answer)
            if served && !reuse { return ChildExit.success }
            servedAny = servedAny || served
        }
        // A reused process ends when the harness closes its input.
        return servedAny ? ChildExit.success : ChildExit.harnessGone
    }

    /// The handler's answer to one frame from the harness: the `done` frame with its reply
    /// once a request has run (`served`), or an `error` frame for anything else. Shared by the
    /// process and by the native fuzzer, which runs millions of frames without one.
    public static func respond<Storage, Gate>(to message: ToChild, on executor: inout ContainerExecutor<Storage, Gate>) -> (FromChild, served: Bool) {
        var statics = NativeHandlerMachine.Statics()
        return respond(to: message, on: &executor, statics: &statics)
    }

    /// The same, in a process that keeps `statics` from one request to the next.
    static func respond<Storage, Gate>(to message: ToChild, on executor: inout ContainerExecutor<Storage, Gate>,
                                       statics: inout NativeHandlerMachine.Statics) -> (FromChild, served: Bool) {
        guard case .input(let input, let now, _, let seed, let flaws) = message else {
            return (.error("expected an input frame"), false)
        }
        var machine = NativeHandlerMachine()
        machine.statics = statics
        switch prepare(input, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor) {
        case .failure(let refusal):
            return (.error(refusal.message), false)
        case .success(let input):
            let directives = machine.run(input, on: &executor)
            statics = machine.statics
            return (.done(.handler(directives.compactMap(NativeHandlerWire.output)), lockWaits: executor.storage.takeLockWaits()), true)
        }
    }

    /// A request frame read into a new machine's input, with its flaws switched on.
    static func prepare<Storage, Gate>(_ given: ChildInput, now: EpochMillis, seed: UInt64, flaws: [String], machine: inout NativeHandlerMachine,
                                       executor: inout ContainerExecutor<Storage, Gate>) -> Result<NativeHandlerMachine.Input, ShellRefusal> {
        guard case .handler(let event) = given else {
            return .failure(ShellRefusal("invalid input: the native handler takes only its own inputs"))
        }
        let statics = machine.statics
        machine = NativeHandlerMachine()
        machine.statics = statics
        machine.flaws = Flaw.set(flaws)
        executor.inPlaceWrites = machine.flaws.contains(.inPlaceWrites)
        return .success(NativeHandlerWire.input(for: event, now: now, seed: seed))
    }
}
