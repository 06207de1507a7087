extension BackgroundMachine {
    /// The popup changes the handler has not acknowledged, oldest first, each with where it is
    /// with its save. `storage.local` keeps the changes and the next edit number (see
    /// `LocalStorage`), not where their saves are: what was read from it was saved.
    struct Outbox {
        var items: [OutboxItem] = []
        /// The number the next popup change gets (its stamp's edit number and outbox key).
        var nextEdit: UInt64 = 1

        init() {}

        /// The outbox `storage.local` held.
        init(stored: LocalStorage) {
            items = stored.outbox.map { OutboxItem(entry: $0, save: .confirmed) }
            nextEdit = stored.nextEdit
        }

        /// What `storage.local` keeps: every change, whatever its save.
        var entries: [OutboxEntry] { items.map(\.entry) }

        /// The changes whose save is confirmed, oldest first: they are shown on top of the cache
        /// and sent.
        var confirmed: [OutboxEntry] { items.filter { $0.save == .confirmed }.map(\.entry) }

        /// The change with this edit number, if it is still in the outbox.
        func item(_ edit: UInt64) -> OutboxItem? {
            items.first { $0.entry.edit == edit }
        }

        /// The change the save with this token carries, while it waits for that save.
        func entry(savedWith token: Int) -> OutboxEntry? {
            items.first { $0.save == .unconfirmed(token: token) }?.entry
        }

        /// Adds a change numbered `nextEdit`. A confirmed change it replaces field for field
        /// leaves: the newer stamp wins every field it names anyway. So the outbox, written whole
        /// at every change, stays as small as the set of records and fields waiting, however many
        /// changes the user makes before the handler answers.
        mutating func add(_ entry: OutboxEntry, save: OutboxSave) {
            items.removeAll { $0.save == .confirmed && entry.replaces($0.entry) }
            items.append(OutboxItem(entry: entry, save: save))
            nextEdit += 1
        }

        mutating func remove(_ edit: UInt64) {
            items.removeAll { $0.entry.edit == edit }
        }

        mutating func setSave(_ save: OutboxSave, of edit: UInt64) {
            for index in items.indices where items[index].entry.edit == edit { items[index].save = save }
        }

        /// A save worked, so every change whose save failed is durable now: each is confirmed,
        /// and returned oldest first.
        mutating func confirmFailedSaves() -> [OutboxEntry] {
            var confirmed: [OutboxEntry] = []
            for index in items.indices where items[index].save == .saveFailed {
                items[index].save = .confirmed
                confirmed.append(items[index].entry)
            }
            return confirmed
        }
    }
}
