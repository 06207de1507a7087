import SiteSettings

/// The sequence every writer of the shared document follows, as a small machine its owner
/// embeds: take the lock, read the document as it is now, recover it if it is damaged (set it
/// aside, use the last good copy) or create it if there is none (migrating the first version's
/// boolean when it is there), apply the change, write atomically if anything changed, release
/// the lock. It never reads a clock or a random source: time and seed come from its owner.
struct DocumentTransaction {
    /// What to do to the document once it is read.
    enum Change: Equatable {
        case apply(Edit)
        /// Seed 000's toggle, which depends on the document as read.
        case toggleLegacy(Stamp)
        /// The popup-full-snapshot flaw: store this document as it is (with the next revision).
        case replace(SettingsDocument)
        /// Only make sure a valid document is on disk (a launch that finds none, or a damaged one).
        case none
    }

    /// How the transaction ended. The lock is released in every case.
    enum Result: Equatable {
        /// The document as it is on disk now, and whether this transaction changed it.
        case done(SettingsDocument, changed: Bool)
        case refused(NativeErrorCode, String)
    }

    enum Progress: Equatable {
        case next(ContainerOperation)
        case finished(Result)
        /// An outcome this transaction did not ask for (a late or duplicate input): nothing to do.
        case ignored
    }

    private enum Step: Equatable {
        /// `missing`: there was no document at all (a writer died after setting a damaged one
        /// aside), so without a last good copy the first version's boolean is next.
        case locking, reading, settingAside, readingPrevious(missing: Bool), readingLegacy
        case writing(SettingsDocument, changed: Bool)
        case unlocking(Result)
        case finished
    }

    private let change: Change
    private let now: EpochMillis
    private let seed: UInt64
    private let suffixes: PublicSuffixList
    /// Whether a missing document is created (edits) or left missing (a launch with nothing to migrate).
    private let createsDocument: Bool
    private let flaws: Set<Flaw>
    /// The app-saves-stale-snapshot flaw: the document the app read earlier, used in place of
    /// the one on disk.
    private let staleBase: SettingsDocument?
    private var step = Step.locking

    init(_ change: Change, now: EpochMillis, seed: UInt64, suffixes: PublicSuffixList, flaws: Set<Flaw> = [],
         staleBase: SettingsDocument? = nil, createsDocument: Bool = true) {
        self.flaws = flaws
        self.staleBase = flaws.contains(.appSavesStaleSnapshot) ? staleBase : nil
        self.change = change
        self.now = now
        self.seed = seed
        self.suffixes = suffixes
        self.createsDocument = createsDocument
    }

    /// The first operation: take the lock (the read-modify-write-without-lock flaw reads at once).
    var start: ContainerOperation { flaws.contains(.readModifyWriteWithoutLock) ? .readDocument : .lock }

    mutating func handle(_ outcome: ContainerOutcome) -> Progress {
        if step == .locking, flaws.contains(.readModifyWriteWithoutLock) { step = .reading }
        switch (step, outcome) {
        case (.locking, .locked):
            step = .reading
            return .next(.readDocument)
        case (.locking, .failed(_, let errno)):
            step = .finished
            return .finished(.refused(.storageFailure, "taking the lock failed (errno \(errno))"))

        case (.reading, .documentRead(let bytes)):
            guard let bytes else {
                // No document: the last good copy, if a crash took the document away, else the
                // first version's boolean.
                step = .readingPrevious(missing: true)
                return .next(.readPreviousDocument)
            }
            do {
                let document = try DocumentCodec.decode(bytes, suffixes: suffixes).document
                if document.isReadOnly {
                    return unlock(.refused(.readOnly, EditError.readOnly(schemaVersion: document.schemaVersion).description))
                }
                if let staleBase, staleBase.documentId != nil { return apply(to: staleBase, mustWrite: false) }
                return apply(to: document, mustWrite: false)
            } catch where error.isNewerSchema {
                return unlock(.refused(.readOnly, error.description))
            } catch {
                step = .settingAside
                return .next(.setAsideDocument)
            }
        case (.settingAside, .documentSetAside):
            step = .readingPrevious(missing: false)
            return .next(.readPreviousDocument)
        case (.readingPrevious(let missing), .previousDocumentRead(let bytes)):
            var recovered: SettingsDocument?
            if let bytes, let decoded = try? DocumentCodec.decode(bytes, suffixes: suffixes), !decoded.document.isReadOnly {
                recovered = decoded.document
            }
            if missing && recovered == nil {
                step = .readingLegacy
                return .next(.readLegacyPreferences)
            }
            // A recovered document is a new document: a new id, so no one's "not modified" can
            // mistake it for the one that was lost.
            var document = recovered ?? fresh()
            document.documentId = DocumentID.created(seed: seed, at: now, recovered: true, revision: document.revision)
            return apply(to: document, mustWrite: true)
        case (.readingLegacy, .legacyPreferencesRead(let enabled)):
            if let enabled {
                return apply(to: Legacy.migrate(colorInvertEnabled: enabled, at: now, documentId: newDocumentId()), mustWrite: true)
            }
            if !createsDocument && change == .none { return unlock(.done(SettingsDocument(), changed: false)) }
            return apply(to: fresh(), mustWrite: false)
        case (.writing(let document, let changed), .documentWritten):
            return unlock(.done(document, changed: changed))
        case (.reading, .failed(let kind, let errno)), (.settingAside, .failed(let kind, let errno)),
             (.readingPrevious, .failed(let kind, let errno)), (.readingLegacy, .failed(let kind, let errno)),
             (.writing, .failed(let kind, let errno)):
            return unlock(.refused(.storageFailure, "\(kind.rawValue) failed (errno \(errno))"))
        case (.unlocking(let result), .unlocked), (.unlocking(let result), .failed(.unlock, _)):
            step = .finished
            return .finished(result)
        default:
            return .ignored
        }
    }

    /// Applies the change and writes when anything changed. `mustWrite` is for a document that
    /// is not on disk as it is here (recovered, migrated, or lacking an id): it is written even
    /// when the change does nothing, so the container holds a valid document again.
    private mutating func apply(to base: SettingsDocument, mustWrite: Bool) -> Progress {
        var document = base
        let mustWrite = mustWrite || document.documentId == nil
        if document.documentId == nil { document.documentId = newDocumentId() }
        let edit: Edit? = switch change {
        case .apply(let edit): flawed(edit, on: document)
        case .toggleLegacy(let stamp): Legacy.toggle(document, stamp: stamp)
        case .none, .replace: nil
        }
        var encoded: [UInt8]?
        if case .replace(var replacement) = change {
            replacement.documentId = document.documentId
            replacement.revision = document.revision + 1
            document = replacement
            encoded = DocumentCodec.encode(document)
        } else if case .apply(.deleteSite(let key, _)) = change, flaws.contains(.deletionByOmission) {
            guard document.sites[key] != nil else { return unlock(.done(document, changed: false)) }
            document.sites[key] = nil
            document.tombstones[key] = nil
            document.revision += 1
            encoded = DocumentCodec.encode(document)
        } else if let edit, flaws.contains(.oneTimestampForDocument), let latest = Self.latestStamp(document), edit.stamp < latest {
            // One timestamp for the whole document: anything older than its latest change is stale.
            return unlock(.done(document, changed: false))
        } else if let edit {
            do {
                encoded = try document.applyEncoded(edit)
            } catch {
                let code: NativeErrorCode = if case .tooLarge = error { .tooLarge } else { .invalidMessage }
                return unlock(.refused(code, error.description))
            }
        }
        let changed = encoded != nil
        guard changed || mustWrite else { return unlock(.done(document, changed: false)) }
        if !changed { document.revision += 1 }
        step = .writing(document, changed: changed)
        return .next(.writeDocument(encoded ?? DocumentCodec.encode(document)))
    }

    private mutating func unlock(_ result: Result) -> Progress {
        var skipsUnlock = flaws.contains(.readModifyWriteWithoutLock)
        if flaws.contains(.lockKeptAfterAFailure), case .refused(.storageFailure, _) = result { skipsUnlock = true }
        if skipsUnlock {
            step = .finished
            return .finished(result)
        }
        step = .unlocking(result)
        return .next(.unlock)
    }

    /// The edit as the flaws switched on would make it (unchanged with none).
    private func flawed(_ edit: Edit, on document: SettingsDocument) -> Edit {
        guard case .changeSite(let key, var set, var reset, let stamp) = edit else { return edit }
        let defaults = document.defaults
        if flaws.contains(.resetStoresDefault) {
            // The reset field gets today's default instead of going away.
            for field in reset {
                switch field {
                case .mode: set.mode = defaults.mode
                case .theme: set.theme = defaults.theme
                case .nativeDarkPolicy: set.nativeDarkPolicy = defaults.nativeDarkPolicy
                }
            }
            reset = []
        }
        if flaws.contains(.siteRecordsCopyDefaults), document.sites[key] == nil {
            // A new record starts as a copy of the defaults.
            if set.mode == nil && !reset.contains(.mode) { set.mode = defaults.mode }
            if set.theme == nil && !reset.contains(.theme) { set.theme = defaults.theme }
            if set.nativeDarkPolicy == nil && !reset.contains(.nativeDarkPolicy) { set.nativeDarkPolicy = defaults.nativeDarkPolicy }
        }
        return .changeSite(key, set: set, reset: reset, stamp: stamp)
    }

    /// The newest stamp anywhere in the document.
    private static func latestStamp(_ document: SettingsDocument) -> Stamp? {
        let stamps = Array(document.defaults.changedAt.values) + document.sites.values.flatMap(\.changedAt.values)
            + document.tombstones.values.flatMap(\.values)
        return stamps.max()
    }

    /// The id of a document this transaction creates, derived from the run's seed and the time.
    private func newDocumentId() -> String {
        DocumentID.created(seed: seed, at: now)
    }

    private func fresh() -> SettingsDocument {
        SettingsDocument(documentId: newDocumentId())
    }
}
