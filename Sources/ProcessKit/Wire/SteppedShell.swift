import SiteSettings

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
        case .input(let input, let now, _, let seed, let flaws): begun = core.begin(input, now: now, seed: seed, flaws: flaws)
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
