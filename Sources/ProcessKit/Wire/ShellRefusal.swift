import SiteSettings

/// Why a shell refused a frame: the text of its `error` frame.
public struct ShellRefusal: Error {
    public let message: String
    public init(_ message: String) { self.message = message }
}
