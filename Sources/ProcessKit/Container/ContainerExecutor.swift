import SiteSettings

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
