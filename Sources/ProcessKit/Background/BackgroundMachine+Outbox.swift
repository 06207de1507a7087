import SiteSettings

/// Popup changes and `storage.local`: a change goes into the outbox and is saved with the cache
/// in one write, and is shown and sent once that save is confirmed.
extension BackgroundMachine {
    /// A popup change's stamp: when the user acted (never later than now), from the extension,
    /// numbered as the next outbox edit.
    func popupStamp(_ at: EpochMillis?) -> Stamp {
        Stamp(at: min(at ?? now, now), origin: .extension, edit: outbox.nextEdit)
    }

    /// Puts a popup change in the outbox and saves it with the cache in one write. It is
    /// acknowledged (shown on top of the cache, and sent) when that write is confirmed.
    mutating func recordEdit(_ request: NativeRequest, message: Int) -> [Directive] {
        var directives: [Directive] = []
        let entry = OutboxEntry(edit: outbox.nextEdit, request: request, message: message)
        if canRecord(entry) {
            if let unsaved = flawedUnsavedEdit(entry) {
                directives += unsaved
            } else {
                let token = newToken()
                outbox.add(entry, save: .unconfirmed(token: token))
                directives.append(.saveLocalStorage(stored, token: token))
            }
        } else {
            directives.append(.popupAnswer(message: message, saved: false, scope: nil))
        }
        return directives
    }

    /// Whether a popup change can go into the outbox: storage may be written, and the change is
    /// one the cache (or an empty document) accepts.
    private func canRecord(_ entry: OutboxEntry) -> Bool {
        guard mayWriteStorage, let edit = entry.modelEdit else { return false }
        var check = cache ?? SettingsDocument()
        return (try? check.apply(edit)) != nil
    }

    /// The result of the save that carried a popup change: it is answered (saved, or unknown
    /// when the save failed) and shown, and sent if the save worked (else once one works).
    /// Other saves need no answer.
    mutating func saveFinished(token: Int, saved: Bool?) -> [Directive] {
        var directives: [Directive] = []
        if let entry = outbox.entry(savedWith: token) {
            // Shown either way: storage may hold it even when the save failed.
            outbox.setSave(.confirmed, of: entry.edit)
            rebuildResolver()
            directives.append(.popupAnswer(message: entry.message, saved: saved, scope: entry.request.scope))
            directives += pushChangedDecisions()
            if saved == nil {
                outbox.setSave(.saveFailed, of: entry.edit)
            } else {
                directives += sendPatch(entry)
            }
        }
        return directives
    }

    // MARK: - Storage

    /// Takes what `storage.local` held at a load.
    mutating func adopt(_ stored: LocalStorage) {
        cache = stored.cache
        snapshotVersion = stored.snapshotVersion
        outbox = Outbox(stored: stored)
    }

    /// Saves `storage.local`, unless it could not be read.
    mutating func save() -> [Directive] {
        var directives: [Directive] = []
        if mayWriteStorage { directives.append(.saveLocalStorage(stored, token: newToken())) }
        return directives
    }

    /// Storage may be written unless it could not be read.
    private var mayWriteStorage: Bool {
        switch storage {
        case .loading, .loaded: true
        case .unreadable: false
        }
    }

    /// What `storage.local` keeps: the cache, its version and the outbox.
    var local: LocalStorage {
        LocalStorage(cache: cache, snapshotVersion: snapshotVersion, outbox: outbox.entries, nextEdit: outbox.nextEdit)
    }

    /// What goes to `storage.local`.
    private var stored: LocalStorage { flawedStored(local) }

    private mutating func newToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }
}
