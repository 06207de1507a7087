import SiteSettings

/// A shell's work for one input, carried out a yield point at a time. The process's serve loop
/// drives it straight through its gate; `SteppedShell` drives it message by message.
public protocol ShellCore {
    /// Takes an input frame's content; a refusal when it is not an input it can take.
    mutating func begin(_ input: ChildInput, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal>
    /// Goes on with the answer at the point it waits at.
    mutating func advance(answer: YieldAnswer) -> ShellProgress
    /// It has served its one input (the handler) and takes nothing more.
    var ended: Bool { get }
}

extension ShellCore {
    /// Serves frames through `gate` until the harness hangs up: the process's loop.
    public mutating func serve(_ gate: inout WireGate) {
        while let message = gate.receive() {
            guard case .input(let input, let now, _, let seed, let flaws) = message else {
                gate.send(.error("expected an input frame"))
                continue
            }
            switch begin(input, now: now, seed: seed, flaws: flaws) {
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
