/// The frame protocol's version and the roles a process plays in it (`PROTOCOL.md`).
public enum WireProtocol {
    /// The version this package speaks; a process states its own in its `hello`.
    public static let version = 1

    /// A role a process plays, as its `hello` names it.
    public enum Role: String, CaseIterable, Sendable {
        case app, background, handler
    }
}
