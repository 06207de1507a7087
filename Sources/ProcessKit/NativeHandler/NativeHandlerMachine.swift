import SiteSettings

/// The native app extension's logic for one request: validate, read or update the shared
/// document under the lock, answer, and tell the app something changed. It has no memory across
/// requests (a new machine serves each; only `statics` outlive it, in a process the system
/// reuses) and never reads a clock, a file or a random source: the time, the run's seed and
/// every storage result arrive as inputs.
public struct NativeHandlerMachine {
    /// What a handler process keeps from one request to the next when the system reuses it:
    /// its statics. The handler keeps nothing there (`handler-keeps-document-in-static` does).
    public struct Statics: Equatable, Sendable {
        /// The document the last request read or wrote.
        public var document: SettingsDocument?
        public init() {}
    }

    public enum Input: Equatable, Sendable {
        /// The extension's message arrived (still unvalidated JSON).
        case requestArrived(JSONValue, now: EpochMillis, seed: UInt64)
        /// A container operation this machine asked for has finished.
        case container(ContainerOutcome)
    }

    public enum Directive: Equatable, Sendable {
        case container(ContainerOperation)
        case reply(NativeReply)
        /// Post the change notification (a name, no payload; lost when nobody listens).
        case postChangeNotification
    }

    /// The Darwin notification name the handler posts after a change.
    public static let changeNotification = "settingsChanged"

    private enum State {
        case idle
        /// A read without the lock (snapshot, getEnabled), then perhaps of the last good copy.
        case reading(NativeRequest)
        /// `missing`: there was no document at all, so without a last good copy the first
        /// version's boolean is next.
        case readingPrevious(NativeRequest, missing: Bool)
        /// No document yet: the first version's boolean decides what a read answers.
        case readingLegacy(NativeRequest)
        /// An edit under the lock.
        case updating(NativeRequest, DocumentTransaction)
        case finished
    }

    private var state = State.idle
    private var now: EpochMillis = 0
    private var seed: UInt64 = 0
    private let suffixes: PublicSuffixList
    /// Known bugs switched on for this run (none in normal use).
    public var flaws: Set<Flaw> = []
    /// The process's statics, carried from the machine that served its last request.
    public var statics = Statics()

    public init(suffixes: PublicSuffixList = .embedded) {
        self.suffixes = suffixes
    }

    /// True once the answer has been given; the process may exit.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    public mutating func handle(_ input: Input) -> [Directive] {
        var directives: [Directive] = []
        switch (state, input) {
        case (.idle, .requestArrived(let json, let now, let seed)):
            self.now = now
            self.seed = seed
            do {
                let request = try NativeRequest.parse(json, now: now, suffixes: suffixes, flaws: flaws)
                if flaws.contains(.handlerKeepsDocumentInStatic), change(for: request) == nil, let kept = statics.document {
                    // The flaw: a read answered from the static, as the last request left it.
                    directives.append(finish(answer(request, kept, changed: false)))
                } else if let change = change(for: request) {
                    let transaction = DocumentTransaction(change, now: now, seed: seed, suffixes: suffixes, flaws: flaws)
                    state = .updating(request, transaction)
                    directives.append(.container(transaction.start))
                } else {
                    state = .reading(request)
                    directives.append(.container(.readDocument))
                }
            } catch {
                directives.append(finish(.error(.invalidMessage, error.description)))
            }

        case (.reading(let request), .container(.documentRead(let bytes))):
            directives += answerRead(request, bytes)
        case (.readingPrevious(let request, let missing), .container(.previousDocumentRead(let bytes))):
            let document = bytes.flatMap { try? DocumentCodec.decode($0, suffixes: suffixes).document }
            if missing && document == nil {
                state = .readingLegacy(request)
                directives.append(.container(.readLegacyPreferences))
            } else {
                directives.append(finish(answer(request, document ?? SettingsDocument(), changed: false)))
            }
        case (.readingLegacy(let request), .container(.legacyPreferencesRead(let enabled))):
            // Reads take no lock and write nothing: the migration happens at the first write.
            var document = SettingsDocument()
            if let enabled {
                document = Legacy.migrate(colorInvertEnabled: enabled, at: now, documentId: "unsaved")
                document.documentId = nil
            }
            directives.append(finish(answer(request, document, changed: false)))
        case (.reading, .container(.failed(_, let errno))), (.readingPrevious, .container(.failed(_, let errno))),
             (.readingLegacy, .container(.failed(_, let errno))):
            directives.append(finish(.error(.storageFailure, "reading the document failed (errno \(errno))")))

        case (.updating(let request, var transaction), .container(let outcome)):
            switch transaction.handle(outcome) {
            case .next(let operation):
                state = .updating(request, transaction)
                directives.append(.container(operation))
            case .finished(.done(let document, let changed)):
                keep(document)
                if changed { directives.append(.postChangeNotification) }
                directives.append(finish(answer(request, document, changed: changed)))
            case .finished(.refused(let code, let message)):
                // A storage failure may strike after the write took effect: readers are told to
                // look again, which costs them a read if nothing changed.
                if code == .storageFailure { directives.append(.postChangeNotification) }
                directives.append(finish(.error(code, message)))
            case .ignored:
                break
            }

        default:
            // A late or unexpected input (a second request, an outcome nobody asked for): the
            // machine ignores it rather than trap.
            break
        }
        return directives
    }

    /// The change a request makes under the lock, or nil for a request that only reads.
    private func change(for request: NativeRequest) -> DocumentTransaction.Change? {
        switch request {
        case .getSnapshot, .getEnabled, .other: nil
        case .patch(let scope, let set, let reset, let stamp): .apply(.changeSite(scope, set: set, reset: reset, stamp: stamp))
        case .deleteSite(let scope, let stamp): .apply(.deleteSite(scope, stamp: stamp))
        case .toggleEnabled: .toggleLegacy(Stamp(at: now, origin: .extension))
        case .putDocument(let document): .replace(document)
        }
    }

    /// Answers a read. A damaged document is left for the next writer to set aside (reads take
    /// no lock); the answer comes from the last good copy.
    private mutating func answerRead(_ request: NativeRequest, _ bytes: [UInt8]?) -> [Directive] {
        guard let bytes else {
            state = .readingPrevious(request, missing: true)
            return [.container(.readPreviousDocument)]
        }
        do {
            let document = try DocumentCodec.decode(bytes, suffixes: suffixes).document
            keep(document)
            return [finish(answer(request, document, changed: false))]
        } catch where error.isNewerSchema {
            return [finish(.error(.readOnly, error.description))]
        } catch {
            state = .readingPrevious(request, missing: false)
            return [.container(.readPreviousDocument)]
        }
    }

    private func answer(_ request: NativeRequest, _ document: SettingsDocument, changed: Bool) -> NativeReply {
        switch request {
        case .getSnapshot(let known):
            if let known, let version = document.version, known == version { return .notModified(version) }
            return .snapshot(document)
        case .getEnabled, .toggleEnabled:
            return .enabled(Legacy.isEnabled(document))
        case .patch, .deleteSite, .putDocument:
            return .applied(document.version, changed: changed)
        case .other:
            // `parse` reads no such request: the handler refuses what the design does not name.
            return .error(.invalidMessage, "not a message of the design")
        }
    }

    /// With `handler-keeps-document-in-static`, the document read or written stays in a static.
    private mutating func keep(_ document: SettingsDocument) {
        if flaws.contains(.handlerKeepsDocumentInStatic) { statics.document = document }
    }

    private mutating func finish(_ reply: NativeReply) -> Directive {
        state = .finished
        return .reply(reply)
    }
}
