import SiteSettings

/// How the native handler's inputs and directives travel in `input` and `done` frames, both
/// ways: the harness encodes the request and decodes directives, the handler's shell decodes the
/// request and encodes directives, with the same code.
///
/// Input: `{"type": "requestArrived", "message": {…}, "profile": "work"}` (the Safari profile the
/// request comes from, as `SFExtensionProfileKey` gives it since Safari 17; one native extension
/// serves every profile over the one App Group container, so the handler needs nothing from it).
/// Directives: `{"type": "reply", "message": {…}}` (see `NativeReply`; any other JSON value is
/// a handler's own answer, and no `message` is a reply with none), `{"type": "cancel"}`, and
/// `{"type": "postChangeNotification", "name": "settingsChanged"}`.
public enum NativeHandlerWire {
    /// An input as the harness sends it; the frame carries the time, the seed and the flaws.
    public enum Event: Equatable, Sendable {
        /// The extension's message as sent, unvalidated: a real extension may send anything,
        /// and the handler must answer it with a clear error; and the profile it came from.
        case requestArrived(JSONValue, profile: String? = nil)
    }

    // MARK: - Inputs

    /// The JSON the harness sends for an event.
    public static func encode(_ event: Event) -> JSONValue {
        switch event {
        case .requestArrived(let message, let profile):
            .object(["type": .string("requestArrived"), "message": message].merging(profile.map { ["profile": .string($0)] } ?? [:]) { a, _ in a })
        }
    }

    /// The input that carries `message`: `encode(.requestArrived(message))`.
    public static func input(_ message: JSONValue) -> JSONValue {
        encode(.requestArrived(message))
    }

    /// Reads an input's JSON; anything but a native request with its message is an error.
    public static func decode(_ json: JSONValue) throws(NativeMessageError) -> Event {
        let input = try WireObject(json, at: .root)
        guard input["type"] == .string("requestArrived") else { throw NativeMessageError(input.path.key("type"), "expected requestArrived") }
        var profile: String?
        if input["profile"] != nil { profile = try input.string("profile") }
        return .requestArrived(try input.value("message"), profile: profile)
    }

    /// The machine's input for an event that arrived at `now` in a run with `seed`.
    public static func input(for event: Event, now: EpochMillis, seed: UInt64) -> NativeHandlerMachine.Input {
        switch event {
        case .requestArrived(let message, _): .requestArrived(message, now: now, seed: seed)
        }
    }

    // MARK: - Directives

    /// What the handler sends out of its process: its directives but container work, which it
    /// carries out itself.
    public enum Output: Equatable, Sendable {
        /// The answer to the request, for Safari to hand the background.
        case reply(NativeReply)
        /// An answer that is not one of the design's replies, as the handler gave it: a team's
        /// handler answers in its own messages. Nil: it completed with no message
        /// (`completeRequest` with no items, or an item without `SFExtensionMessageKey`).
        case answer(JSONValue?)
        /// The handler cancelled the request (`cancelRequest(withError:)`).
        case cancel
        /// The handler has not completed the request within its watchdog, and will not: a
        /// team's handler that never calls `completeRequest`. Its reply never comes.
        case neverCompleted
        /// The Darwin notification that tells a running app the settings changed.
        case postChangeNotification
        /// A team's handler sent the extension a message as its Mac app would
        /// (`SFSafariApplication.dispatchMessage(withName:toExtensionWithIdentifier:userInfo:)`).
        case dispatchMessage(name: String, userInfo: JSONValue?)
    }

    /// An output's name: its `type` on the wire.
    public static func name(_ output: Output) -> String {
        switch output {
        case .reply, .answer: "reply"
        case .cancel: "cancel"
        case .neverCompleted: "neverCompleted"
        case .postChangeNotification: "postChangeNotification"
        case .dispatchMessage: "dispatchMessage"
        }
    }

    /// A machine directive as it leaves the process, or nil for container work, which stays inside it.
    public static func output(_ directive: NativeHandlerMachine.Directive) -> Output? {
        switch directive {
        case .container: nil
        case .reply(let reply): .reply(reply)
        case .postChangeNotification: .postChangeNotification
        }
    }

    /// An output as it travels.
    public static func json(_ output: Output) -> JSONValue {
        switch output {
        case .reply(let reply): .object(["type": .string("reply"), "message": reply.json])
        case .answer(let message?): .object(["type": .string("reply"), "message": message])
        case .answer(nil): .object(["type": .string("reply")])
        case .cancel: .object(["type": .string("cancel")])
        case .neverCompleted: .object(["type": .string("neverCompleted")])
        case .postChangeNotification: .object(["type": .string("postChangeNotification"), "name": .string(NativeHandlerMachine.changeNotification)])
        case .dispatchMessage(let name, let userInfo):
            .object(["type": .string("dispatchMessage"), "name": .string(name)].merging(userInfo.map { ["userInfo": $0] } ?? [:]) { a, _ in a })
        }
    }

    /// Reads a directive back from its JSON form (`json`), as the harness reads a `done` frame;
    /// anything else is an error naming the member at fault.
    public static func directive(_ json: JSONValue) throws(NativeMessageError) -> Output {
        let directive = try WireObject(json, at: .root)
        let type = try directive.string("type")
        switch type {
        case "reply":
            try directive.allow(["type", "message"])
            // The design's replies are read as such; any other answer is carried as it is.
            guard let message = directive["message"] else { return .answer(nil) }
            return (try? NativeReply.decode(message)).map(Output.reply) ?? .answer(message)
        case "cancel":
            try directive.allow(["type"])
            return .cancel
        case "neverCompleted":
            try directive.allow(["type"])
            return .neverCompleted
        case "postChangeNotification":
            try directive.allow(["type", "name"])
            guard try directive.string("name") == NativeHandlerMachine.changeNotification else {
                throw NativeMessageError(directive.path.key("name"), "expected \(NativeHandlerMachine.changeNotification)")
            }
            return .postChangeNotification
        case "dispatchMessage":
            try directive.allow(["type", "name", "userInfo"])
            return .dispatchMessage(name: try directive.string("name"), userInfo: directive["userInfo"])
        default:
            throw NativeMessageError(directive.path.key("type"), "unknown directive '\(type.prefix(64))'")
        }
    }
}
