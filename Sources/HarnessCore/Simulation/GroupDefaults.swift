import Foundation
import SiteSettings

/// An App Group's defaults as the team's handler keeps them: `UserDefaults(suiteName: SUITE)`,
/// which on Linux swift-corelibs-foundation keeps in `$XDG_CONFIG_HOME/SUITE.plist`, an XML
/// property list (every process of a run has the run's container as `XDG_CONFIG_HOME`). The
/// harness reads and writes that file for the team's app and for `expect group defaults`, as
/// JSON values: a Bool is `true`/`false`, a Date its ISO-8601 text, Data its base64.
enum GroupDefaults {
    /// The container file a suite is kept in.
    static func fileName(_ suite: String) -> String { suite + ".plist" }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The suite's keys and values; empty when it has no file yet.
    static func read(_ bytes: [UInt8]?) throws(Unreadable) -> [String: JSONValue] {
        guard let bytes, !bytes.isEmpty else { return [:] }
        let list: Any
        do { list = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) } catch {
            throw Unreadable(description: "not a property list (\(error.localizedDescription))")
        }
        guard let entries = list as? [String: Any] else { throw Unreadable(description: "its property list is not a dictionary") }
        var values: [String: JSONValue] = [:]
        for (key, value) in entries { values[key] = json(value) }
        return values
    }

    /// The property list's bytes for these keys and values (XML, as corelibs writes it). Every
    /// JSON value but null maps to a property list value, and the scenario's lines refuse null;
    /// should Foundation refuse one still, the error says which suite.
    static func write(_ values: [String: JSONValue]) throws(Unreadable) -> [UInt8] {
        do {
            return Array(try PropertyListSerialization.data(fromPropertyList: values.mapValues(object), format: .xml, options: 0))
        } catch {
            throw Unreadable(description: "its values cannot be written as a property list (\(error.localizedDescription))")
        }
    }

    private static func json(_ value: Any) -> JSONValue {
        // A Bool is read as Swift's Bool; an integer or a real as an NSNumber (which also
        // answers `is Bool`), told apart by its C type.
        if type(of: value) == Bool.self, let flag = value as? Bool { return .bool(flag) }
        if let number = value as? NSNumber {
            let kind = String(cString: number.objCType)
            return kind == "d" || kind == "f" ? .double(number.doubleValue) : .integer(number.int64Value)
        }
        if let text = value as? String { return .string(text) }
        if let date = value as? Date { return .string(ISO8601DateFormatter().string(from: date)) }
        if let data = value as? Data { return .string(data.base64EncodedString()) }
        if let list = value as? [Any] { return .array(list.map(json)) }
        if let entries = value as? [String: Any] { return .object(entries.mapValues(json)) }
        return .string(String(describing: value))
    }

    private static func object(_ value: JSONValue) -> Any {
        switch value {
        case .null: "" // never stored: the scenario's lines refuse null
        case .bool(let flag): flag
        case .integer(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .string(let text): text
        case .array(let items): items.map(object)
        case .object(let entries): entries.mapValues(object)
        }
    }
}
