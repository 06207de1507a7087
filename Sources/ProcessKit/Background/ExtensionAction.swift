import SiteSettings

/// The extension's toolbar item as Safari holds it (`action`, or Manifest V2's `browserAction`
/// and `pageAction`): what the extension set for every tab, and for single tabs. Safari keeps it
/// in its own process (WebKit's `WebExtensionContext::defaultAction` and the tabs' actions), so it
/// outlives a background's unload; a tab's value, when the tab has none of its own, is the
/// default's (`WebExtensionAction::badgeText` and the others fall back so). A value is the JSON
/// the extension gave: a string, or `enabled`'s boolean, or `icon`'s paths. (Safari keeps no
/// badge colour: `WebExtensionAPIAction::getBadgeBackgroundColor` always answers opaque red.)
public struct ExtensionAction: Equatable, Sendable {
    /// What a script can set on it, named as the wire names it.
    public enum Property: String, CaseIterable, Sendable {
        case badgeText, title, popup, enabled, icon
    }

    /// What the extension set for every tab, then for each tab on its own.
    public private(set) var shared: [Property: JSONValue] = [:]
    public private(set) var tabs: [TabID: [Property: JSONValue]] = [:]

    public init() {}

    public var isEmpty: Bool { shared.isEmpty && tabs.isEmpty }

    /// The extension set `property` (for `tab`, or for every tab); `null` takes its own value back,
    /// so that the tab's falls back to the default's, or the default to the manifest's.
    public mutating func set(_ property: Property, to value: JSONValue, tab: TabID?) {
        guard let tab else {
            shared[property] = value == .null ? nil : value
            return
        }
        tabs[tab, default: [:]][property] = value == .null ? nil : value
        if tabs[tab]?.isEmpty == true { tabs[tab] = nil }
    }

    /// A tab closed: what was set for it alone goes with it.
    public mutating func forget(_ tab: TabID) { tabs[tab] = nil }

    /// What the extension set that `tab` shows (the tab's own value, else the default's), or for
    /// every tab with nil; nil where it set nothing.
    public func value(_ property: Property, tab: TabID?) -> JSONValue? {
        if let tab, let own = tabs[tab]?[property] { return own }
        return shared[property]
    }

    // MARK: - On the wire

    /// `{"default": {PROPERTY: VALUE}, "tabs": {TAB: {PROPERTY: VALUE}}}`, each left out when empty.
    public var json: JSONValue {
        func values(_ set: [Property: JSONValue]) -> JSONValue { .object(Dictionary(uniqueKeysWithValues: set.map { ($0.key.rawValue, $0.value) })) }
        var members: [String: JSONValue] = [:]
        if !shared.isEmpty { members["default"] = values(shared) }
        if !tabs.isEmpty { members["tabs"] = .object(Dictionary(uniqueKeysWithValues: tabs.map { ($0.key.rawValue, values($0.value)) })) }
        return .object(members)
    }

    public static func decode(_ value: JSONValue, at path: JSONPath) throws(NativeMessageError) -> ExtensionAction {
        guard case .object(let members) = value else { throw NativeMessageError(path, "expected {\"default\": {...}, \"tabs\": {...}}") }
        func values(_ value: JSONValue, at path: JSONPath) throws(NativeMessageError) -> [Property: JSONValue] {
            guard case .object(let set) = value else { throw NativeMessageError(path, "expected an object of action properties") }
            var read: [Property: JSONValue] = [:]
            for (name, value) in set {
                guard let property = Property(rawValue: name) else { throw NativeMessageError(path.key(name), Self.expectedProperty) }
                read[property] = value
            }
            return read
        }
        var action = ExtensionAction()
        for (name, value) in members {
            switch name {
            case "default": action.shared = try values(value, at: path.key(name))
            case "tabs":
                guard case .object(let tabs) = value else { throw NativeMessageError(path.key(name), "expected an object by tab") }
                for (tab, set) in tabs { action.tabs[TabID(tab)] = try values(set, at: path.key(name).key(tab)) }
            default: throw NativeMessageError(path.key(name), "expected default or tabs")
            }
        }
        return action
    }

    public static var expectedProperty: String { "expected one of \(Property.allCases.map(\.rawValue).joined(separator: ", "))" }
}
