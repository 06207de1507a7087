import ProcessKit
import SiteSettings

/// A message in the trace: an input or a directive as the role's codec reads it (or as a
/// process's machine made it in process), written out as it travels only when the trace is
/// read; or JSON that belongs to no role (a directive Safari could not read).
package enum TraceMessage: Sendable {
    case json(JSONValue)
    /// An event Safari gave the background.
    case event(ExtensionWire.Event)
    case appInput(AppWire.Event)
    case handlerInput(NativeHandlerWire.Event)
    case background(ExtensionWire.Output)
    case app(AppWire.Output)
    case handler(NativeHandlerWire.Output)

    package var json: JSONValue {
        switch self {
        case .json(let json): json
        case .event(let event): ExtensionWire.encode(event)
        case .appInput(let event): AppWire.encode(event)
        case .handlerInput(let event): NativeHandlerWire.encode(event)
        case .background(let output): ExtensionWire.json(output)
        case .app(let output): AppWire.json(output)
        case .handler(let output): NativeHandlerWire.json(output)
        }
    }
}
