import SiteSettings

/// What one input made a process send out, in its role's vocabulary: what a `done` frame
/// carries. Work a process does itself (its container's files, its extension storage) never
/// appears here.
public enum ShellDirectives: Equatable, Sendable {
    case app([AppWire.Output])
    case background([ExtensionWire.Output])
    case handler([NativeHandlerWire.Output])

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
        case .app(let outputs): outputs.map(AppWire.json)
        case .background(let outputs): outputs.map(ExtensionWire.json)
        case .handler(let outputs): outputs.map(NativeHandlerWire.json)
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
