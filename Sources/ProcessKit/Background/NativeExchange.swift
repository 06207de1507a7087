extension BackgroundMachine {
    /// The background's requests to the native handler in this incarnation.
    ///
    /// A struct of independent facts rather than one enum: patches go out whatever the snapshot
    /// request is doing, a patch can fail while a snapshot request is out, and a recovery can be
    /// due with nothing out. Only the snapshot request goes through phases, one after another,
    /// so it alone is an enum (`SnapshotPhase`).
    struct NativeExchange {
        /// Where the snapshot request is.
        var snapshot = SnapshotPhase.idle(fullResyncAfterNextSnapshot: false)
        /// The patch requests that are out, by request number.
        var patches: [Int: PatchRequest] = [:]
        /// A native request failed or timed out: the next event other than a native reply or a
        /// timer is a reconciliation point ("recovery after idle").
        var recoveryDue = false
        /// The number the next request gets: requests are numbered in the order they are sent.
        var nextRequest = 1

        /// Numbers a request about to be sent.
        mutating func newRequest() -> Int {
            defer { nextRequest += 1 }
            return nextRequest
        }

        /// Whether a patch request carrying this outbox edit is out.
        func isSending(_ edit: UInt64) -> Bool {
            patches.values.contains { $0.edit == edit }
        }

        /// A reconciliation point came: each request out that was sent before it (numbered below
        /// `firstNewRequest`) is owed again when it ends, as its answer may predate the point.
        mutating func oweRequests(sentBefore firstNewRequest: Int) {
            if case .requested(let request, _, let fullResyncAfterAnswer) = snapshot, request < firstNewRequest {
                snapshot = .requested(request: request, snapshotOwed: true, fullResyncAfterAnswer: fullResyncAfterAnswer)
            }
            for request in patches.keys where request < firstNewRequest { patches[request]?.owed = true }
        }
    }
}
