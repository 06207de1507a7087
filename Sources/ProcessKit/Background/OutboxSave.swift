extension BackgroundMachine {
    /// Where a popup change in the outbox is with the save of `storage.local` that makes it
    /// durable. Only a change whose save is confirmed is shown on top of the cache and sent.
    enum OutboxSave: Equatable {
        /// A save that carries it worked, or it was read from storage.
        case confirmed
        /// The save with this token carries it and has not finished: the change is neither shown
        /// nor sent until the save's result arrives, which answers the popup's message.
        case unconfirmed(token: Int)
        /// Its save failed, perhaps after it took effect. It is shown when the failure arrives,
        /// but waits for a save that works before it is sent (and before later rebuilds of what
        /// tabs see include it): a later incarnation that never read it could give its number to
        /// another change, and two patches with one stamp cannot be told apart.
        case saveFailed
    }
}
