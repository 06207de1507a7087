/// Document identifiers derived from a seed, never from a random source, so a run with the same
/// seed creates the same documents.
public enum DocumentID {
    /// A UUID-shaped identifier (version 4 layout) for the `sequence`-th document created in a
    /// run seeded with `seed`. Distinct sequences give distinct identifiers.
    public static func derive(seed: UInt64, sequence: UInt64) -> String {
        var state = seed ^ (sequence &* 0x9E37_79B9_7F4A_7C15)
        let high = splitMix(&state), low = splitMix(&state)
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The id of a document a writer creates at `time`: fresh (none on disk) or recovered
    /// (rebuilt after damage from a copy at `revision`). Distinct kinds, times or revisions give
    /// distinct ids within a run.
    public static func created(seed: UInt64, at time: EpochMillis, recovered: Bool = false, revision: Int64 = 0) -> String {
        derive(seed: seed, sequence: UInt64(bitPattern: time) &* 31 &+ (recovered ? 7 : 0) &+ UInt64(bitPattern: revision) &* 1_000_003)
    }

    /// One step of SplitMix64: a small, well-mixed deterministic sequence.
    public static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
