/// One input of a container machine carried out a yield point at a time: the run stops where
/// its current operation waits, and goes on when given the answer there. `run(_:on:)` drives it
/// straight through a gate; the harness's in-process transport drives it message by message,
/// so a process it holds at a yield point waits there with no thread of its own.
public struct ContainerRun<Machine: ContainerMachine> {
    public enum Progress {
        /// The current operation waits at this yield point for its answer.
        case waits(YieldPoint)
        /// The input is handled: the directives the harness carries out, in order.
        case finished([Machine.Directive])
    }

    private var pending: [Machine.Directive]
    private var external: [Machine.Directive] = []
    /// The operation under way and the number of its yield point it waits at.
    private var current: (operation: ContainerOperation, phase: Int)?

    /// The machine takes the input.
    public init(_ machine: inout Machine, _ input: Machine.Input) {
        pending = machine.handle(input)
    }

    /// Goes on: with nil at the start, else with the answer at the point it waits at.
    public mutating func advance<Storage, Gate>(_ machine: inout Machine, on executor: inout ContainerExecutor<Storage, Gate>,
                                                answer: YieldAnswer?) -> Progress {
        if let (operation, phase) = current, let answer {
            guard let outcome = executor.step(operation, phase: phase, answer: answer) else {
                current = (operation, phase + 1)
                return .waits(executor.points(of: operation)[phase + 1])
            }
            current = nil
            pending += machine.handle(Machine.input(from: outcome))
        }
        while !pending.isEmpty {
            let directive = pending.removeFirst()
            if let operation = Machine.operation(of: directive) {
                current = (operation, 0)
                return .waits(executor.points(of: operation)[0])
            }
            external.append(directive)
        }
        return .finished(external)
    }
}
