#if canImport(Glibc)
import Glibc
#endif
import SiteSettings

extension NativeHandlerMachine: ContainerMachine {
    public static func input(from outcome: ContainerOutcome) -> Input { .container(outcome) }

    public static func operation(of directive: Directive) -> ContainerOperation? {
        if case .container(let operation) = directive { return operation }
        return nil
    }
}

/// The native handler's process: serves exactly one request from stdin, answers on stdout, exits.
public enum NativeHandlerShell {
    public static func main(arguments: [String]) -> Int32 {
        guard arguments.count == 2, arguments[0] == "--container" else {
            ChildExit.printUsage("usage: NativeHandler --container DIRECTORY (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        var gate = WireGate(reader: FrameReader(descriptor: 0, limit: Framing.requestLimit),
                            writer: FrameWriter(descriptor: 1), now: 0)
        while true {
            guard case .input(let input, let now, let seed, _) = gate.receive() else {
                gate.send(.error("expected an input frame"))
                continue
            }
            guard let request = NativeHandlerWire.message(in: input) else {
                gate.send(.error("invalid frame: the native handler takes only nativeRequest inputs"))
                continue
            }
            var executor = ContainerExecutor(storage: FileContainer(directory: arguments[1]), gate: gate)
            var machine = NativeHandlerMachine()
            let directives = machine.run(.requestArrived(request, now: now, seed: seed), on: &executor)
            executor.gate.send(.done(directives.compactMap(NativeHandlerWire.json)))
            return ChildExit.success
        }
    }
}
