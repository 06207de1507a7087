/// One of the extension's three processes, by the name scenarios, traces and fault plans use
/// (`app`, `background`, `handler`); an incarnation of it is `background#3`.
package enum ProcessName: String, CaseIterable, Hashable, Sendable {
    case app, background, handler

    // Compared and hashed by case, not by the text of the raw value.
    package static func == (a: ProcessName, b: ProcessName) -> Bool { a.position == b.position }
    package func hash(into hasher: inout Hasher) { hasher.combine(position) }

    private var position: Int {
        switch self {
        case .app: 0
        case .background: 1
        case .handler: 2
        }
    }
}
