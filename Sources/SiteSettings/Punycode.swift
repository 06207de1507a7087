/// RFC 3492 Punycode: the encoding behind `xn--` labels in internationalized host names.
///
/// Both directions follow the procedures of RFC 3492 sections 6.2 and 6.3 with the Punycode
/// parameters of section 5, using 32-bit arithmetic that fails on overflow (section 6.4).
/// The `xn--` prefix is not part of either side. Mixed-case annotations (appendix A) are not
/// produced: the encoder writes the digits of the generalized integers in lower case, and the
/// decoder accepts either case and ignores it.
public enum Punycode {
    private static let base: UInt32 = 36
    private static let tMin: UInt32 = 1
    private static let tMax: UInt32 = 26
    private static let skew: UInt32 = 38
    private static let damp: UInt32 = 700
    private static let initialBias: UInt32 = 72
    private static let initialN: UInt32 = 0x80
    private static let delimiter = UInt8(ascii: "-")

    /// Encodes a label's code points; returns the basic string without the `xn--` prefix, or nil on overflow.
    ///
    /// Basic code points (below U+0080) are copied in order, followed by `-` when there are any;
    /// an input of basic code points only therefore encodes to itself plus `-` (RFC 3492 6.3).
    public static func encode(_ scalars: [Unicode.Scalar]) -> String? {
        encodedBytes(scalars).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Decodes a basic string (without `xn--`); nil when it is not valid Punycode.
    ///
    /// Nil for a character outside ASCII, a character that is not a digit where one is needed,
    /// input ending inside a generalized integer, arithmetic overflow, or a decoded value that
    /// is not a Unicode scalar. As RFC 3492 6.2 specifies, everything before the last `-` is
    /// copied literally, so `"a-"` decodes to `["a"]`; rejecting labels that decode to ASCII
    /// only is a matter for the caller.
    public static func decode(_ encoded: Substring) -> [Unicode.Scalar]? {
        encoded.utf8.withContiguousStorageIfAvailable(decode(bytes:))
            ?? Array(encoded.utf8).withUnsafeBufferPointer(decode(bytes:))
    }

    /// `encode` as UTF-8 bytes, for callers that compare rather than keep the result.
    static func encodedBytes(_ input: [Unicode.Scalar]) -> [UInt8]? {
        guard let length = UInt32(exactly: input.count) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 2 + 8)
        for scalar in input where scalar.isASCII {
            output.append(UInt8(scalar.value))
        }
        let basicCount = UInt32(output.count)
        if basicCount > 0 { output.append(delimiter) }

        var n = initialN
        var delta: UInt32 = 0
        var bias = initialBias
        var handled = basicCount
        while handled < length {
            var m = UInt32.max
            for scalar in input where scalar.value >= n && scalar.value < m { m = scalar.value }

            let (step, stepOverflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !stepOverflow else { return nil }
            let (advanced, advanceOverflow) = delta.addingReportingOverflow(step)
            guard !advanceOverflow else { return nil }
            delta = advanced
            n = m

            for scalar in input {
                let value = scalar.value
                if value < n {
                    let (next, overflow) = delta.addingReportingOverflow(1)
                    guard !overflow else { return nil }
                    delta = next
                }
                guard value == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = threshold(k, bias: bias)
                    if q < t { break }
                    output.append(digitCharacter(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digitCharacter(q))
                bias = adapt(delta, count: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            let (next, overflow) = delta.addingReportingOverflow(1)
            guard !overflow else { return nil }
            delta = next
            n += 1
        }
        return output
    }

    /// RFC 3492 6.2 decoding. A value that is not a Unicode scalar fails as soon as it is
    /// inserted: it would stay in the output, so the result would be nil anyway.
    static func decode(bytes input: UnsafeBufferPointer<UInt8>) -> [Unicode.Scalar]? {
        var output: [Unicode.Scalar] = []
        output.reserveCapacity(input.count)
        var position = 0
        if let last = input.lastIndex(of: delimiter), last > 0 {
            for byte in input[..<last] {
                guard byte < 0x80 else { return nil }
                output.append(Unicode.Scalar(byte))
            }
            position = last + 1
        }

        var n = initialN
        var i: UInt32 = 0
        var bias = initialBias
        while position < input.count {
            let oldI = i
            var weight: UInt32 = 1
            var k = base
            while true {
                guard position < input.count, let digit = digitValue(input[position]) else { return nil }
                position += 1
                let (scaled, scaleOverflow) = digit.multipliedReportingOverflow(by: weight)
                guard !scaleOverflow else { return nil }
                let (sum, sumOverflow) = i.addingReportingOverflow(scaled)
                guard !sumOverflow else { return nil }
                i = sum
                let t = threshold(k, bias: bias)
                if digit < t { break }
                let (nextWeight, weightOverflow) = weight.multipliedReportingOverflow(by: base - t)
                guard !weightOverflow else { return nil }
                weight = nextWeight
                k += base
            }
            let count = UInt32(output.count + 1)
            bias = adapt(i - oldI, count: count, first: oldI == 0)
            let (nextN, nOverflow) = n.addingReportingOverflow(i / count)
            guard !nOverflow, let scalar = Unicode.Scalar(nextN) else { return nil }
            n = nextN
            i %= count
            output.insert(scalar, at: Int(i))
            i += 1
        }
        return output
    }

    /// The threshold t for digit position k (RFC 3492 section 3.3), clamped to tMin...tMax.
    private static func threshold(_ k: UInt32, bias: UInt32) -> UInt32 {
        if k <= bias { return tMin }
        if k >= bias + tMax { return tMax }
        return k - bias
    }

    /// The bias adaptation function of RFC 3492 section 6.1.
    private static func adapt(_ delta: UInt32, count: UInt32, first: Bool) -> UInt32 {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// Digits 0...25 are `a`...`z`, 26...35 are `0`...`9`.
    private static func digitCharacter(_ digit: UInt32) -> UInt8 {
        digit < 26 ? UInt8(truncatingIfNeeded: digit) &+ 0x61 : UInt8(truncatingIfNeeded: digit) &+ 0x16
    }

    private static func digitValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x61...0x7A: UInt32(byte - 0x61)
        case 0x41...0x5A: UInt32(byte - 0x41)
        case 0x30...0x39: UInt32(byte - 0x30) + 26
        default: nil
        }
    }
}
