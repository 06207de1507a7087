import SiteSettings

/// How the native handler behaves, as a fault the harness injects: it delays or withholds the
/// handler's real reply, kills the handler, or replaces the reply.
package enum HandlerBehaviour: Equatable, Sendable {
    case healthy
    /// Every reply arrives this long (virtual time) after the request.
    case slow(EpochMillis)
    /// No reply ever arrives (Safari puts no timeout on a native request).
    case hung
    /// Every handler dies: at its first yield point, before it reads or writes anything, or
    /// once it has done its work and before its reply leaves. Safari rejects the request.
    case crashing(afterWrite: Bool)
    /// Every reply to the extension is replaced by a snapshot the background must refuse, of
    /// one shape after another (`GarbageReplies`).
    case garbage
}

/// What a garbage-answering handler sends instead of its replies, in turn; each is refused by
/// one rule of the document's reading.
struct GarbageReplies {
    static let shapes: [JSONValue] = [
        // The document is not an object.
        .object(["type": .string("snapshot"), "document": .string("settings")]),
        // Defaults of the wrong type.
        .object(["type": .string("snapshot"), "document": .object(["revision": .integer(3), "defaults": .array([])])]),
        // No document at all.
        .object(["type": .string("snapshot")]),
        // A revision that cannot be one.
        .object(["type": .string("snapshot"), "document": .object(["revision": .integer(-3)])]),
    ]
    private var sent = 0

    mutating func next() -> JSONValue {
        defer { sent += 1 }
        return Self.shapes[sent % Self.shapes.count]
    }
}
