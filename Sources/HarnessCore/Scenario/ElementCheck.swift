import ProcessKit
import SiteSettings

/// What a page showed for a selector (`PageHost.Input.query`): how many elements match, from
/// the root element down, and the first of them; or why the page's DOM refused the selector.
package struct PageQuery: Equatable, Sendable {
    struct Element: Equatable, Sendable {
        /// Its outer HTML, as the page's DOM writes it.
        var html: String
        var text: String
        var classes: [String]
        var attributes: [String: String]
        /// Its inline style, by property name (`background-color`).
        var style: [String: String]
    }

    var count: Int
    var first: Element?
    /// The DOM's words for a selector it does not take.
    var refused: String?

    init(count: Int, first: Element?, refused: String? = nil) {
        self.count = count
        self.first = first
        self.refused = refused
    }

    init?(json: JSONValue) {
        guard case .object(let members) = json else { return nil }
        if case .string(let error)? = members["error"] {
            count = 0
            refused = error
            return
        }
        guard case .integer(let count)? = members["count"] else { return nil }
        self.count = Int(clamping: count)
        switch members["first"] {
        case .object(let element)?:
            func text(_ name: String) -> String { if case .string(let value)? = element[name] { value } else { "" } }
            func strings(_ name: String) -> [String: String] {
                guard case .object(let object)? = element[name] else { return [:] }
                return object.compactMapValues { if case .string(let value) = $0 { value } else { nil } }
            }
            var classes: [String] = []
            if case .array(let items)? = element["classes"] { classes = items.compactMap { if case .string(let name) = $0 { name } else { nil } } }
            first = Element(html: text("html"), text: text("text"), classes: classes, attributes: strings("attributes"), style: strings("style"))
        case .null?, nil: first = nil
        default: return nil
        }
    }
}

/// One check of the first element a selector matches on a page (`expect tab t1 page "SELECTOR"
/// CHECK`), or of how many match.
package enum ElementCheck: Equatable, Sendable {
    /// Its text, with runs of white space read as one space and the ends trimmed, is this.
    case text(String)
    case textContains(String)
    case attribute(String, String)
    case hasClass(String)
    case lacksClass(String)
    /// An inline style property (`style.background-color=red`), by its CSS name.
    case style(String, String)
    /// No element matches.
    case absent
    case count(Int)

    /// As a scenario writes it.
    var text: String {
        switch self {
        case .text(let text): "text " + Self.quoted(text)
        case .textContains(let text): "text contains " + Self.quoted(text)
        case .attribute(let name, let value): "attribute.\(name)=\(value)"
        case .hasClass(let name): "class \(name)"
        case .lacksClass(let name): "no-class \(name)"
        case .style(let name, let value): "style.\(name)=\(value)"
        case .absent: "absent"
        case .count(let count): "count=\(count)"
        }
    }

    private static func quoted(_ text: String) -> String { String(decoding: JSONWriter.compact(.string(text)), as: UTF8.self) }

    /// Why what `selector` found does not pass, or nil.
    func problem(_ query: PageQuery, selector: String) -> String? {
        let name = Self.quoted(selector)
        if let refused = query.refused { return "\(name): the page's DOM does not take it: \(refused)" }
        switch self {
        case .absent:
            return query.count == 0 ? nil : "\(name): expected no element, found \(query.count): \(Self.shown(query.first))"
        case .count(let wanted):
            return query.count == wanted ? nil : "\(name): expected \(wanted) element\(wanted == 1 ? "" : "s"), found \(query.count)"
        default:
            break
        }
        guard let element = query.first else { return "\(name): no element matches" }
        let failed: Bool = switch self {
        case .text(let wanted): Self.collapsed(element.text) != wanted
        case .textContains(let part): !Self.collapsed(element.text).contains(part)
        case .attribute(let attribute, let value): element.attributes[attribute] != value
        case .hasClass(let className): !element.classes.contains(className)
        case .lacksClass(let className): element.classes.contains(className)
        case .style(let property, let value): element.style[property] != value
        case .absent, .count: false
        }
        return failed ? "\(name) \(text): not so, the first of \(query.count) is \(Self.shown(element))" : nil
    }

    private static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// An element as a failure shows it: its outer HTML, cut at 300 characters.
    private static func shown(_ element: PageQuery.Element?) -> String {
        guard let html = element?.html else { return "none" }
        return html.count > 300 ? String(html.prefix(300)) + "… (\(html.count) characters)" : html
    }
}
