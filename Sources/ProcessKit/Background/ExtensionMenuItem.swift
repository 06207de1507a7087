import SiteSettings

/// One of the extension's context-menu items as Safari holds it (`menus.create`, or
/// `contextMenus.create`): WebKit keeps them in the extension's context (`m_menuItems`), so they
/// outlive a background's unload, and fires `menus.onClicked` when the user chooses one
/// (`WebExtensionContext::fireMenusClickedEventIfNeeded`). The background sends the whole list
/// whenever it changes it (`menusChanged`).
public struct ExtensionMenuItem: Equatable, Sendable {
    /// As the script gave it (a string), or as the runtime numbered it (an integer).
    public var id: JSONValue
    public var title: String
    /// Where it shows: `all`, `page`, `link`, `selection`, …; the harness's step chooses from the page.
    public var contexts: [String]
    /// `normal`, `checkbox`, `radio` or `separator`.
    public var type: String
    public var checked: Bool
    public var enabled: Bool
    public var visible: Bool
    public var parentId: JSONValue?

    public init(id: JSONValue, title: String, contexts: [String] = ["page"], type: String = "normal", checked: Bool = false, enabled: Bool = true,
                visible: Bool = true, parentId: JSONValue? = nil) {
        (self.id, self.title, self.contexts, self.type, self.checked, self.enabled, self.visible, self.parentId) =
            (id, title, contexts, type, checked, enabled, visible, parentId)
    }

    /// The id as a step names it (`menu click ID`).
    public var name: String { Self.name(id) }

    public static func name(_ id: JSONValue) -> String {
        switch id {
        case .string(let text): text
        case .integer(let number): String(number)
        default: ""
        }
    }

    /// Whether the user can choose it from a page's menu: shown there, enabled, not a separator.
    public var inPageMenu: Bool { visible && type != "separator" && (contexts.contains("page") || contexts.contains("all")) }

    // MARK: - On the wire

    public var json: JSONValue {
        var members: [String: JSONValue] = ["id": id, "title": .string(title), "contexts": .array(contexts.map(JSONValue.string)), "type": .string(type),
                                            "checked": .bool(checked), "enabled": .bool(enabled), "visible": .bool(visible)]
        if let parentId { members["parentId"] = parentId }
        return .object(members)
    }

    /// A menu item's id as the wire carries it (`id`, `parentId`): a string or an integer; nil
    /// when `value` is absent.
    static func identifier(_ value: JSONValue?, at path: JSONPath) throws(NativeMessageError) -> JSONValue? {
        switch value {
        case nil: return nil
        case .string?, .integer?: return value
        case _?: throw NativeMessageError(path, "expected a string or an integer")
        }
    }

    public static func decode(_ value: JSONValue, at path: JSONPath) throws(NativeMessageError) -> ExtensionMenuItem {
        guard case .object(let members) = value else { throw NativeMessageError(path, "expected a menu item") }
        for key in members.keys where !["id", "title", "contexts", "type", "checked", "enabled", "visible", "parentId"].contains(key) {
            throw NativeMessageError(path.key(key), "unexpected member of a menu item")
        }
        func identifier(_ key: String) throws(NativeMessageError) -> JSONValue? { try Self.identifier(members[key], at: path.key(key)) }
        func bool(_ key: String, _ fallback: Bool) throws(NativeMessageError) -> Bool {
            guard let value = members[key] else { return fallback }
            guard case .bool(let flag) = value else { throw NativeMessageError(path.key(key), "expected true or false") }
            return flag
        }
        guard let id = try identifier("id") else { throw NativeMessageError(path.key("id"), "expected a string or an integer") }
        var title = ""
        if let value = members["title"] {
            guard case .string(let text) = value else { throw NativeMessageError(path.key("title"), "expected a string") }
            title = text
        }
        var contexts = ["page"]
        if let value = members["contexts"] {
            guard case .array(let items) = value else { throw NativeMessageError(path.key("contexts"), "expected an array of strings") }
            contexts = []
            for (index, item) in items.enumerated() {
                guard case .string(let context) = item else { throw NativeMessageError(path.key("contexts").index(index), "expected a string") }
                contexts.append(context)
            }
        }
        var type = "normal"
        if let value = members["type"] {
            guard case .string(let text) = value, ["normal", "checkbox", "radio", "separator"].contains(text) else {
                throw NativeMessageError(path.key("type"), "expected normal, checkbox, radio or separator")
            }
            type = text
        }
        return ExtensionMenuItem(id: id, title: title, contexts: contexts, type: type, checked: try bool("checked", false), enabled: try bool("enabled", true),
                                 visible: try bool("visible", true), parentId: try identifier("parentId"))
    }
}
