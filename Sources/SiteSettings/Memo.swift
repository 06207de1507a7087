import Synchronization

/// The last few results of a pure function, by its argument, shared by every thread. A file
/// read again unchanged (the shared document, by each handler of a run and by the checks after
/// every step) is then decoded once, and a document sent again unchanged is written out once.
/// Results are values, so a remembered one is the one the function would give again. An
/// argument that still shares its storage with the remembered one (an array, a dictionary,
/// a document read from the memo) compares equal at once, without reading it through.
public final class Memo<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private struct Entries {
        var keys: [Key] = []
        var values: [Value] = []
        /// The slot the next new result replaces, once all are full.
        var next = 0
    }

    private let capacity: Int
    private let entries = Mutex(Entries())

    public init(capacity: Int) {
        precondition(capacity > 0, "a memo keeps at least one result")
        self.capacity = capacity
    }

    /// `compute(key)`, remembered; the computation runs outside the lock.
    public func value(for key: Key, _ compute: (Key) -> Value) -> Value {
        let known: Value? = entries.withLock { entries in
            entries.keys.firstIndex(of: key).map { entries.values[$0] }
        }
        if let known { return known }
        let value = compute(key)
        entries.withLock { entries in
            if entries.keys.count < capacity {
                entries.keys.append(key)
                entries.values.append(value)
            } else {
                entries.keys[entries.next] = key
                entries.values[entries.next] = value
                entries.next = (entries.next + 1) % capacity
            }
        }
        return value
    }
}
