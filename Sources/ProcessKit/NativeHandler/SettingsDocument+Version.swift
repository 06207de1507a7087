import SiteSettings

extension SettingsDocument {
    /// The `(documentId, revision)` pair "not modified" compares; nil for a document never written.
    public var version: DocumentVersion? {
        documentId.map { DocumentVersion(documentId: $0, revision: revision) }
    }
}
