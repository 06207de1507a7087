import SiteSettings

/// A document's identity and revision: what "not modified" compares.
public struct DocumentVersion: Hashable, Sendable {
    public var documentId: String
    public var revision: Int64

    public init(documentId: String, revision: Int64) {
        self.documentId = documentId
        self.revision = revision
    }
}
