import SiteSettings

/// The containing app's logic: the control plane. On launch, on each foreground and on each
/// change notification it reads the shared document (recovering or migrating it under the lock
/// when needed) and shows it; a user edit is applied under the lock to the document as it is on
/// disk, written atomically, and answered with the new revision. No clock, file or random
/// source: time, seed and storage results arrive as inputs.
public struct AppMachine {
    /// An edit the user makes in the app's full settings screen.
    public enum UserEdit: Equatable, Sendable {
        case setDefaults(DefaultsValues)
        case changeSite(ScopeKey, set: SiteValues, reset: [SiteField])
        case deleteSite(ScopeKey)
    }

    public enum Input: Equatable, Sendable {
        case launched(now: EpochMillis, seed: UInt64)
        case cameToForeground(now: EpochMillis)
        /// The handler's change notification, delivered while the app runs and is not suspended.
        case changeNotificationArrived(now: EpochMillis)
        case userEdited(UserEdit, now: EpochMillis)
        case container(ContainerOutcome)
    }

    public enum Directive: Equatable, Sendable {
        case container(ContainerOperation)
        /// The screen now shows this.
        case showView(AppView)
        /// The answer to a user edit: the new revision, or why it was refused.
        case editSaved(revision: Int64, changed: Bool)
        case editRefused(NativeErrorCode, String)
        /// Tell the extension the settings changed. Only macOS delivers it (iOS has no path from
        /// the app to the extension's JavaScript).
        case messageExtension
    }

    private enum Work {
        /// Reading without the lock to refresh the view.
        case reading
        case transacting(DocumentTransaction, edit: Bool)
    }

    private var work: Work?
    /// Inputs that arrived while container work was in progress, handled after it.
    private var waiting: [Input] = []
    private var now: EpochMillis = 0
    private var seed: UInt64 = 0
    private var document = SettingsDocument()
    private let suffixes: PublicSuffixList
    /// Known bugs switched on for this run (none in normal use).
    public var flaws: Set<Flaw> = []

    public init(suffixes: PublicSuffixList = .embedded) {
        self.suffixes = suffixes
    }

    public mutating func handle(_ input: Input) -> [Directive] {
        var directives: [Directive] = []
        if case .container(let outcome) = input {
            directives += continueWork(outcome)
        } else if work != nil {
            waiting.append(input)
        } else {
            directives += start(input)
        }
        while work == nil, !waiting.isEmpty {
            directives += start(waiting.removeFirst())
        }
        return directives
    }

    private mutating func start(_ input: Input) -> [Directive] {
        switch input {
        case .launched(let now, let seed):
            self.now = now
            self.seed = seed
            work = .reading
            return [.container(.readDocument)]
        case .changeNotificationArrived where flaws.contains(.appIgnoresChangeNotifications):
            return []
        case .cameToForeground(let now), .changeNotificationArrived(let now):
            self.now = now
            work = .reading
            return [.container(.readDocument)]
        case .userEdited(let edit, let now):
            self.now = now
            return transact(.apply(stamped(edit)), edit: true)
        case .container:
            return []
        }
    }

    private mutating func continueWork(_ outcome: ContainerOutcome) -> [Directive] {
        switch (work, outcome) {
        case (.reading, .documentRead(let bytes)):
            guard let bytes else { return transact(.none, edit: false) }
            do {
                document = try DocumentCodec.decode(bytes, suffixes: suffixes).document
            } catch where error.isNewerSchema {
                work = nil
                return []
            } catch {
                return transact(.none, edit: false)
            }
            work = nil
            return [.showView(AppView(document))]
        case (.reading, .failed):
            work = nil
            return []
        case (.transacting(var transaction, let edit), _):
            switch transaction.handle(outcome) {
            case .next(let operation):
                work = .transacting(transaction, edit: edit)
                return [.container(operation)]
            case .finished(.done(let written, let changed)):
                work = nil
                document = written
                var directives: [Directive] = [.showView(AppView(document))]
                if edit { directives.append(.editSaved(revision: document.revision, changed: changed)) }
                if changed { directives.append(.messageExtension) }
                return directives
            case .finished(.refused(let code, let message)):
                work = nil
                guard edit else { return [] }
                if code == .storageFailure {
                    // The write may have taken effect before it failed: read the document again
                    // so the view shows what is there, and tell the extension to look too.
                    work = .reading
                    return [.editRefused(code, message), .messageExtension, .container(.readDocument)]
                }
                return [.editRefused(code, message)]
            case .ignored:
                return []
            }
        default:
            return []
        }
    }

    private mutating func transact(_ change: DocumentTransaction.Change, edit: Bool) -> [Directive] {
        let transaction = DocumentTransaction(change, now: now, seed: seed, suffixes: suffixes, flaws: flaws,
                                              staleBase: edit ? document : nil, createsDocument: edit)
        work = .transacting(transaction, edit: edit)
        return [.container(transaction.start)]
    }

    /// The edit with its stamp: the time of the user's action, the app's origin, and as edit
    /// number the revision it will create, unique among the app's writes of this document.
    private func stamped(_ edit: UserEdit) -> Edit {
        let stamp = Stamp(at: now, origin: .app, edit: UInt64(max(0, document.revision + 1)))
        return switch edit {
        case .setDefaults(let values): .setDefaults(values, stamp: stamp)
        case .changeSite(let key, let set, let reset): .changeSite(key, set: set, reset: reset, stamp: stamp)
        case .deleteSite(let key): .deleteSite(key, stamp: stamp)
        }
    }
}

extension AppMachine: ContainerMachine {
    public static func input(from outcome: ContainerOutcome) -> Input { .container(outcome) }

    public static func operation(of directive: Directive) -> ContainerOperation? {
        if case .container(let operation) = directive { return operation }
        return nil
    }
}
