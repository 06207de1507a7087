/// Writes JSON deterministically: object keys sorted by their UTF-8 bytes, so equal values always
/// give the same bytes whatever the dictionaries' hash order.
///
/// Strings escape only `"`, `\` and U+0000–U+001F (`\b \f \n \r \t` in short form, the rest as
/// `\u00xx`); `/` and non-ASCII characters are written as they are, in UTF-8. Doubles are written
/// as `Double.description` gives them (`1000.0`, `1e-07`), which reads back as the same `.double`;
/// non-finite doubles, which the parser never produces, are written as `null`.
public enum JSONWriter {
    /// The value as compact UTF-8 JSON with no insignificant whitespace.
    public static func compact(_ value: JSONValue) -> [UInt8] {
        var emitter = Emitter(pretty: false)
        emitter.write(value, indent: 0)
        return emitter.output
    }

    /// `compact(value)`, remembered with the value, so that `JSONParser.parseWritten` of these
    /// bytes gives the value back without reading them again. Only for a value that reads back
    /// as itself: one without doubles (a NaN is written as `null`) and no deeper than the
    /// parser's default limit, as the documents and stores the processes write are. A debug
    /// build (the tests) parses each one back and stops at a value that reads back otherwise.
    public static func compactRemembered(_ value: JSONValue) -> [UInt8] {
        let bytes = compact(value)
        assert((try? JSONParser.parse(bytes)) == value, "written JSON does not read back as its value: \(String(decoding: bytes, as: UTF8.self))")
        JSONParser.written.remember(value, for: bytes)
        return bytes
    }

    /// The length of `compact(value)`, found without writing it (or sorting keys).
    public static func compactCount(_ value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .integer(let number):
            var digits = 1
            var magnitude = number.magnitude
            while magnitude >= 10 {
                magnitude /= 10
                digits += 1
            }
            return number < 0 ? digits + 1 : digits
        case .double(let number): return number.isFinite ? number.description.utf8.count : 4
        case .string(let text): return quotedCount(text)
        case .array(let elements):
            // Brackets, and a comma between elements.
            return elements.reduce(1 + max(elements.count, 1)) { $0 + compactCount($1) }
        case .object(let members):
            // Braces, a comma between members, and a colon in each.
            return members.reduce(1 + max(members.count, 1) + members.count) { $0 + quotedCount($1.key) + compactCount($1.value) }
        }
    }

    /// The length of a string as `compact` writes it: quoted, with its escapes.
    private static func quotedCount(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var count = 2 + bytes.count
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: count += 1
                default: count += 5
                }
            }
            return count
        }
    }

    /// The value with 2-space indentation, one member or element per line, `"key": value` with
    /// one space after the colon, `{}` and `[]` for empty containers, and a final newline.
    public static func pretty(_ value: JSONValue) -> String {
        var emitter = Emitter(pretty: true)
        emitter.write(value, indent: 0)
        emitter.output.append(UInt8(ascii: "\n"))
        return String(decoding: emitter.output, as: UTF8.self)
    }
}

private struct Emitter {
    let pretty: Bool
    var output: [UInt8] = []

    init(pretty: Bool) {
        self.pretty = pretty
        output.reserveCapacity(1024)
    }

    mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case .integer(let number):
            writeInteger(number)
        case .double(let number):
            if number.isFinite {
                output.append(contentsOf: number.description.utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let text):
            writeString(text)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent: indent + 1)
                write(element, indent: indent + 1)
            }
            newline(indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            // Sorted in a buffer on the stack (for small objects): no array to allocate.
            withUnsafeTemporaryAllocation(of: (key: String, value: JSONValue).self, capacity: members.count) { buffer in
                var sorted = buffer
                _ = sorted.initialize(from: members)
                defer { sorted.deinitialize() }
                sorted.sort { utf8Precedes($0.key, $1.key) }
                for (i, member) in sorted.enumerated() {
                    if i > 0 { output.append(UInt8(ascii: ",")) }
                    newline(indent: indent + 1)
                    writeString(member.key)
                    output.append(UInt8(ascii: ":"))
                    if pretty { output.append(UInt8(ascii: " ")) }
                    write(member.value, indent: indent + 1)
                }
            }
            newline(indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// In pretty output, a line break and `indent` levels of indentation; nothing in compact output.
    mutating func newline(indent: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    mutating func writeInteger(_ number: Int64) {
        if number < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for i in bytes.indices {
                let byte = bytes[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                writeEscape(byte)
                runStart = i + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    mutating func writeEscape(_ byte: UInt8) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: "u00".utf8)
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        }
    }
}

/// Whether `a` sorts before `b` by UTF-8 bytes (which is also code point order, unlike `<`,
/// which compares canonical forms).
private func utf8Precedes(_ a: String, _ b: String) -> Bool {
    let fast = a.utf8.withContiguousStorageIfAvailable { aBytes in
        b.utf8.withContiguousStorageIfAvailable { bBytes in
            let common = min(aBytes.count, bBytes.count)
            var i = 0
            while i < common {
                if aBytes[i] != bBytes[i] { return aBytes[i] < bBytes[i] }
                i += 1
            }
            return aBytes.count < bBytes.count
        }
    }
    if let fast, let result = fast { return result }
    return a.utf8.lexicographicallyPrecedes(b.utf8)
}
