extension BackgroundMachine {
    /// Where the background is with asking the handler for its snapshot: at most one snapshot
    /// request is out at a time.
    enum SnapshotPhase: Equatable {
        /// No snapshot request is out. `fullResyncAfterNextSnapshot`: a patch was refused for
        /// good while a snapshot request was out, and that request timed out, so the full resync
        /// follows the answer to the next one.
        case idle(fullResyncAfterNextSnapshot: Bool)
        /// Snapshot request `request` is out.
        /// `snapshotOwed`: a reconciliation point came while it was out; its answer may carry a
        /// document read before the point, so a new request goes when it ends.
        /// `fullResyncAfterAnswer`: a patch was refused for good while it was out, so a full
        /// resync follows its answer (if it times out, the next request carries this on).
        case requested(request: Int, snapshotOwed: Bool, fullResyncAfterAnswer: Bool)
    }
}
