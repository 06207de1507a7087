import Synchronization

/// The last few results of a pure function, by its argument, shared by every thread. A file
/// read again unchanged (the shared document, by each handler of a run and by the checks after
/// every step) is then decoded once, and a document sent again unchanged is written out once.
/// Results are values, so a remembered one is the one the function would give again.
///
/// Arguments are matched by `matches`, which must hold only for arguments the function gives
/// the same result for: for bytes, `==`; for values whose `==` is looser than that (strings
/// compare by canonical equivalence, so "é" precomposed equals "e" and its accent), `sameBits`,
/// which holds for a copy of the remembered value and for nothing else.
///
/// Inlinable, so that a memo of another module's type runs code compiled for that type.
public final class Memo<Key: Sendable, Value: Sendable>: Sendable {
    /// The results, the last one used first.
    @usableFromInline struct Entries {
        @usableFromInline var keys: [Key] = []
        @usableFromInline var values: [Value] = []
        @usableFromInline init() {}
    }

    @usableFromInline let capacity: Int
    @usableFromInline let entries = Mutex(Entries())
    @usableFromInline let matches: @Sendable (Key, Key) -> Bool

    public init(capacity: Int, matching matches: @escaping @Sendable (Key, Key) -> Bool) {
        precondition(capacity > 0, "a memo keeps at least one result")
        self.capacity = capacity
        self.matches = matches
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
        entries.withLock { entries in
            guard let index = entries.keys.firstIndex(where: { matches($0, key) }) else { return nil }
            let value = entries.values[index]
            if index > 0 {
                entries.keys.insert(entries.keys.remove(at: index), at: 0)
                entries.values.insert(entries.values.remove(at: index), at: 0)
            }
            return value
        }
    }

    /// Remembers `value` as the result for `key`, which the caller knows it is; the oldest
    /// result goes when the memo is full.
    @inlinable public func remember(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.keys.count == capacity {
                entries.keys.removeLast()
                entries.values.removeLast()
            }
            entries.keys.insert(key, at: 0)
            entries.values.insert(value, at: 0)
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
