import ProcessKit
import SiteSettings

/// A message in the trace: JSON, or a directive as a process's machine made it in process,
/// written out (as the process would write it on its pipe) only when the trace is read.
package enum TraceMessage: Sendable {
    case json(JSONValue)
    /// An event Safari gave the background.
    case event(ExtensionWire.Event)
    case background(ExtensionWire.Output)
    case app(AppMachine.Directive)
    case handler(NativeHandlerMachine.Directive)

    package var json: JSONValue {
        switch self {
        case .json(let json): json
        case .event(let event): ExtensionWire.encode(event)
        case .background(let output): ExtensionWire.json(output) ?? .null
        case .app(let directive): AppWire.json(directive) ?? .null
        case .handler(let directive): NativeHandlerWire.json(directive) ?? .null
        }
    }
}
