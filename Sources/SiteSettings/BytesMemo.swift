import Synchronization

/// The last few results of a pure function of a byte string, shared by every thread. A file
/// read again unchanged (the shared document, by each handler of a run and by the checks after
/// every step) is then decoded once. Results are values, so a remembered one is the one the
/// function would give again; an array the caller still shares with the remembered bytes
/// compares equal at once, without reading its bytes.
public final class BytesMemo<Value: Sendable>: Sendable {
    private struct Entries {
        var keys: [[UInt8]] = []
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

    /// `compute(bytes)`, remembered; the computation runs outside the lock.
    public func value(for bytes: [UInt8], _ compute: ([UInt8]) -> Value) -> Value {
        let known: Value? = entries.withLock { entries in
            entries.keys.firstIndex(of: bytes).map { entries.values[$0] }
        }
        if let known { return known }
        let value = compute(bytes)
        entries.withLock { entries in
            if entries.keys.count < capacity {
                entries.keys.append(bytes)
                entries.values.append(value)
            } else {
                entries.keys[entries.next] = bytes
                entries.values[entries.next] = value
                entries.next = (entries.next + 1) % capacity
            }
        }
        return value
    }
}
