import SiteSettings

/// An input to the background's process: one for the machine, or the completion of a storage
/// operation the process started earlier.
public enum ExtensionInput: Equatable, Sendable {
    case machine(BackgroundMachine.Input)
    case storageCompleted(token: Int)
}
