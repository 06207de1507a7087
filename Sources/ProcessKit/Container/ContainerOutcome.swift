import SiteSettings

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
