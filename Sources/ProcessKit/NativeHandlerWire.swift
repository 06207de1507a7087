import SiteSettings

/// How the native handler's inputs and directives travel in `input` and `done` frames.
///
/// Input: `{"type": "nativeRequest", "message": {…}}`. Directives: `{"type": "reply", "message":
/// {…}}` and `{"type": "notify", "name": "settingsChanged"}`.
public enum NativeHandlerWire {
    public static func input(_ message: JSONValue) -> JSONValue {
        .object(["type": .string("nativeRequest"), "message": message])
    }

    /// The message inside an input, or nil when the input is not a native request.
    public static func message(in input: JSONValue) -> JSONValue? {
        guard case .object(let members) = input, members["type"] == .string("nativeRequest") else { return nil }
        return members["message"]
    }

    /// The directives the harness carries out; container operations stay inside the child.
    public static func json(_ directive: NativeHandlerMachine.Directive) -> JSONValue? {
        switch directive {
        case .reply(let reply): .object(["type": .string("reply"), "message": reply.json])
        case .postChangeNotification: .object(["type": .string("notify"), "name": .string(NativeHandlerMachine.changeNotification)])
        case .container: nil
        }
    }
}
