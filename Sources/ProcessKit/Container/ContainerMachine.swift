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
