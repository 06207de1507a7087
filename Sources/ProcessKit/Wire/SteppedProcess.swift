import SiteSettings

/// A shell the harness runs message by message on its own thread: each message it takes gets
/// one answer, a `yield` where its current operation stops, `done` once the input is handled,
/// or `error`. It keeps its place between messages, even while it waits at a yield point. The
/// messages are the ones the process exchanges over its pipes, in the same order.
public protocol SteppedProcess {
    mutating func take(_ message: ToChild) -> FromChild
    /// It has served its one input (the handler) and takes nothing more.
    var ended: Bool { get }
}
