import SiteSettings

/// What an `input` frame carries: an event in the vocabulary of the role of the process it is
/// for, written and read by that role's codec.
public enum ChildInput: Equatable, Sendable {
    case app(AppWire.Event)
    case background(ExtensionWire.Event)
    case handler(NativeHandlerWire.Event)

    public var role: WireProtocol.Role {
        switch self {
        case .app: .app
        case .background: .background
        case .handler: .handler
        }
    }

    /// As the role's codec writes it.
    public var json: JSONValue {
        switch self {
        case .app(let event): AppWire.encode(event)
        case .background(let event): ExtensionWire.encode(event)
        case .handler(let event): NativeHandlerWire.encode(event)
        }
    }

    /// Reads an input for a process playing `role`; one its codec does not read is an error
    /// naming the member at fault.
    public static func decode(_ json: JSONValue, role: WireProtocol.Role) throws(NativeMessageError) -> ChildInput {
        switch role {
        case .app: .app(try AppWire.decode(json))
        case .background: .background(try ExtensionWire.decode(json))
        case .handler: .handler(try NativeHandlerWire.decode(json))
        }
    }
}
