/// A property a run can break: one of the invariants of `DESIGN.md` (by number), a scenario's
/// `expect` line, the run itself (a fault no process reached, a process that could not start),
/// or, for the explorer, that a seed's run is the same twice.
package enum Property: Hashable, Comparable, Sendable, CustomStringConvertible {
    case invariant(Int)
    case expectation
    case run
    case determinism
    /// Two backgrounds on one schedule showed different things (`Differential`).
    case difference

    /// `invariant 6`, `expectation`, `run`, `determinism`: as reports and file names give it.
    package var description: String {
        switch self {
        case .invariant(let number): "invariant \(number)"
        case .expectation: "expectation"
        case .run: "run"
        case .determinism: "determinism"
        case .difference: "difference"
        }
    }

    /// Reads `description` back; nil for anything else.
    init?(_ text: String) {
        switch text {
        case "expectation": self = .expectation
        case "run": self = .run
        case "determinism": self = .determinism
        case "difference": self = .difference
        default:
            guard text.hasPrefix("invariant "), let number = Int(text.dropFirst("invariant ".count)), number > 0 else { return nil }
            self = .invariant(number)
        }
    }
}

/// Something a run broke, as a value: the property and what was seen. Reports print the
/// message with the invariant it breaks after it (`… 5 s later (invariant 6)`).
package struct Violation: Hashable, Sendable, CustomStringConvertible {
    var property: Property
    var message: String

    init(_ property: Property, _ message: String) {
        self.property = property
        self.message = message
    }

    package var description: String {
        if case .invariant = property { return "\(message) (\(property))" }
        return message
    }
}
