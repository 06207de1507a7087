import SiteSettings

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
