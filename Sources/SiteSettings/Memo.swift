import Synchronization

/// The last few results of a pure function, by its argument, shared by every thread. A file
/// read again unchanged (the shared document, by each handler of a run and by the checks after
/// every step) is then decoded once, and a document sent again unchanged is written out once.
/// Results are values, so a remembered one is the one the function would give again. An
/// argument that still shares its storage with the remembered one (an array, a dictionary,
/// a document read from the memo) compares equal at once, without reading it through.
///
/// Inlinable, so that a memo of another module's type runs code compiled for that type.
public final class Memo<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    /// The results, the last one used first.
    @usableFromInline struct Entries {
        @usableFromInline var keys: [Key] = []
        @usableFromInline var values: [Value] = []
        @usableFromInline init() {}
    }

    @usableFromInline let capacity: Int
    @usableFromInline let entries = Mutex(Entries())
    @usableFromInline let sameStorage: (@Sendable (Key, Key) -> Bool)?

    /// `sameStorage`, when given, tells at once that two keys share their storage (so are
    /// equal): every result is tried that way before any is compared in full.
    public init(capacity: Int, sameStorage: (@Sendable (Key, Key) -> Bool)? = nil) {
        precondition(capacity > 0, "a memo keeps at least one result")
        self.capacity = capacity
        self.sameStorage = sameStorage
    }

    /// `compute(key)`, remembered; the computation runs outside the lock.
    @inlinable public func value(for key: Key, _ compute: (Key) -> Value) -> Value {
        let known: Value? = entries.withLock { entries in
            let index = sameStorage.flatMap { same in entries.keys.firstIndex { same($0, key) } } ?? entries.keys.firstIndex(of: key)
            guard let index else { return nil }
            let value = entries.values[index]
            if index > 0 {
                entries.keys.insert(entries.keys.remove(at: index), at: 0)
                entries.values.insert(entries.values.remove(at: index), at: 0)
            }
            return value
        }
        if let known { return known }
        let value = compute(key)
        entries.withLock { entries in
            if entries.keys.count == capacity {
                entries.keys.removeLast()
                entries.values.removeLast()
            }
            entries.keys.insert(key, at: 0)
            entries.values.insert(value, at: 0)
        }
        return value
    }
}

extension Memo where Key == [UInt8] {
    /// A memo of byte strings, which tries first whether the bytes are the very array it holds.
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, sameStorage: { a, b in
            a.count == b.count && a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
        })
    }
}
