import SiteSettings

/// The app's or the native handler's work for an input: its machine's container operations,
/// a yield point at a time.
public struct ContainerCore<Machine: ContainerMachine, Storage: ContainerStorage>: ShellCore {
    /// Reads an input frame into the machine's input, setting up the machine and executor for
    /// it (its flaws); a refusal that says why when the frame is not a valid input.
    public typealias Prepare = (_ input: ChildInput, _ now: EpochMillis, _ seed: UInt64, _ flaws: [String],
                                _ machine: inout Machine, _ executor: inout ContainerExecutor<Storage, NoGate>) -> Result<Machine.Input, ShellRefusal>

    private var machine: Machine
    private var executor: ContainerExecutor<Storage, NoGate>
    private var run: ContainerRun<Machine>?
    private let prepare: Prepare
    private let travel: ([Machine.Directive]) -> ShellDirectives
    private let servesOnce: Bool
    /// A shell that serves one input (the handler) has ended once it answered it.
    public private(set) var ended = false

    /// `travel` gives the directives of an input that leave the process.
    public init(machine: Machine, storage: Storage, servesOnce: Bool, prepare: @escaping Prepare, travel: @escaping ([Machine.Directive]) -> ShellDirectives) {
        self.machine = machine
        executor = ContainerExecutor(storage: storage, gate: NoGate())
        self.servesOnce = servesOnce
        self.prepare = prepare
        self.travel = travel
    }

    public mutating func begin(_ input: ChildInput, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal> {
        prepare(input, now, seed, flaws, &machine, &executor).map { input in
            var run = ContainerRun(&machine, input)
            return progress(run: &run, answer: nil)
        }
    }

    public mutating func advance(answer: YieldAnswer) -> ShellProgress {
        guard var run else { preconditionFailure("an answer with no operation waiting") }
        return progress(run: &run, answer: answer)
    }

    private mutating func progress(run: inout ContainerRun<Machine>, answer: YieldAnswer?) -> ShellProgress {
        switch run.advance(&machine, on: &executor, answer: answer) {
        case .waits(let point):
            self.run = run
            return .waits(point)
        case .finished(let directives):
            self.run = nil
            if servesOnce { ended = true }
            return .finished(.done(travel(directives), lockWaits: executor.storage.takeLockWaits()))
        }
    }
}
