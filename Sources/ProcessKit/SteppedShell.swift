import SiteSettings

/// A shell the harness runs message by message on its own thread: each message it takes gets
/// one answer, a `yield` where its current operation stops, `done` once the input is handled,
/// or `error`. It keeps its place between messages, even while it waits at a yield point. The
/// messages are the ones the process exchanges over its pipes, in the same order.
public protocol SteppedProcess {
    mutating func take(_ message: ToChild) -> FromChild
    /// It has served its one input (the handler) and takes nothing more.
    var ended: Bool { get }
}

extension ToChild {
    /// The harness's answer at a yield point, or nil for an input.
    public var answer: YieldAnswer? {
        switch self {
        case .proceed: .proceed
        case .fail(let errno, _, let after): after ? .failAfter(errno: errno) : .fail(errno: errno)
        case .input: nil
        }
    }
}

/// The app's or the native handler's shell, stepped.
public struct SteppedShell<Machine: ContainerMachine, Storage: ContainerStorage>: SteppedProcess {
    /// Reads an input frame into the machine's input, setting up the machine and executor for
    /// it (its flaws); a message that says why when the frame is not a valid input.
    public typealias Prepare = (_ input: JSONValue, _ now: EpochMillis, _ seed: UInt64, _ flaws: [String],
                                _ machine: inout Machine, _ executor: inout ContainerExecutor<Storage, NoGate>) -> Result<Machine.Input, ShellRefusal>

    private var machine: Machine
    private var executor: ContainerExecutor<Storage, NoGate>
    private var run: ContainerRun<Machine>?
    private var waitingAt: YieldPoint?
    private var seq = 0
    private let prepare: Prepare
    private let encode: (Machine.Directive) -> JSONValue?
    private let servesOnce: Bool
    /// A shell that serves one input (the handler) has ended once it answered it.
    public private(set) var ended = false

    public init(machine: Machine, storage: Storage, servesOnce: Bool, prepare: @escaping Prepare, encode: @escaping (Machine.Directive) -> JSONValue?) {
        self.machine = machine
        executor = ContainerExecutor(storage: storage, gate: NoGate())
        self.servesOnce = servesOnce
        self.prepare = prepare
        self.encode = encode
    }

    public mutating func take(_ message: ToChild) -> FromChild {
        if var run, let point = waitingAt {
            guard let answer = message.answer else { return .error("an input arrived while waiting at yield point '\(point.rawValue)'; ignored") }
            let progress = run.advance(&machine, on: &executor, answer: answer)
            self.run = run
            return output(progress)
        }
        guard case .input(let json, let now, let seed, let flaws) = message else { return .error("expected an input frame") }
        switch prepare(json, now, seed, flaws, &machine, &executor) {
        case .failure(let refusal):
            return .error(refusal.message)
        case .success(let input):
            var run = ContainerRun(&machine, input)
            let progress = run.advance(&machine, on: &executor, answer: nil)
            self.run = run
            return output(progress)
        }
    }

    private mutating func output(_ progress: ContainerRun<Machine>.Progress) -> FromChild {
        switch progress {
        case .waits(let point):
            waitingAt = point
            seq += 1
            return .yield(point, seq: seq)
        case .finished(let directives):
            run = nil
            waitingAt = nil
            if servesOnce { ended = true }
            return .done(directives.compactMap(encode), lockWaits: executor.storage.takeLockWaits())
        }
    }
}

/// Why a shell refused a frame: the text of its `error` frame.
public struct ShellRefusal: Error {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The gate of a shell resumed message by message: it never asks a gate, it is given each
/// answer.
public struct NoGate: YieldGate {
    public init() {}
    public mutating func yield(_ point: YieldPoint) -> YieldAnswer {
        preconditionFailure("a stepped shell is given its answer at '\(point.rawValue)', it never asks for one")
    }
}

extension AppShell {
    /// The app's shell, stepped: the same reading of inputs and the same directives as `serve`.
    public static func stepped<Storage: ContainerStorage>(storage: Storage) -> SteppedShell<AppMachine, Storage> {
        SteppedShell(machine: AppMachine(), storage: storage, servesOnce: false, prepare: { json, now, seed, flaws, machine, executor in
            prepare(json, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor)
        }, encode: AppWire.json)
    }
}

extension NativeHandlerShell {
    /// The handler's shell, stepped: the same request and reply as `respond`.
    public static func stepped<Storage: ContainerStorage>(storage: Storage) -> SteppedShell<NativeHandlerMachine, Storage> {
        SteppedShell(machine: NativeHandlerMachine(), storage: storage, servesOnce: true, prepare: { json, now, seed, flaws, machine, executor in
            prepare(json, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor)
        }, encode: NativeHandlerWire.json)
    }
}
