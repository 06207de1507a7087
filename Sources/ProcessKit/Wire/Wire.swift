import SiteSettings

/// A frame from the harness to a child process. Every frame carries the virtual time.
///
/// Wire form: `{"kind": "input", "now": …, "seed": …, "flaws": […], "input": {…}}`,
/// `{"kind": "continue", "now": …}` and `{"kind": "fail", "errno": …, "now": …}` (the two
/// answers to a yield; `"after": true` makes the step fail once it has taken effect).
///
/// In process, an event for the background may go as Safari's event itself (`event`); on a pipe
/// it is written as the `input` it stands for.
public enum ToChild: Equatable, Sendable {
    case input(JSONValue, now: EpochMillis, seed: UInt64, flaws: [String])
    case event(ExtensionWire.Event, now: EpochMillis, seed: UInt64, flaws: [String])
    case proceed(now: EpochMillis)
    case fail(errno: Int32, now: EpochMillis, after: Bool = false)

    public var json: JSONValue {
        switch self {
        case .input(let input, let now, let seed, let flaws):
            .object(["kind": .string("input"), "now": .integer(now), "seed": .integer(Int64(bitPattern: seed)),
                     "flaws": .array(flaws.map(JSONValue.string)), "input": input])
        case .event(let event, let now, let seed, let flaws):
            ToChild.input(ExtensionWire.encode(event), now: now, seed: seed, flaws: flaws).json
        case .proceed(let now):
            .object(["kind": .string("continue"), "now": .integer(now)])
        case .fail(let errno, let now, let after):
            .object(["kind": .string("fail"), "errno": .integer(Int64(errno)), "now": .integer(now)]
                .merging(after ? ["after": .bool(true)] : [:]) { a, _ in a })
        }
    }

    public static func decode(_ bytes: [UInt8]) throws(WireError) -> ToChild {
        let members = try WireError.object(bytes)
        guard case .integer(let now)? = members["now"] else { throw .invalid("'now' missing or not an integer") }
        // Virtual time stays within what documents can hold, so no arithmetic on it can overflow.
        guard (0...DocumentCodec.latestTime).contains(now) else { throw .invalid("'now' \(now) is outside 0...\(DocumentCodec.latestTime)") }
        switch members["kind"] {
        case .string("input")?:
            guard let input = members["input"] else { throw .invalid("'input' missing") }
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
            return .input(input, now: now, seed: seed, flaws: flaws)
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

/// A frame from a child process to the harness.
///
/// Wire form: `{"kind": "yield", "point": "rename", "seq": 3}` (the child waits for an answer),
/// `{"kind": "done", "directives": [...]}` (after each input; free-running, `"lockWaits": [µs,
/// …]` adds how long each lock taken for the input waited), `{"kind": "error", "message": …}`
/// (the child could not read the harness's frame and did nothing with it).
///
/// A shell gives its directives as its machine made them (`directives`); they are written out
/// as a `done` frame on the pipe, and read back as `done`. The in-process transport hands them
/// to the harness as they are, and the harness writes them out only for its trace.
public enum FromChild: Equatable, Sendable {
    case yield(YieldPoint, seq: Int)
    case done([JSONValue], lockWaits: [Int] = [])
    case directives(ShellDirectives, lockWaits: [Int] = [])
    case error(String)

    public var json: JSONValue {
        switch self {
        case .yield(let point, let seq):
            .object(["kind": .string("yield"), "point": .string(point.rawValue), "seq": .integer(Int64(seq))])
        case .done(let directives, let waits) where waits.isEmpty:
            .object(["kind": .string("done"), "directives": .array(directives)])
        case .done(let directives, let waits):
            .object(["kind": .string("done"), "directives": .array(directives), "lockWaits": .array(waits.map { .integer(Int64($0)) })])
        case .directives:
            written.json
        case .error(let message):
            .object(["kind": .string("error"), "message": .string(message)])
        }
    }

    /// The frame as the pipe carries it: directives written out as a `done` frame.
    public var written: FromChild {
        guard case .directives(let directives, let waits) = self else { return self }
        return .done(directives.json, lockWaits: waits)
    }

    public static func decode(_ bytes: [UInt8]) throws(WireError) -> FromChild {
        let members = try WireError.object(bytes)
        switch members["kind"] {
        case .string("yield")?:
            guard case .string(let name)? = members["point"], let point = YieldPoint(rawValue: name) else {
                throw .invalid("'point' missing or unknown")
            }
            guard case .integer(let seq)? = members["seq"] else { throw .invalid("'seq' missing") }
            return .yield(point, seq: Int(seq))
        case .string("done")?:
            guard case .array(let directives)? = members["directives"] else { throw .invalid("'directives' missing") }
            var waits: [Int] = []
            if case .array(let items)? = members["lockWaits"] {
                for item in items {
                    guard case .integer(let micros) = item, let wait = Int(exactly: micros), wait >= 0 else {
                        throw .invalid("'lockWaits' holds something other than a number of microseconds")
                    }
                    waits.append(wait)
                }
            }
            return .done(directives, lockWaits: waits)
        case .string("error")?:
            guard case .string(let message)? = members["message"] else { throw .invalid("'message' missing") }
            return .error(message)
        default:
            throw .invalid("unknown or missing 'kind'")
        }
    }
}

/// Why a frame's content is not a protocol message.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    case notJSON(JSONSyntaxError)
    case invalid(String)

    public var description: String {
        switch self {
        case .notJSON(let error): "frame is not JSON: \(error)"
        case .invalid(let why): "invalid frame: \(why)"
        }
    }

    static func object(_ bytes: [UInt8]) throws(WireError) -> [String: JSONValue] {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw .notJSON(error) }
        guard case .object(let members) = json else { throw .invalid("not a JSON object") }
        return members
    }
}

/// The directives of one input as a process's machine gave them, those that leave the process
/// (a container operation stays inside it). `json` is what the process writes on its pipe.
public enum ShellDirectives: Equatable, Sendable {
    case app([AppMachine.Directive])
    case background([ExtensionWire.Output])
    case handler([NativeHandlerMachine.Directive])

    public var json: [JSONValue] {
        switch self {
        case .app(let directives): directives.compactMap(AppWire.json)
        case .background(let outputs): outputs.compactMap(ExtensionWire.json)
        case .handler(let directives): directives.compactMap(NativeHandlerWire.json)
        }
    }
}
