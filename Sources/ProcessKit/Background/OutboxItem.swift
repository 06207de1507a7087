extension BackgroundMachine {
    /// A popup change in the outbox, and where it is with its save.
    struct OutboxItem {
        var entry: OutboxEntry
        var save: OutboxSave
    }
}
