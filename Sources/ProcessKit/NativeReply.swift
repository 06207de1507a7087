import SiteSettings

/// What the native handler answers the extension.
///
/// Wire form: `{"type": "snapshot", "document": {…}}`, `{"type": "notModified", "documentId": "…",
/// "revision": 42}`, `{"type": "applied", "documentId": "…", "revision": 43, "changed": true}`,
/// `{"type": "enabled", "enabled": true}` (the first version reads `enabled`), and
/// `{"type": "error", "code": "…", "message": "…"}`.
public enum NativeReply: Equatable, Sendable {
    case snapshot(SettingsDocument)
    case notModified(DocumentVersion)
    case applied(DocumentVersion?, changed: Bool)
    case enabled(Bool)
    case error(NativeErrorCode, String)

    public var json: JSONValue {
        switch self {
        case .snapshot(let document):
            return .object(["type": .string("snapshot"), "document": DocumentCodec.json(document)])
        case .notModified(let version):
            return .object(["type": .string("notModified"), "documentId": .string(version.documentId), "revision": .integer(version.revision)])
        case .applied(let version, let changed):
            var object: [String: JSONValue] = ["type": .string("applied"), "changed": .bool(changed)]
            if let version {
                object["documentId"] = .string(version.documentId)
                object["revision"] = .integer(version.revision)
            }
            return .object(object)
        case .enabled(let enabled):
            return .object(["type": .string("enabled"), "enabled": .bool(enabled)])
        case .error(let code, let message):
            return .object(["type": .string("error"), "code": .string(code.rawValue), "message": .string(message)])
        }
    }
}

/// The kinds of error a handler answers. The extension treats `invalidMessage` as a rejected
/// patch (it leaves the outbox and forces a resync) and the others as "try again later".
public enum NativeErrorCode: String, Sendable, Equatable {
    /// The message failed validation; nothing was touched.
    case invalidMessage
    /// The document has a newer schema: it cannot be changed by this version.
    case readOnly
    /// The edit would make the document larger than 1 MiB.
    case tooLarge
    /// The container could not be read or written (an I/O error).
    case storageFailure
}

extension SettingsDocument {
    /// The `(documentId, revision)` pair "not modified" compares; nil for a document never written.
    public var version: DocumentVersion? {
        documentId.map { DocumentVersion(documentId: $0, revision: revision) }
    }
}
