/// Milliseconds since the Unix epoch: the one unit of time in documents, edits and decisions.
public typealias EpochMillis = Int64

/// Whether a page is darkened: always, never, with the system appearance, or inside the schedule window.
public enum Mode: String, CaseIterable, Sendable, Hashable {
    case on, off, auto, scheduled
}

/// What a site does when the page already has a dark theme of its own.
public enum NativeDarkPolicy: String, CaseIterable, Sendable, Hashable {
    /// Leave a natively dark page alone.
    case respect
    /// Apply the theme anyway.
    case override
}

/// The system appearance, as the operating system reports it.
public enum Appearance: String, CaseIterable, Sendable, Hashable {
    case light, dark
}

/// A theme name. Stored documents may name a theme this version does not know (a newer app may
/// know more); such a name is kept as written and resolves as the default theme.
public struct Theme: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let dark = Theme(rawValue: "dark")
    public static let gray = Theme(rawValue: "gray")
    public static let sepia = Theme(rawValue: "sepia")
    public static let invert = Theme(rawValue: "invert")

    /// The themes this version can render, in the order a picker shows them.
    public static let catalogue: [Theme] = [.dark, .gray, .sepia, .invert]

    public var isKnown: Bool { Theme.catalogue.contains(self) }
    public var description: String { rawValue }
    public static func < (a: Theme, b: Theme) -> Bool { a.rawValue < b.rawValue }
}

/// A local time of day, minute precision, written `HH:MM` (00:00 to 23:59).
public struct TimeOfDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Minutes since local midnight, 0..<1440.
    public let minutes: Int

    public init?(minutes: Int) {
        guard (0..<1440).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    /// Parses exactly `HH:MM` with two digits each; nil for anything else.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
        func digit(_ b: UInt8) -> Int? { (48...57).contains(b) ? Int(b - 48) : nil }
        guard let h1 = digit(bytes[0]), let h2 = digit(bytes[1]),
              let m1 = digit(bytes[3]), let m2 = digit(bytes[4]) else { return nil }
        let hours = h1 * 10 + h2, minutes = m1 * 10 + m2
        guard hours < 24, minutes < 60 else { return nil }
        self.minutes = hours * 60 + minutes
    }

    public var description: String {
        let h = minutes / 60, m = minutes % 60
        return String(unsafeUninitializedCapacity: 5) { text in
            // HH:MM, each digit from "0" (48).
            text[0] = UInt8(48 + h / 10)
            text[1] = UInt8(48 + h % 10)
            text[2] = UInt8(ascii: ":")
            text[3] = UInt8(48 + m / 10)
            text[4] = UInt8(48 + m % 10)
            return 5
        }
    }

    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.minutes < b.minutes }
}

/// The daily window of `scheduled` mode: the half-open interval [start, end) in local time.
/// A window whose end is before its start runs over midnight; equal start and end is an empty
/// window (never inside).
public struct Schedule: Hashable, Sendable {
    public var start: TimeOfDay
    public var end: TimeOfDay

    public init(start: TimeOfDay, end: TimeOfDay) {
        self.start = start
        self.end = end
    }

    public func contains(_ time: TimeOfDay) -> Bool {
        if start < end { return start <= time && time < end }
        if end < start { return time >= start || time < end }
        return false
    }
}

/// The fields a site record may override.
public enum SiteField: String, CaseIterable, Sendable, Hashable, Comparable {
    case mode, theme, nativeDarkPolicy
    public static func < (a: SiteField, b: SiteField) -> Bool { a.rawValue < b.rawValue }

    // Compared and hashed by case, not by the text of the raw value (records are keyed by field).
    public static func == (a: SiteField, b: SiteField) -> Bool { a.position == b.position }
    public func hash(into hasher: inout Hasher) { hasher.combine(position) }

    private var position: Int {
        switch self {
        case .mode: 0
        case .theme: 1
        case .nativeDarkPolicy: 2
        }
    }
}

/// The fields of the defaults block.
public enum DefaultsField: String, CaseIterable, Sendable, Hashable, Comparable {
    case mode, theme, nativeDarkPolicy, schedule
    public static func < (a: DefaultsField, b: DefaultsField) -> Bool { a.rawValue < b.rawValue }
}

/// Where an effective value came from, as a popup shows it ("Default (Gray)").
public enum ValueSource: String, CaseIterable, Sendable, Hashable {
    case site, `default`
}
