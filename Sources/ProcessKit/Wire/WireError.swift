import SiteSettings

/// Why a frame's content is not a protocol message.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    case notJSON(JSONSyntaxError)
    case invalid(String)
    /// An `input` frame whose input the role's codec does not read.
    case invalidInput(NativeMessageError)

    public var description: String {
        switch self {
        case .notJSON(let error): "frame is not JSON: \(error)"
        case .invalid(let why): "invalid frame: \(why)"
        case .invalidInput(let error): "invalid input: \(error)"
        }
    }

    static func object(_ bytes: [UInt8]) throws(WireError) -> [String: JSONValue] {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw .notJSON(error) }
        guard case .object(let members) = json else { throw .invalid("not a JSON object") }
        return members
    }
}
