/// A parsed JSON value. Objects keep their members in a dictionary; writers sort keys, so output
/// never depends on hash order.
///
/// Keys are Swift `String`s, which compare by Unicode canonical equivalence: two keys that differ
/// only in normalization (`"\u{E9}"` and `"e\u{301}"`) are one key here, and the parser reports the
/// second as a duplicate.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits `Int64`.
    case integer(Int64)
    /// Any other finite number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

/// A location in a document as users write it: `defaults.mode`, `sites["docs.example.com"].theme`,
/// `list[3]`.
///
/// The root itself is described as `document`. Keys made of `[A-Za-z_][A-Za-z0-9_]*` are written
/// as `.name` (without the dot at the start of the path); any other key is written as `["…"]`,
/// with `"` and `\` escaped by a backslash and control characters (U+0000–U+001F, U+007F–U+009F)
/// as `\u00xx`, so every description names exactly one location.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    private enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The path but its last component, as a chain of nodes (extending it costs one small
    /// allocation); the root is the one node with no parent (its component stands for nothing).
    private final class Node: Sendable {
        let parent: Node?
        let component: Component
        init(_ parent: Node?, _ component: Component) {
            self.parent = parent
            self.component = component
        }
        static let root = Node(nil, .index(0))
    }

    private let prefix: Node
    /// The last component, kept out of a node until the path is extended: most paths a reader
    /// makes are only ever passed to a member's value, never extended or described.
    private let last: Component?

    private init(_ prefix: Node, _ last: Component?) {
        self.prefix = prefix
        self.last = last
    }

    /// The whole document; its description is `document`.
    public static let root = JSONPath(Node.root, nil)

    /// The member `name` of the object at this path.
    public func key(_ name: String) -> JSONPath { extended(.key(name)) }

    /// The element at position `i` (0-based) of the array at this path.
    public func index(_ i: Int) -> JSONPath { extended(.index(i)) }

    private func extended(_ component: Component) -> JSONPath {
        JSONPath(last.map { Node(prefix, $0) } ?? prefix, component)
    }

    /// From the root down.
    private var components: [Component] {
        var components: [Component] = last.map { [$0] } ?? []
        var node = prefix
        while let parent = node.parent {
            components.append(node.component)
            node = parent
        }
        return components.reversed()
    }

    public static func == (a: JSONPath, b: JSONPath) -> Bool { (a.prefix === b.prefix && a.last == b.last) || a.components == b.components }
    public func hash(into hasher: inout Hasher) { hasher.combine(components) }

    public var description: String {
        let components = self.components
        if components.isEmpty { return "document" }
        var text = ""
        for component in components {
            switch component {
            case .key(let name) where isIdentifier(name):
                if !text.isEmpty { text += "." }
                text += name
            case .key(let name):
                text += "[" + JSONPath.quoted(name) + "]"
            case .index(let i):
                text += "[\(i)]"
            }
        }
        return text
    }

    private func isIdentifier(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        guard let first = bytes.next(), first.isIdentifierStart else {
            return false
        }
        while let byte = bytes.next() {
            guard byte.isIdentifierStart || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                return false
            }
        }
        return true
    }
}

extension JSONPath {
    /// `text` in double quotes, with `"` and `\` escaped by a backslash and control characters
    /// (U+0000–U+001F, U+007F–U+009F) as `\u00xx`, for naming keys in paths and messages.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22:
                result += "\\\""
            case 0x5C:
                result += "\\\\"
            case 0x00...0x1F, 0x7F...0x9F:
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

private extension UInt8 {
    var isIdentifierStart: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || self == UInt8(ascii: "_")
    }
}
