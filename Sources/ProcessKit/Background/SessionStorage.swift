import SiteSettings

/// What the background keeps in `storage.session`: it survives an unload of the background but
/// not a restart of Safari.
public struct SessionStorage: Equatable, Sendable {
    /// The end of the extension-wide pause.
    public var pausedUntil: EpochMillis?
    /// The open tabs whose content script reported a natively dark page. Only a content script
    /// can tell, and it says so when it asks; a background woken later learns the open tabs'
    /// pages from Safari, not how they look, so it keeps this where an unload cannot lose it.
    public var nativelyDarkTabs: Set<TabID>

    public init(pausedUntil: EpochMillis? = nil, nativelyDarkTabs: Set<TabID> = []) {
        self.pausedUntil = pausedUntil
        self.nativelyDarkTabs = nativelyDarkTabs
    }

    public var json: JSONValue {
        .object(["pausedUntil": pausedUntil.map(JSONValue.integer) ?? .null,
                 "nativelyDarkTabs": .array(nativelyDarkTabs.map(\.rawValue).sorted().map(JSONValue.string))])
    }

    public static func decode(_ json: JSONValue?) -> SessionStorage? {
        guard case .object(let members)? = json else { return nil }
        var session = SessionStorage()
        if case .integer(let until)? = members["pausedUntil"] { session.pausedUntil = until }
        if case .array(let tabs)? = members["nativelyDarkTabs"] {
            for case .string(let tab) in tabs { session.nativelyDarkTabs.insert(TabID(tab)) }
        }
        return session
    }
}
