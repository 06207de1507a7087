import SiteSettings

/// The background's work for one input, carried out a yield point at a time: extension
/// storage is loaded and saved at once (stopping at its yield points), and the machine hears of
/// the result only when the harness sends `storageCompleted`. `ExtensionShell.serve` drives it
/// straight through a gate; the in-process transport message by message.
public struct BackgroundCore<Files: ExtensionFiles>: ShellCore {
    /// A storage operation under way.
    private enum Operation {
        case load(session: SessionStorage?)
        case save(LocalStorage, token: Int)
    }

    private var store: ExtensionStore<Files, NoGate>
    private var machine = BackgroundMachine()
    /// Finished storage operations whose results the machine has not heard yet, by token.
    private var pending: [Int: BackgroundMachine.Input] = [:]
    private var nextToken = 1
    /// The input in progress: its time, the directives left, what goes out, and the storage
    /// operation waiting at a yield point (with the number of that point).
    private var now: EpochMillis = 0
    private var directives: [BackgroundMachine.Directive] = []
    private var outputs: [ExtensionWire.Output] = []
    private var current: (operation: Operation, phase: Int)?

    init(files: Files) {
        store = ExtensionStore(files: files, gate: NoGate())
    }

    /// The background serves until its input ends.
    public var ended: Bool { false }

    public mutating func begin(_ given: ChildInput, now: EpochMillis, seed: UInt64, flaws: [String]) -> Result<ShellProgress, ShellRefusal> {
        guard case .background(let event) = given else { return .failure(ShellRefusal("invalid input: the background takes only its own inputs")) }
        machine.flaws = Flaw.set(flaws)
        let input: ExtensionInput
        do { input = try ExtensionWire.input(for: event, now: now) } catch {
            return .failure(ShellRefusal("invalid input: \(error)"))
        }
        self.now = now
        outputs = []
        switch input {
        case .machine(let event):
            directives = machine.handle(event)
        case .storageCompleted(let token):
            directives = pending.removeValue(forKey: token).map { machine.handle($0) } ?? []
        case .ignored:
            directives = []
        }
        return .success(go(answer: nil))
    }

    public mutating func advance(answer: YieldAnswer) -> ShellProgress { go(answer: answer) }

    /// Goes on: with nil at the start, else with the answer at the point it waits at.
    private mutating func go(answer: YieldAnswer?) -> ShellProgress {
        if let (operation, phase) = current, let answer {
            current = nil
            switch operation {
            case .load(let session):
                do {
                    // A missing `storage.local` is nil, a first run: not a failure.
                    let local = try store.loadLocal(answer: answer)
                    outputs.append(pending(.storageLoaded(local: local, session: session, now: now)))
                } catch {
                    outputs.append(pending(.storageLoadFailed(session: session, now: now)))
                }
            case .save(let local, let token):
                do {
                    try store.save(local.json, as: ExtensionStore<Files, NoGate>.localName, phase: phase, answer: answer)
                    if phase == 0 {
                        current = (operation, 1)
                        return .waits(ExtensionStore<Files, NoGate>.savePoints[1])
                    }
                    outputs.append(pending(.localStorageSaved(token: token, now: now)))
                } catch {
                    outputs.append(pending(.localStorageSaveFailed(token: token, now: now)))
                }
            }
        }
        while !directives.isEmpty {
            let directive = directives.removeFirst()
            switch directive {
            case .loadStorage:
                current = (.load(session: store.loadSession()), 0)
                return .waits(.storageRead)
            case .saveLocalStorage(let local, let token):
                current = (.save(local, token: token), 0)
                return .waits(ExtensionStore<Files, NoGate>.savePoints[0])
            case .saveSessionStorage(let session):
                _ = try? store.saveSession(session.json)
            case .sendNative, .setTimer, .cancelTimer, .setAlarm, .connectNative, .listen, .sendDecision, .showPopup, .popupAnswer:
                if let output = ExtensionWire.output(directive) { outputs.append(output) }
            }
        }
        return .finished(.done(.background(outputs)))
    }

    /// Keeps a finished storage operation's result until the harness says it completes.
    private mutating func pending(_ result: BackgroundMachine.Input) -> ExtensionWire.Output {
        let token = nextToken
        nextToken += 1
        pending[token] = result
        return .storagePending(token: token)
    }
}
