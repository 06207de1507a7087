import SiteSettings

/// A storage failure: which step and the errno.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String { "\(operation) failed (errno \(errno))" }
}
