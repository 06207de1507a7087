import SiteSettings

/// The named points inside a container operation where the harness may let the process go on,
/// run another process first, kill it, freeze it, or make the step fail. The one shared
/// executor stops at them, never the storage implementations, so both transports reach the
/// same points.
public enum YieldPoint: String, CaseIterable, Sendable, Hashable {
    case lock
    case read
    case writeTemp = "write-temp"
    case rename
    case unlock
    /// Moving a damaged document aside before recovering.
    case setAside = "set-aside"
    /// The same steps in the background's extension storage.
    case storageRead = "storage-read"
    case storageWriteTemp = "storage-write-temp"
    case storageRename = "storage-rename"

    // Compared and hashed by case, not by the text of the raw value (as they would be by
    // default): the harness counts and looks up arrivals at every step.
    public static func == (a: YieldPoint, b: YieldPoint) -> Bool { a.position == b.position }
    public func hash(into hasher: inout Hasher) { hasher.combine(position) }

    private var position: Int {
        switch self {
        case .lock: 0
        case .read: 1
        case .writeTemp: 2
        case .rename: 3
        case .unlock: 4
        case .setAside: 5
        case .storageRead: 6
        case .storageWriteTemp: 7
        case .storageRename: 8
        }
    }
}

/// What the harness answers at a yield point.
public enum YieldAnswer: Equatable, Sendable {
    case proceed
    /// The step fails with this errno (an injected write error, for example), as if the system call had.
    case fail(errno: Int32)
    /// The step takes effect, then reports this errno: an fsync that fails after the write, a
    /// folder flush that fails after the rename. The writer cannot tell whether it stuck.
    case failAfter(errno: Int32)
}

/// A failure the harness asked for after a step: thrown once the step has taken effect.
struct LateFailure {
    let point: YieldPoint
    let errno: Int32?

    /// Throws a failure meant for before the step; keeps one meant for after it.
    static func pass(_ point: YieldPoint, _ answer: YieldAnswer) throws(StoreError) -> LateFailure {
        switch answer {
        case .proceed: LateFailure(point: point, errno: nil)
        case .fail(let errno): throw StoreError(point.rawValue, errno: errno)
        case .failAfter(let errno): LateFailure(point: point, errno: errno)
        }
    }

    func afterwards() throws(StoreError) {
        if let errno { throw StoreError(point.rawValue + " (after it took effect)", errno: errno) }
    }
}

/// Where a yield goes: the harness over the wire, or a scheduler in the same process.
public protocol YieldGate {
    mutating func yield(_ point: YieldPoint) -> YieldAnswer
}

/// One step of work on the App Group container that a state machine asks its shell to do.
public enum ContainerOperation: Equatable, Sendable {
    /// Take the container's lock (granted by the harness first in step-by-step mode).
    case lock
    case unlock
    /// Read the shared document's bytes (no lock needed).
    case readDocument
    /// Read the last good copy kept beside the document.
    case readPreviousDocument
    /// Read the first version's preferences (`colorInvertEnabled`).
    case readLegacyPreferences
    /// Replace the document atomically: write a temporary file, flush it, keep the current
    /// document as the last good copy, rename the temporary over it, flush the folder.
    case writeDocument([UInt8])
    /// Move a damaged document aside, never deleting it.
    case setAsideDocument
}

/// How a container operation ended, fed back to the machine as its next input.
public enum ContainerOutcome: Equatable, Sendable {
    case locked
    case unlocked
    /// The document's bytes, or nil when there is none.
    case documentRead([UInt8]?)
    case previousDocumentRead([UInt8]?)
    /// The old boolean, or nil when the first version never stored one.
    case legacyPreferencesRead(Bool?)
    case documentWritten
    case documentSetAside(name: String)
    /// The operation failed with an errno (injected at a yield point, or real).
    case failed(ContainerOperationKind, errno: Int32)
}

/// A container operation without its payload, for naming a failure.
public enum ContainerOperationKind: String, Equatable, Sendable {
    case lock, unlock, readDocument, readPreviousDocument, readLegacyPreferences, writeDocument, setAsideDocument
}

extension ContainerOperation {
    public var kind: ContainerOperationKind {
        switch self {
        case .lock: .lock
        case .unlock: .unlock
        case .readDocument: .readDocument
        case .readPreviousDocument: .readPreviousDocument
        case .readLegacyPreferences: .readLegacyPreferences
        case .writeDocument: .writeDocument
        case .setAsideDocument: .setAsideDocument
        }
    }
}

/// The file operations behind the container, in two implementations: the real file system
/// (process transport) and a simulated disk (in-process transport). Implementations do the
/// work only; yield points belong to `ContainerExecutor`.
public protocol ContainerStorage {
    /// Takes the lock. Step by step it does not wait, and a refusal is an error (the harness
    /// grants the lock first); free-running, the real container waits for it.
    mutating func lock() throws(StoreError)
    /// Lets the lock go; when that fails, closes the lock's descriptor, which lets it go too.
    mutating func unlock() throws(StoreError)
    /// Closes the lock's descriptor after a failed unlock: the lock goes with it.
    mutating func closeLock()
    func readDocument() throws(StoreError) -> [UInt8]?
    func readPreviousDocument() throws(StoreError) -> [UInt8]?
    func readLegacyPreferences() throws(StoreError) -> [UInt8]?
    /// Writes and flushes the temporary file.
    mutating func writeTemporary(_ bytes: [UInt8]) throws(StoreError)
    /// Keeps the current document as the last good copy, renames the temporary file over the
    /// document, and flushes the folder.
    mutating func replaceDocument() throws(StoreError)
    /// Overwrites the document where it is, with no temporary file (only the in-place-writes
    /// flaw does this).
    mutating func writeDocumentInPlace(_ bytes: [UInt8]) throws(StoreError)
    /// Renames the document to a new `…damaged-N…` name and returns that name.
    mutating func setAsideDocument() throws(StoreError) -> String
    /// How long each lock taken since the last call waited, in microseconds, oldest first
    /// (only a free-running container waits), and forgets them.
    mutating func takeLockWaits() -> [Int]
}

extension ContainerStorage {
    public mutating func takeLockWaits() -> [Int] { [] }
}

/// A storage failure: which step and the errno.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String { "\(operation) failed (errno \(errno))" }
}

/// Runs container operations on a storage, stopping at the yield points. Shared by the process
/// shells and the in-process transport, so both reach exactly the same points in the same order.
public struct ContainerExecutor<Storage: ContainerStorage, Gate: YieldGate> {
    public var storage: Storage
    public var gate: Gate
    /// The in-place-writes flaw: the document is rewritten where it is, half first (at
    /// `write-temp`) and the rest at `rename`, so a crash between leaves it torn.
    public var inPlaceWrites = false

    public init(storage: Storage, gate: Gate) {
        self.storage = storage
        self.gate = gate
    }

    /// Carries out an operation, stopping at each of its yield points for the gate's answer.
    public mutating func run(_ operation: ContainerOperation) -> ContainerOutcome {
        for (phase, point) in points(of: operation).enumerated() {
            if let outcome = step(operation, phase: phase, answer: gate.yield(point)) { return outcome }
        }
        preconditionFailure("every operation ends at its last yield point")
    }

    /// The yield points an operation stops at, in order: one for each step, two for a write.
    public func points(of operation: ContainerOperation) -> [YieldPoint] {
        switch operation {
        case .lock: [.lock]
        case .unlock: [.unlock]
        case .readDocument, .readPreviousDocument, .readLegacyPreferences: [.read]
        case .writeDocument: [.writeTemp, .rename]
        case .setAsideDocument: [.setAside]
        }
    }

    /// Carries out the step behind the operation's yield point number `phase`, given the
    /// answer there: the outcome once the operation is over, nil while a step is left. A shell
    /// that runs straight through (`run`) and one resumed at each point between messages (the
    /// in-process transport) go through here alike.
    public mutating func step(_ operation: ContainerOperation, phase: Int, answer: YieldAnswer) -> ContainerOutcome? {
        let point = points(of: operation)[phase]
        do throws(StoreError) {
            let late: LateFailure
            do throws(StoreError) { late = try LateFailure.pass(point, answer) } catch {
                // The unlock failed: closing the descriptor still lets the lock go, so no
                // writer waits for ever behind an error.
                if case .unlock = operation { storage.closeLock() }
                throw error
            }
            switch operation {
            case .lock:
                try storage.lock()
                return .locked
            case .unlock:
                try storage.unlock()
                return .unlocked
            case .readDocument:
                return .documentRead(try storage.readDocument())
            case .readPreviousDocument:
                return .previousDocumentRead(try storage.readPreviousDocument())
            case .readLegacyPreferences:
                return .legacyPreferencesRead(Self.legacyValue(try storage.readLegacyPreferences()))
            case .writeDocument(let bytes) where inPlaceWrites:
                // Half the document first (at `write-temp`), the rest at `rename`.
                try storage.writeDocumentInPlace(phase == 0 ? Array(bytes.prefix(bytes.count / 2)) : bytes)
                try late.afterwards()
                return phase == 0 ? nil : .documentWritten
            case .writeDocument(let bytes):
                if phase == 0 { try storage.writeTemporary(bytes) } else { try storage.replaceDocument() }
                try late.afterwards()
                return phase == 0 ? nil : .documentWritten
            case .setAsideDocument:
                return .documentSetAside(name: try storage.setAsideDocument())
            }
        } catch {
            return .failed(operation.kind, errno: error.errno)
        }
    }

    /// The first version's preferences file holds `{"colorInvertEnabled": true}`; anything
    /// unreadable counts as never stored.
    static func legacyValue(_ bytes: [UInt8]?) -> Bool? {
        guard let bytes, case .object(let members)? = try? JSONParser.parse(bytes),
              case .bool(let enabled)? = members[Legacy.enabledKey] else { return nil }
        return enabled
    }
}
