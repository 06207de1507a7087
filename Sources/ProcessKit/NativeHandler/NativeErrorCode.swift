import SiteSettings

/// The kinds of error a handler answers. The extension treats `invalidMessage` as a rejected
/// patch (it leaves the outbox and forces a resync) and the others as "try again later".
public enum NativeErrorCode: String, CaseIterable, Sendable, Equatable {
    /// The message failed validation; nothing was touched.
    case invalidMessage
    /// The document has a newer schema: it cannot be changed by this version.
    case readOnly
    /// The edit would make the document larger than 1 MiB.
    case tooLarge
    /// The container could not be read or written (an I/O error).
    case storageFailure
}
