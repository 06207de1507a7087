import SiteSettings

/// The background's process: runs until its input ends (an unload is a kill). Extension storage
/// is asynchronous, as `storage.local` is: the process does a load or save at once (stopping at
/// its yield points) and reports `storagePending`; the machine hears of the result only when the
/// harness sends `storageCompleted`, so other inputs can arrive in between.
public enum ExtensionShell {
    public static func main(arguments: [String]) -> Int32 {
        guard let (directory, free) = ChildExit.options(arguments, option: "--storage") else {
            ChildExit.printUsage("usage: ExtensionProcess --storage DIRECTORY [--free] (started by the harness, which speaks to it in frames)\n")
            return ChildExit.usage
        }
        return serve(gate: .standardStreams(free: free),
                     files: ExtensionFolder(directory: directory))
    }

    /// The shell on any transport: frames through `gate`, extension storage in `files`.
    public static func serve<Files: ExtensionFiles>(gate: WireGate, files: Files) -> Int32 {
        var shell = Loop(store: ExtensionStore(files: files, gate: gate))
        while shell.serveOneInput() {}
        return ChildExit.harnessGone
    }

    private struct Loop<Files: ExtensionFiles> {
        var store: ExtensionStore<Files, WireGate>
        var machine = BackgroundMachine()
        /// Finished storage operations whose results the machine has not heard yet, by token.
        var pending: [Int: BackgroundMachine.Input] = [:]
        var nextToken = 1

        /// Serves one frame; false once the harness has hung up.
        mutating func serveOneInput() -> Bool {
            guard let message = store.gate.receive() else { return false }
            guard case .input(let json, let now, _, let flaws) = message else {
                store.gate.send(.error("expected an input frame"))
                return true
            }
            machine.flaws = Flaw.set(flaws)
            let input: ExtensionInput
            do { input = try ExtensionWire.input(for: ExtensionWire.decode(json), now: now) } catch {
                store.gate.send(.error("invalid input: \(error)"))
                return true
            }
            var outputs: [ExtensionWire.Output] = []
            switch input {
            case .machine(let event):
                run(machine.handle(event), now: now, into: &outputs)
            case .storageCompleted(let token):
                if let result = pending.removeValue(forKey: token) {
                    run(machine.handle(result), now: now, into: &outputs)
                }
            }
            store.gate.send(.done(outputs.compactMap(ExtensionWire.json)))
            return true
        }

        /// Carries out extension storage at once; everything else goes out in the `done` frame.
        private mutating func run(_ directives: [BackgroundMachine.Directive], now: EpochMillis, into outputs: inout [ExtensionWire.Output]) {
            for directive in directives {
                switch directive {
                case .loadStorage:
                    let session = store.loadSession()
                    do {
                        // A missing `storage.local` is nil, a first run: not a failure.
                        let local = try store.loadLocal()
                        outputs.append(pending(.storageLoaded(local: local, session: session, now: now)))
                    } catch {
                        outputs.append(pending(.storageLoadFailed(session: session, now: now)))
                    }
                case .saveLocalStorage(let local, let token):
                    if (try? store.save(local.json, as: ExtensionStore<Files, WireGate>.localName)) != nil {
                        outputs.append(pending(.localStorageSaved(token: token, now: now)))
                    } else {
                        outputs.append(pending(.localStorageSaveFailed(token: token, now: now)))
                    }
                case .saveSessionStorage(let session):
                    _ = try? store.saveSession(session.json)
                case .sendNative, .setTimer, .cancelTimer, .setAlarm, .connectNative, .listen, .sendDecision, .showPopup, .popupAnswer:
                    outputs.append(.machine(directive))
                }
            }
        }

        /// Keeps a finished storage operation's result until the harness says it completes.
        private mutating func pending(_ result: BackgroundMachine.Input) -> ExtensionWire.Output {
            let token = nextToken
            nextToken += 1
            pending[token] = result
            return .storagePending(token: token)
        }
    }
}
