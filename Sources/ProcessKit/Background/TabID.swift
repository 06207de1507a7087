import SiteSettings

/// A tab's identity as the harness names it (`t1`).
public struct TabID: RawRepresentable, Hashable, Comparable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { rawValue = name }
    public static func < (a: TabID, b: TabID) -> Bool { a.rawValue < b.rawValue }
}
