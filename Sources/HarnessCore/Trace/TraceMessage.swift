import ProcessKit
import SiteSettings

/// A message in the trace: an input or a directive as the role's codec reads it (or as a
/// process's machine made it in process), written out as it travels only when the trace is
/// read; or JSON that belongs to no role: beside one of Safari's notes, or a message of a trace
/// read back from its lines that its role's codec cannot read.
enum TraceMessage: Sendable {
    case json(JSONValue)
    /// An event Safari gave the background.
    case event(ExtensionWire.Event)
    case appInput(AppWire.Event)
    case handlerInput(NativeHandlerWire.Event)
    case background(ExtensionWire.Output)
    case app(AppWire.Output)
    case handler(NativeHandlerWire.Output)

    var json: JSONValue {
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

    /// Its name on the wire; `unreadable` for JSON no role's codec reads.
    var name: String {
        switch self {
        case .json: "unreadable"
        case .event(let event): ExtensionWire.name(event)
        case .appInput(let event): AppWire.name(event)
        case .handlerInput: "requestArrived"
        case .background(let output): ExtensionWire.name(output)
        case .app(let output): AppWire.name(output)
        case .handler(let output): NativeHandlerWire.name(output)
        }
    }

    /// Reads a message of the process `label` (`background#2`) back from the JSON a trace line
    /// holds, with its role's codec: an `input` (`<-`) or an output (`->`). JSON the codec
    /// cannot read stays JSON.
    static func read(_ json: JSONValue, input: Bool, of label: String) -> TraceMessage {
        let message: TraceMessage?
        switch label.prefix(while: { $0 != "#" }) {
        case "background": message = input ? (try? ExtensionWire.decode(json)).map(TraceMessage.event) : (try? ExtensionWire.directive(json)).map(TraceMessage.background)
        case "app": message = input ? (try? AppWire.decode(json)).map(TraceMessage.appInput) : (try? AppWire.directive(json)).map(TraceMessage.app)
        case "handler": message = input ? (try? NativeHandlerWire.decode(json)).map(TraceMessage.handlerInput) : (try? NativeHandlerWire.directive(json)).map(TraceMessage.handler)
        default: message = nil
        }
        return message ?? .json(json)
    }
}
