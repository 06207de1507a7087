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
        case .input, .event: nil
        }
    }
}

/// How far a shell's work for an input got: waiting at a yield point, or finished with the
/// frame that answers the input.
public enum ShellProgress {
    case waits(YieldPoint)
    case finished(FromChild)
}

/// A shell's work for one input, carried out a yield point at a time. The process's serve loop
/// drives it straight through its gate; `SteppedShell` drives it message by message.
public protocol ShellCore {
    /// Takes an input frame's content; a refusal when it is not a valid input.
    mutating func begin(_ input: JSONValue, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal>
    /// Takes a background's event as it is (in process), as `begin` takes the input it is written as.
    mutating func begin(event: ExtensionWire.Event, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal>
    /// Goes on with the answer at the point it waits at.
    mutating func advance(answer: YieldAnswer) -> ShellProgress
    /// It has served its one input (the handler) and takes nothing more.
    var ended: Bool { get }
}

extension ShellCore {
    /// The event written out, as a process reading it from its pipe would take it.
    public mutating func begin(event: ExtensionWire.Event, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal> {
        begin(ExtensionWire.encode(event), now: now, seed: seed, flaws: flaws)
    }

    /// Serves frames through `gate` until the harness hangs up: the process's loop.
    public mutating func serve(_ gate: inout WireGate) {
        while let message = gate.receive() {
            guard case .input(let json, let now, let seed, let flaws) = message else {
                gate.send(.error("expected an input frame"))
                continue
            }
            switch begin(json, now: now, seed: seed, flaws: flaws) {
            case .failure(let refusal):
                gate.send(.error(refusal.message))
            case .success(var progress):
                while case .waits(let point) = progress { progress = advance(answer: gate.yield(point)) }
                if case .finished(let frame) = progress { gate.send(frame) }
            }
            if ended { return }
        }
    }
}

/// A shell taken one message at a time, each answered with one.
public struct SteppedShell<Core: ShellCore>: SteppedProcess {
    private var core: Core
    private var waitingAt: YieldPoint?
    private var seq = 0

    /// Kept as the core last said (read without copying the shell).
    public private(set) var ended = false

    public init(_ core: Core) {
        self.core = core
        ended = core.ended
    }

    public mutating func take(_ message: ToChild) -> FromChild {
        let answer = answer(message)
        ended = core.ended
        return answer
    }

    private mutating func answer(_ message: ToChild) -> FromChild {
        if let point = waitingAt {
            guard let answer = message.answer else { return .error("an input arrived while waiting at yield point '\(point.rawValue)'; ignored") }
            return output(core.advance(answer: answer))
        }
        let begun: Result<ShellProgress, ShellRefusal>
        switch message {
        case .input(let json, let now, let seed, let flaws): begun = core.begin(json, now: now, seed: seed, flaws: flaws)
        case .event(let event, let now, let seed, let flaws): begun = core.begin(event: event, now: now, seed: seed, flaws: flaws)
        case .proceed, .fail: return .error("expected an input frame")
        }
        switch begun {
        case .failure(let refusal): return .error(refusal.message)
        case .success(let progress): return output(progress)
        }
    }

    private mutating func output(_ progress: ShellProgress) -> FromChild {
        switch progress {
        case .waits(let point):
            waitingAt = point
            seq += 1
            return .yield(point, seq: seq)
        case .finished(let frame):
            waitingAt = nil
            return frame
        }
    }
}

/// The app's or the native handler's work for an input: its machine's container operations,
/// a yield point at a time.
public struct ContainerCore<Machine: ContainerMachine, Storage: ContainerStorage>: ShellCore {
    /// Reads an input frame into the machine's input, setting up the machine and executor for
    /// it (its flaws); a refusal that says why when the frame is not a valid input.
    public typealias Prepare = (_ input: JSONValue, _ now: EpochMillis, _ seed: UInt64, _ flaws: [String],
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

    public mutating func begin(_ json: JSONValue, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal> {
        prepare(json, now, seed, flaws, &machine, &executor).map { input in
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
            return .finished(.directives(travel(directives), lockWaits: executor.storage.takeLockWaits()))
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
    public static func core<Storage: ContainerStorage>(storage: Storage) -> ContainerCore<AppMachine, Storage> {
        ContainerCore(machine: AppMachine(), storage: storage, servesOnce: false, prepare: { json, now, seed, flaws, machine, executor in
            prepare(json, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor)
        }, travel: { .app($0.filter(AppWire.travels)) })
    }

    public static func stepped<Storage: ContainerStorage>(storage: Storage) -> SteppedShell<ContainerCore<AppMachine, Storage>> {
        SteppedShell(core(storage: storage))
    }
}

extension NativeHandlerShell {
    /// The handler's shell, stepped: the same request and reply as `respond`.
    public static func core<Storage: ContainerStorage>(storage: Storage) -> ContainerCore<NativeHandlerMachine, Storage> {
        ContainerCore(machine: NativeHandlerMachine(), storage: storage, servesOnce: true, prepare: { json, now, seed, flaws, machine, executor in
            prepare(json, now: now, seed: seed, flaws: flaws, machine: &machine, executor: &executor)
        }, travel: { .handler($0.filter(NativeHandlerWire.travels)) })
    }

    public static func stepped<Storage: ContainerStorage>(storage: Storage) -> SteppedShell<ContainerCore<NativeHandlerMachine, Storage>> {
        SteppedShell(core(storage: storage))
    }
}
