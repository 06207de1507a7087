import SiteSettings

/// The directives of one input as a process's machine gave them, those that leave the process
/// (a container operation stays inside it): what a `done` frame carries, in the role's codec.
public enum ShellDirectives: Equatable, Sendable {
    case app([AppMachine.Directive])
    case background([ExtensionWire.Output])
    case handler([NativeHandlerMachine.Directive])

    /// No directive, in `role`'s vocabulary.
    public static func none(for role: WireProtocol.Role) -> ShellDirectives {
        switch role {
        case .app: .app([])
        case .background: .background([])
        case .handler: .handler([])
        }
    }

    /// As the process writes them on its pipe.
    public var json: [JSONValue] {
        switch self {
        case .app(let directives): directives.compactMap(AppWire.json)
        case .background(let outputs): outputs.compactMap(ExtensionWire.json)
        case .handler(let directives): directives.compactMap(NativeHandlerWire.json)
        }
    }

    /// Reads a `done` frame's directives with `role`'s codec; one it cannot read is an error
    /// naming it (`directive 2: type: unknown directive 'wake'`).
    public static func decode(_ written: [JSONValue], role: WireProtocol.Role) throws(WireError) -> ShellDirectives {
        func each<Directive>(_ read: (JSONValue) throws(NativeMessageError) -> Directive) throws(WireError) -> [Directive] {
            var directives: [Directive] = []
            for (index, json) in written.enumerated() {
                do { directives.append(try read(json)) } catch { throw .invalid("directive \(index): \(error)") }
            }
            return directives
        }
        return switch role {
        case .app: .app(try each(AppWire.directive))
        case .background: .background(try each(ExtensionWire.directive))
        case .handler: .handler(try each(NativeHandlerWire.directive))
        }
    }
}
