import SiteSettings

/// How a native request ended for the background, read once where the answer enters its
/// process: the handler's reply, Safari's rejection of the request's promise, or a reply that
/// does not read as one (kept as it came, for the background to refuse).
public enum NativeOutcome: Equatable, Sendable {
    case replied(NativeReply)
    case rejected(NativeRejection)
    case unreadable(JSONValue)
    /// The handler completed with no message: the script receives `undefined`.
    case empty

    /// A reply as it came from a handler: typed when it reads as a `NativeReply`.
    public init(reading reply: JSONValue) {
        if let typed = try? NativeReply.decode(reply) {
            self = .replied(typed)
        } else {
            self = .unreadable(reply)
        }
    }
}

/// Why Safari rejected a native request's promise instead of handing on a reply.
public enum NativeRejection: String, Equatable, Sendable, CaseIterable {
    /// The native extension ended (exited, crashed, was killed) without answering
    /// (`requestInterruptionBlock`).
    case handlerEnded
    /// Too many requests were already in flight.
    case tooManyRequests
    /// The native extension cancelled the request (`requestCancellationBlock`).
    case canceled
}
