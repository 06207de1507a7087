import SiteSettings

/// A container operation without its payload, for naming a failure.
public enum ContainerOperationKind: String, Equatable, Sendable {
    case lock, unlock, readDocument, readPreviousDocument, readLegacyPreferences, writeDocument, setAsideDocument
}
