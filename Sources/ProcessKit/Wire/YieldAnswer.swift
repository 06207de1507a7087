import SiteSettings

/// What the harness answers at a yield point.
public enum YieldAnswer: Equatable, Sendable {
    case proceed
    /// The step fails with this errno (an injected write error, for example), as if the system call had.
    case fail(errno: Int32)
    /// The step takes effect, then reports this errno: an fsync that fails after the write, a
    /// folder flush that fails after the rename. The writer cannot tell whether it stuck.
    case failAfter(errno: Int32)
}
