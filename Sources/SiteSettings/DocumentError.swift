/// Why bytes are not a valid settings document: where (a JSON path) and what.
/// Printed as `sites["docs..example.com"]: empty label in host`.
public struct DocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where the problem is; nil for problems with the bytes as a whole.
    public let path: JSONPath?
    public let problem: Problem

    public init(_ problem: Problem, at path: JSONPath?) {
        self.problem = problem
        self.path = path
    }

    /// The kinds of problem, each with a lower-case message naming the value.
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        /// Not JSON at all (with line and column).
        case syntax(JSONSyntaxError)
        /// Larger than the 1 MiB a document may be.
        case tooLarge(bytes: Int)
        /// A value of the wrong JSON type.
        case wrongType(expected: String, found: String)
        /// A scope key that cannot be made canonical.
        case invalidKey(ScopeKeyError)
        /// A time that is negative, fractional or after the year 9999.
        case invalidTime(String)
        /// A schedule time not written `HH:MM`.
        case invalidTimeOfDay(String)
        case invalidSchemaVersion(String)
        case invalidRevision(String)
        case invalidDocumentId(String)
        case invalidOrigin(String)
        /// Written by a newer version in a shape this one cannot read; not corrupt, just newer.
        case newerSchema(version: Int, detail: String)

        public var description: String {
            switch self {
            case .syntax(let error): "not valid JSON: \(error)"
            case .tooLarge(let bytes): "document is \(bytes) bytes, over the limit of \(DocumentCodec.maximumBytes)"
            case .wrongType(let expected, let found): "expected \(expected), found \(found)"
            case .invalidKey(let error): error.description
            case .invalidTime(let why): why
            case .invalidTimeOfDay(let text): "'\(text)' is not a time of day written HH:MM"
            case .invalidSchemaVersion(let why): why
            case .invalidRevision(let why): why
            case .invalidDocumentId(let why): why
            case .invalidOrigin(let name): "unknown edit origin '\(name)' (known: app, extension, imported)"
            case .newerSchema(let version, let detail):
                "schemaVersion \(version) is newer than this version (\(SettingsDocument.currentSchemaVersion)) and cannot be read: \(detail)"
            }
        }
    }

    public var description: String {
        guard let path else { return problem.description }
        return "\(path): \(problem)"
    }

    /// True when the document is not damaged but written by a newer version: keep it, read-only.
    public var isNewerSchema: Bool {
        if case .newerSchema = problem { return true }
        return false
    }
}

/// Something normalization changed while reading a document: a value it dropped, filled in or
/// rewrote. Reading still succeeds; a writer saves the normalized form.
public struct DocumentNote: Equatable, Sendable, CustomStringConvertible {
    public let path: JSONPath
    public let message: String

    public var description: String { "\(path): \(message)" }
}
