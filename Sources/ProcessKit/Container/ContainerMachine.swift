/// A state machine whose container operations its shell runs to completion within one input:
/// the app and the native handler. (Extension storage is different: its results arrive as
/// later inputs.)
public protocol ContainerMachine {
    associatedtype Input
    associatedtype Directive

    mutating func handle(_ input: Input) -> [Directive]
    /// The input that carries a container operation's outcome back.
    static func input(from outcome: ContainerOutcome) -> Input
    /// The container operation a directive asks for, or nil for one the harness carries out.
    static func operation(of directive: Directive) -> ContainerOperation?
}

extension ContainerMachine {
    /// Feeds one input and runs the machine's container operations on `executor`, each outcome
    /// becoming the next input, stopping at each yield point for the gate's answer. Returns the
    /// directives the harness carries out, in order.
    public mutating func run<Storage, Gate>(_ input: Input, on executor: inout ContainerExecutor<Storage, Gate>) -> [Directive] {
        var run = ContainerRun(&self, input)
        var progress = run.advance(&self, on: &executor, answer: nil)
        while case .waits(let point) = progress {
            progress = run.advance(&self, on: &executor, answer: executor.gate.yield(point))
        }
        guard case .finished(let directives) = progress else { preconditionFailure("a run ends finished") }
        return directives
    }
}

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
