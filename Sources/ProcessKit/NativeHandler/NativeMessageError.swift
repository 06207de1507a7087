import SiteSettings

/// Why a native message was refused: where in it, and what.
public struct NativeMessageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: JSONPath
    public let problem: String

    init(_ path: JSONPath, _ problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path): \(problem)" }
}
