import SiteSettings

/// A frame from the harness to a child process. Every frame carries the virtual time.
///
/// Wire form: `{"kind": "input", "now": …, "uptime": …, "seed": …, "flaws": […], "input": {…}}`,
/// `{"kind": "continue", "now": …}` and `{"kind": "fail", "errno": …, "now": …}` (the two
/// answers to a yield; `"after": true` makes the step fail once it has taken effect). An
/// input is in the vocabulary of the process's role (`ChildInput`), read by its codec. `now` is
/// the wall clock; `uptime` is Safari's monotonic clock, milliseconds since the run began, which
/// stops while the device sleeps: the two move apart only then.
public enum ToChild: Equatable, Sendable {
    case input(ChildInput, now: EpochMillis, uptime: EpochMillis, seed: UInt64, flaws: [String])
    case proceed(now: EpochMillis)
    case fail(errno: Int32, now: EpochMillis, after: Bool = false)

    public var json: JSONValue {
        switch self {
        case .input(let input, let now, let uptime, let seed, let flaws):
            .object(["kind": .string("input"), "now": .integer(now), "uptime": .integer(uptime), "seed": .integer(Int64(bitPattern: seed)),
                     "flaws": .array(flaws.map(JSONValue.string)), "input": input.json])
        case .proceed(let now):
            .object(["kind": .string("continue"), "now": .integer(now)])
        case .fail(let errno, let now, let after):
            .object(["kind": .string("fail"), "errno": .integer(Int64(errno)), "now": .integer(now)]
                .merging(after ? ["after": .bool(true)] : [:]) { a, _ in a })
        }
    }

    /// Reads a frame for a process playing `role`: an input with that role's codec (one it
    /// cannot read is `.invalidInput`, naming the member at fault).
    public static func decode(_ bytes: [UInt8], role: WireProtocol.Role) throws(WireError) -> ToChild {
        let members = try WireError.object(bytes)
        guard case .integer(let now)? = members["now"] else { throw .invalid("'now' missing or not an integer") }
        // Virtual time stays within what documents can hold, so no arithmetic on it can overflow.
        guard (0...DocumentCodec.latestTime).contains(now) else { throw .invalid("'now' \(now) is outside 0...\(DocumentCodec.latestTime)") }
        switch members["kind"] {
        case .string("input")?:
            guard let json = members["input"] else { throw .invalid("'input' missing") }
            guard case .integer(let uptime)? = members["uptime"], (0...now).contains(uptime) else {
                throw .invalid("'uptime' missing, or not an integer from 0 to 'now'")
            }
            var seed: UInt64 = 0
            if let value = members["seed"] {
                guard case .integer(let n) = value else { throw .invalid("'seed' is not an integer") }
                seed = UInt64(bitPattern: n)
            }
            var flaws: [String] = []
            if case .array(let items)? = members["flaws"] {
                for item in items {
                    guard case .string(let name) = item else { throw .invalid("'flaws' holds a non-string") }
                    flaws.append(name)
                }
            }
            let input: ChildInput
            do { input = try ChildInput.decode(json, role: role) } catch { throw .invalidInput(error) }
            return .input(input, now: now, uptime: uptime, seed: seed, flaws: flaws)
        case .string("continue")?:
            return .proceed(now: now)
        case .string("fail")?:
            guard case .integer(let errno)? = members["errno"], let value = Int32(exactly: errno) else {
                throw .invalid("'errno' missing or not an integer")
            }
            return .fail(errno: value, now: now, after: members["after"] == .bool(true))
        default:
            throw .invalid("unknown or missing 'kind'")
        }
    }
}

extension ToChild {
    /// The harness's answer at a yield point, or nil for an input.
    public var answer: YieldAnswer? {
        switch self {
        case .proceed: .proceed
        case .fail(let errno, _, let after): after ? .failAfter(errno: errno) : .fail(errno: errno)
        case .input: nil
        }
    }
}
