import SiteSettings

/// A frame from a child process to the harness.
///
/// Wire form: `{"kind": "hello", "protocol": 1, "role": "background"}` (the first frame, written
/// before anything is read: the role the process plays and the protocol version it speaks),
/// `{"kind": "yield", "point": "rename", "seq": 3}` (the child waits for an answer),
/// `{"kind": "done", "directives": [...]}` (after each input; free-running, `"lockWaits": [µs,
/// …]` adds how long each lock taken for the input waited), `{"kind": "error", "message": …}`
/// (the child could not read the harness's frame and did nothing with it), `{"kind": "log",
/// "level": "error", "message": …, "at": "background.js:17:6"}` (what a script wrote to its
/// console, or an exception it did not catch; `at` when a place is known: `PROTOCOL.md`,
/// section 14).
///
/// A `done` frame's directives are typed by the role that wrote them: its codec writes them
/// and reads them back (`decode(_:role:)`), and the in-process transport hands them over as
/// they are.
public enum FromChild: Equatable, Sendable {
    /// The role as the process names it (one the harness does not know is still read, to be
    /// reported) and its protocol version.
    case hello(role: String, protocol: Int)
    case yield(YieldPoint, seq: Int)
    case done(ShellDirectives, lockWaits: [Int] = [])
    case error(String)
    /// A line of a script's console: `level` is `log`, `warn` or `error`.
    case log(level: LogLevel, message: String, at: String?)

    /// How a console line is written (`console.log` and `console.info` are `log`).
    public enum LogLevel: String, CaseIterable, Sendable { case log, warn, error }

    public var json: JSONValue {
        switch self {
        case .hello(let role, let version):
            .object(["kind": .string("hello"), "role": .string(role), "protocol": .integer(Int64(version))])
        case .yield(let point, let seq):
            .object(["kind": .string("yield"), "point": .string(point.rawValue), "seq": .integer(Int64(seq))])
        case .done(let directives, let waits) where waits.isEmpty:
            .object(["kind": .string("done"), "directives": .array(directives.json)])
        case .done(let directives, let waits):
            .object(["kind": .string("done"), "directives": .array(directives.json), "lockWaits": .array(waits.map { .integer(Int64($0)) })])
        case .error(let message):
            .object(["kind": .string("error"), "message": .string(message)])
        case .log(let level, let message, let at):
            .object(["kind": .string("log"), "level": .string(level.rawValue), "message": .string(message)]
                .merging(at.map { ["at": .string($0)] } ?? [:]) { first, _ in first })
        }
    }

    /// Reads a frame written by a process playing `role`: a `done` frame's directives with
    /// that role's codec (one it cannot read makes the frame invalid, naming the directive).
    public static func decode(_ bytes: [UInt8], role: WireProtocol.Role) throws(WireError) -> FromChild {
        let members = try WireError.object(bytes)
        switch members["kind"] {
        case .string("hello")?:
            guard case .string(let role)? = members["role"] else { throw .invalid("'role' missing or not a string") }
            guard case .integer(let version)? = members["protocol"], let number = Int(exactly: version) else {
                throw .invalid("'protocol' missing or not an integer")
            }
            return .hello(role: role, protocol: number)
        case .string("yield")?:
            guard case .string(let name)? = members["point"], let point = YieldPoint(rawValue: name) else {
                throw .invalid("'point' missing or unknown")
            }
            guard case .integer(let seq)? = members["seq"] else { throw .invalid("'seq' missing") }
            return .yield(point, seq: Int(seq))
        case .string("done")?:
            guard case .array(let written)? = members["directives"] else { throw .invalid("'directives' missing") }
            var waits: [Int] = []
            if case .array(let items)? = members["lockWaits"] {
                for item in items {
                    guard case .integer(let micros) = item, let wait = Int(exactly: micros), wait >= 0 else {
                        throw .invalid("'lockWaits' holds something other than a number of microseconds")
                    }
                    waits.append(wait)
                }
            }
            return .done(try ShellDirectives.decode(written, role: role), lockWaits: waits)
        case .string("error")?:
            guard case .string(let message)? = members["message"] else { throw .invalid("'message' missing") }
            return .error(message)
        case .string("log")?:
            guard case .string(let name)? = members["level"], let level = LogLevel(rawValue: name) else {
                throw .invalid("'level' missing or not one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard case .string(let message)? = members["message"] else { throw .invalid("'message' missing") }
            switch members["at"] {
            case nil: return .log(level: level, message: message, at: nil)
            case .string(let at)?: return .log(level: level, message: message, at: at)
            default: throw .invalid("'at' not a string")
            }
        default:
            throw .invalid("unknown or missing 'kind'")
        }
    }
}
