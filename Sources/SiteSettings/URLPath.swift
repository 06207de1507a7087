/// Canonical URL paths, shared by page keys and URL resolution so both reach the same record.
enum URLPath {
    /// The path with dot segments removed (RFC 3986 §5.2.4; `%2e` counts as a dot, as browsers
    /// do), control bytes, space, non-ASCII bytes and `"<>`{}` percent-encoded, and existing
    /// percent escapes written with upper-case hex. Always starts with `/`.
    static func canonical<Bytes: Collection<UInt8>>(_ path: Bytes) -> String {
        if let plain = path.withContiguousStorageIfAvailable(alreadyCanonical), plain {
            return String(decoding: path, as: UTF8.self)
        }
        var segments: [[UInt8]] = []
        var current: [UInt8] = []
        var trailingSlash = false
        var index = path.startIndex
        if index != path.endIndex && path[index] == UInt8(ascii: "/") { index = path.index(after: index) }

        func endSegment(isLast: Bool) {
            switch dotCount(current) {
            case 1:
                trailingSlash = isLast
            case 2:
                if !segments.isEmpty { segments.removeLast() }
                trailingSlash = isLast
            default:
                segments.append(current)
            }
            current.removeAll(keepingCapacity: true)
        }

        while index != path.endIndex {
            let byte = path[index]
            if byte == UInt8(ascii: "/") {
                endSegment(isLast: false)
            } else {
                appendEncoded(byte, to: &current)
            }
            index = path.index(after: index)
        }
        endSegment(isLast: true)

        var out: [UInt8] = [UInt8(ascii: "/")]
        for (i, segment) in segments.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "/")) }
            out.append(contentsOf: segment)
        }
        if trailingSlash && !segments.isEmpty { out.append(UInt8(ascii: "/")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a path needs no change: it starts with `/`, has no `.` right after a `/`, no
    /// `%` and no byte that would be encoded. Most real paths take this way out.
    private static func alreadyCanonical(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = path.first, first == UInt8(ascii: "/") else { return false }
        var previous = first
        for byte in path {
            switch byte {
            case 0x00...0x20, 0x7F...0xFF, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"),
                 UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "%"), UInt8(ascii: "\\"):
                return false
            case UInt8(ascii: ".") where previous == UInt8(ascii: "/"):
                return false
            default:
                previous = byte
            }
        }
        return true
    }

    /// 1 for `.` or `%2e`, 2 for `..` and its encoded forms, 0 for any other segment.
    private static func dotCount(_ segment: [UInt8]) -> Int {
        var i = 0, dots = 0
        while i < segment.count {
            if segment[i] == UInt8(ascii: ".") {
                i += 1
            } else if segment[i] == UInt8(ascii: "%"), i + 2 < segment.count,
                      segment[i + 1] == UInt8(ascii: "2"), segment[i + 2] == UInt8(ascii: "E") {
                i += 3
            } else {
                return 0
            }
            dots += 1
            if dots > 2 { return 0 }
        }
        return dots
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends one byte, percent-encoding what a browser would and upper-casing the hex digits
    /// of an escape already present (the byte after a `%`, and the one after that).
    private static func appendEncoded(_ byte: UInt8, to out: inout [UInt8]) {
        let count = out.count
        let inEscape = (count >= 1 && out[count - 1] == UInt8(ascii: "%"))
            || (count >= 2 && out[count - 2] == UInt8(ascii: "%") && isHex(out[count - 1]))
        switch byte {
        case 0x00...0x20, 0x7F...0xFF, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"),
             UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            out.append(UInt8(ascii: "%"))
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        case UInt8(ascii: "a")...UInt8(ascii: "f") where inEscape:
            out.append(byte - 32)
        default:
            out.append(byte)
        }
    }

    private static func isHex(_ b: UInt8) -> Bool {
        (48...57).contains(b) || (65...70).contains(b) || (97...102).contains(b)
    }
}
