/// Every mistake found in a scenario, each with its file and line.
package struct ScenarioErrors: Error, Equatable, Sendable, CustomStringConvertible {
    package let errors: [ScenarioError]

    init(_ errors: [ScenarioError]) { self.errors = errors }

    /// One line per mistake.
    package var description: String { errors.map(\.description).joined(separator: "\n") }
}
