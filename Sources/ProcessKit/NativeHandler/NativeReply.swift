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

    /// Its `type` on the wire.
    public var name: String {
        switch self {
        case .snapshot: "snapshot"
        case .notModified: "notModified"
        case .applied: "applied"
        case .enabled: "enabled"
        case .error: "error"
        }
    }

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

    /// Reads a reply back from its JSON form (`json`); anything else is an error naming the
    /// member at fault. A snapshot's document is read as `DocumentCodec` reads one.
    public static func decode(_ json: JSONValue, at path: JSONPath = .root) throws(NativeMessageError) -> NativeReply {
        let reply = try WireObject(json, at: path)
        let type = try reply.string("type")
        switch type {
        case "snapshot":
            try reply.allow(["type", "document"])
            return .snapshot(try reply.document("document"))
        case "notModified":
            try reply.allow(["type", "documentId", "revision"])
            return .notModified(DocumentVersion(documentId: try reply.string("documentId"), revision: try reply.integer("revision")))
        case "applied":
            try reply.allow(["type", "changed", "documentId", "revision"])
            var version: DocumentVersion?
            // A document never written has no id, and then neither member is sent.
            if reply["documentId"] != nil || reply["revision"] != nil {
                version = DocumentVersion(documentId: try reply.string("documentId"), revision: try reply.integer("revision"))
            }
            return .applied(version, changed: try reply.bool("changed"))
        case "enabled":
            try reply.allow(["type", "enabled"])
            return .enabled(try reply.bool("enabled"))
        case "error":
            try reply.allow(["type", "code", "message"])
            return .error(try reply.choice("code"), try reply.string("message"))
        default:
            throw NativeMessageError(path.key("type"), "unknown reply '\(type.prefix(64))'")
        }
    }
}
