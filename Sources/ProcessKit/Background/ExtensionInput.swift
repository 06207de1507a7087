import SiteSettings

/// An input to the background's process: one for the machine, the completion of a storage
/// operation the process started earlier, or news it keeps nothing of.
public enum ExtensionInput: Equatable, Sendable {
    case machine(BackgroundMachine.Input)
    case storageCompleted(token: Int)
    case ignored
}
