#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The last few results of a pure function, by its argument. A file read again unchanged (the
/// shared document, by each handler of a run and by the checks after every step) is then
/// decoded once, and a document sent again unchanged is written out once. Results are values,
/// so a remembered one is the one the function would give again.
///
/// Each thread has its own results (by a hash of the thread, so two threads may share): an
/// in-process run's processes and checks all run on its thread, and the runs that workers make
/// side by side have little to share, so no two cores keep taking the same lock.
///
/// Arguments are matched by `matches`, which must hold only for arguments the function gives
/// the same result for: for bytes, `==`; for values whose `==` is looser than that (strings
/// compare by canonical equivalence, so "é" precomposed equals "e" and its accent), `sameBits`,
/// which holds for a copy of the remembered value and for nothing else.
///
/// Inlinable, so that a memo of another module's type runs code compiled for that type.
public final class Memo<Key: Sendable, Value: Sendable>: Sendable {
    /// The results in no order, each with when it was last used (a count of uses): a hit
    /// moves nothing, and the result used longest ago is the one replaced.
    @usableFromInline struct Entries {
        @usableFromInline var keys: [Key] = []
        @usableFromInline var values: [Value] = []
        @usableFromInline var lastUse: [UInt64] = []
        @usableFromInline var uses: UInt64 = 0
        @usableFromInline init() {}
    }

    @usableFromInline final class Shard: Sendable {
        @usableFromInline let entries = Mutex(Entries())
        @usableFromInline init() {}
    }

    @usableFromInline let capacity: Int
    /// Eight: as many as the top three bits of a hash pick.
    @usableFromInline let shards: [Shard] = (0..<8).map { _ in Shard() }
    @usableFromInline let matches: @Sendable (Key, Key) -> Bool

    public init(capacity: Int, matching matches: @escaping @Sendable (Key, Key) -> Bool) {
        precondition(capacity > 0, "a memo keeps at least one result")
        self.capacity = capacity
        self.matches = matches
    }

    /// The results of the calling thread: the top bits of its id (an address) times the
    /// golden ratio pick the shard.
    @inlinable var shard: Shard {
        #if canImport(Darwin)
        let id = UInt(bitPattern: pthread_self())
        #else
        let id = UInt(pthread_self())
        #endif
        return shards[Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 61)]
    }

    /// `compute(key)`, remembered; the computation runs outside the lock.
    @inlinable public func value(for key: Key, _ compute: (Key) -> Value) -> Value {
        if let known = known(key) { return known }
        let value = compute(key)
        remember(value, for: key)
        return value
    }

    /// The result remembered for `key`, if any (it becomes the last one used).
    @inlinable public func known(_ key: Key) -> Value? {
        shard.entries.withLock { entries in
            guard let index = entries.keys.firstIndex(where: { matches($0, key) }) else { return nil }
            entries.uses += 1
            entries.lastUse[index] = entries.uses
            return entries.values[index]
        }
    }

    /// Remembers `value` as the result for `key`, which the caller knows it is; when the memo
    /// is full, it takes the place of the result used longest ago.
    @inlinable public func remember(_ value: Value, for key: Key) {
        shard.entries.withLock { entries in
            entries.uses += 1
            guard entries.keys.count == capacity else {
                entries.keys.append(key)
                entries.values.append(value)
                entries.lastUse.append(entries.uses)
                return
            }
            let oldest = entries.lastUse.indices.min { entries.lastUse[$0] < entries.lastUse[$1] }!
            entries.keys[oldest] = key
            entries.values[oldest] = value
            entries.lastUse[oldest] = entries.uses
        }
    }
}

extension Memo where Key == [UInt8] {
    /// A memo of byte strings, matched byte for byte (at once for the very array it holds).
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, matching: ==)
    }
}

/// Whether two values have the same bits: the same references and the same inline data, so
/// the same value, whatever its type's `==` says. Equal values built apart may differ in their
/// bits (other storage, padding): this tells copies of one value, and nothing else, alike.
@inlinable public func sameBits<T>(_ a: T, _ b: T) -> Bool {
    withUnsafeBytes(of: a) { x in
        withUnsafeBytes(of: b) { y in
            // A word at a time, then the bytes left.
            let words = x.count / 8
            for word in 0..<words where x.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) != y.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) {
                return false
            }
            for byte in words * 8..<x.count where x[byte] != y[byte] { return false }
            return true
        }
    }
}
