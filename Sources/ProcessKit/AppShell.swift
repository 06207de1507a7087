import SiteSettings

/// The app's process: runs until its input ends, one input frame at a time.
public enum AppShell {
    public static func main(arguments: [String]) -> Int32 {
        guard arguments.count == 2, arguments[0] == "--container" else {
            ChildExit.printUsage("usage: AppProcess --container DIRECTORY (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        let gate = WireGate(reader: FrameReader(descriptor: 0, limit: Framing.requestLimit),
                            writer: FrameWriter(descriptor: 1), now: 0)
        var executor = ContainerExecutor(storage: FileContainer(directory: arguments[1]), gate: gate)
        var machine = AppMachine()
        while true {
            guard case .input(let json, let now, let seed, _) = executor.gate.receive() else {
                executor.gate.send(.error("expected an input frame"))
                continue
            }
            let input: AppMachine.Input
            do { input = try AppWire.decode(json, now: now, seed: seed) } catch {
                executor.gate.send(.error("invalid input: \(error)"))
                continue
            }
            let directives = machine.run(input, on: &executor)
            executor.gate.send(.done(directives.compactMap(AppWire.json)))
        }
    }
}
