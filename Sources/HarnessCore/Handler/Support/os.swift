// Stand-in for the `os` module's logging, as a native handler uses it (`import os.log`,
// `os_log`, `Logger`): the overlay of a Clang module `os` with a submodule `log`. What it logs
// goes to standard error, which the harness keeps for a run's diagnostics.
@_exported import os
import Foundation

public struct OSLogType: Equatable, Sendable {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let `default` = OSLogType(0)
    public static let info = OSLogType(1)
    public static let debug = OSLogType(2)
    public static let error = OSLogType(16)
    public static let fault = OSLogType(17)
}

public struct OSLog: Sendable {
    public let subsystem: String
    public let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public static let `default` = OSLog(subsystem: "", category: "")
}

func logLine(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// `%@` and `%{public}@` read as `%@`, for `String(format:)`.
func formatted(_ message: StaticString, _ arguments: [CVarArg]) -> String {
    let format = "\(message)".replacingOccurrences(of: "{public}", with: "").replacingOccurrences(of: "{private}", with: "")
    return String(format: format, arguments: arguments.map { $0 is String ? NSString(string: $0 as! String) : $0 })
}

public func os_log(_ message: StaticString, dso: UnsafeRawPointer? = nil, log: OSLog = .default, type: OSLogType = .default, _ arguments: CVarArg...) {
    logLine(formatted(message, arguments))
}

public func os_log(_ type: OSLogType, dso: UnsafeRawPointer? = nil, log: OSLog = .default, _ message: StaticString, _ arguments: CVarArg...) {
    logLine(formatted(message, arguments))
}

/// How a value in a log message is shown; every value is shown here.
public struct OSLogPrivacy: Sendable {
    public static let auto = OSLogPrivacy()
    public static let `public` = OSLogPrivacy()
    public static let `private` = OSLogPrivacy()
    public static let sensitive = OSLogPrivacy()
}

/// A `Logger`'s message: an interpolated string whose values may name their privacy.
public struct OSLogMessage: ExpressibleByStringInterpolation, Sendable {
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) { text += "\(value())" }
    }

    let text: String

    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }
}

/// A logger whose messages are interpolated strings.
public struct Logger: Sendable {
    public init() {}
    public init(subsystem: String, category: String) {}
    public init(_ log: OSLog) {}

    public func log(_ message: OSLogMessage) { logLine(message.text) }
    public func log(level: OSLogType, _ message: OSLogMessage) { logLine(message.text) }
    public func trace(_ message: OSLogMessage) { logLine(message.text) }
    public func debug(_ message: OSLogMessage) { logLine(message.text) }
    public func info(_ message: OSLogMessage) { logLine(message.text) }
    public func notice(_ message: OSLogMessage) { logLine(message.text) }
    public func warning(_ message: OSLogMessage) { logLine(message.text) }
    public func error(_ message: OSLogMessage) { logLine(message.text) }
    public func critical(_ message: OSLogMessage) { logLine(message.text) }
    public func fault(_ message: OSLogMessage) { logLine(message.text) }
}
