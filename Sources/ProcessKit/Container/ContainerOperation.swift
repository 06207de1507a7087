import SiteSettings

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
