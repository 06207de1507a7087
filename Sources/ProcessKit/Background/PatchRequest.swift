extension BackgroundMachine {
    /// A patch request that is out.
    struct PatchRequest {
        /// The outbox edit it carries.
        var edit: UInt64
        /// A reconciliation point came while it was out: if it ends unapplied (no answer, a
        /// failed store), its edit is sent again at once rather than at the next event.
        var owed = false
    }
}
