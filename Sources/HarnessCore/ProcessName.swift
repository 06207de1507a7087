/// One of the extension's three processes, by the name scenarios, traces and fault plans use
/// (`app`, `background`, `handler`); an incarnation of it is `background#3`.
public enum ProcessName: String, CaseIterable, Hashable, Sendable {
    case app, background, handler
}
