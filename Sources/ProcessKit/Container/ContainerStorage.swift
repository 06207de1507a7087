import SiteSettings

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
