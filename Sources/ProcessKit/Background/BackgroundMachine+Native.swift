import SiteSettings

/// The exchange with the native handler: reconciliation points ask for the snapshot and resend the
/// outbox; answers and timeouts correct the cache, acknowledge or refuse patches, and decide what
/// is owed next.
extension BackgroundMachine {
    // MARK: - Reconciliation

    /// A reconciliation point: ask for the snapshot (with the known version unless a full one
    /// is needed), and resend the outbox oldest first. A request already out is not sent again
    /// (its answer may still come within its timeout), but it is owed once: its answer may
    /// carry a document read before the change that made this point, or never come (its
    /// handler hung when it was sent), so when it ends the snapshot is asked for again and a
    /// patch that ended unapplied is sent again, each within a timeout of the point. A request
    /// sent while handling the same input (numbered from `firstNewRequest` on) owes nothing: a
    /// wake that replays what waited for storage reaches several points in one input.
    mutating func reconcile(forceFull: Bool, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        if saveOwed { directives += save() }
        if case .idle = native.snapshot { directives += requestSnapshot(full: forceFull) }
        native.oweRequests(sentBefore: firstNewRequest)
        for entry in outbox.confirmed { directives += sendPatch(entry) }
        return directives
    }

    /// Sends a snapshot request; none may be out.
    private mutating func requestSnapshot(full: Bool) -> [Directive] {
        guard case .idle(let fullResyncAfterNextSnapshot) = native.snapshot else {
            preconditionFailure("Invalid state \(native.snapshot): a snapshot request is already out")
        }
        let id = native.newRequest()
        native.snapshot = .requested(request: id, snapshotOwed: false, fullResyncAfterAnswer: fullResyncAfterNextSnapshot)
        let known = full || cache == nil ? nil : snapshotVersion
        return [.sendNative(request: id, .getSnapshot(known: known)), .setTimer(.nativeTimeout(id), at: now + Self.nativeTimeout)]
    }

    /// The snapshot request ended: the one owed since a reconciliation point goes now, unless
    /// a request sent since then is already out.
    private mutating func snapshotIfOwed(_ snapshotOwed: Bool) -> [Directive] {
        var directives: [Directive] = []
        if snapshotOwed, case .idle = native.snapshot { directives += requestSnapshot(full: false) }
        return directives
    }

    /// A patch request ended: if it was out at a reconciliation point and its edit is still in
    /// the outbox (no answer, or not applied), the edit goes again now, once; a later failure
    /// waits for the next event.
    private mutating func resendIfOwed(_ patch: PatchRequest) -> [Directive] {
        var directives: [Directive] = []
        if patch.owed, let item = outbox.item(patch.edit), item.save == .confirmed {
            directives += sendPatch(item.entry)
        }
        return directives
    }

    /// Sends an outbox entry as a patch, unless a request carrying it is already out.
    mutating func sendPatch(_ entry: OutboxEntry) -> [Directive] {
        var directives: [Directive] = []
        if !native.isSending(entry.edit) {
            let id = native.newRequest()
            native.patches[id] = PatchRequest(edit: entry.edit)
            directives.append(.sendNative(request: id, flawedRequest(entry.request)))
            directives.append(.setTimer(.nativeTimeout(id), at: now + Self.nativeTimeout))
        }
        return directives
    }

    // MARK: - Answers and timeouts

    /// A native request was answered: the snapshot request or a patch. The answer to a request
    /// whose timeout passed is dropped.
    mutating func nativeRequestAnswered(_ request: Int, _ reply: NativeOutcome, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        if case .requested(let out, let snapshotOwed, let fullResyncAfterAnswer) = native.snapshot, out == request {
            directives += snapshotAnswered(request, reply, fullResyncAfterAnswer: fullResyncAfterAnswer, firstNewRequest: firstNewRequest)
            directives += snapshotIfOwed(snapshotOwed)
        } else if let patch = native.patches.removeValue(forKey: request) {
            directives += patchAnswered(request, edit: patch.edit, reply, firstNewRequest: firstNewRequest)
            directives += resendIfOwed(patch)
        }
        return directives
    }

    /// A native request's timeout passed with no answer: the request is given up on.
    mutating func nativeRequestTimedOut(_ request: Int) -> [Directive] {
        var directives: [Directive] = []
        if case .requested(let out, let snapshotOwed, let fullResyncAfterAnswer) = native.snapshot, out == request {
            // A full resync owed after this answer follows the next request's instead.
            native.snapshot = .idle(fullResyncAfterNextSnapshot: fullResyncAfterAnswer)
            directives += nativeWentUnanswered()
            directives += snapshotIfOwed(snapshotOwed)
        } else if let patch = native.patches.removeValue(forKey: request) {
            directives += nativeWentUnanswered()
            directives += resendIfOwed(patch)
        }
        return directives
    }

    /// What an answer to a snapshot request says.
    private enum SnapshotAnswer {
        /// The handler's document (a newer schema's is read-only, not invalid: it is used as is).
        case snapshot(SettingsDocument)
        /// The cache is the document as it is.
        case notModified
        /// The handler failed, Safari rejected the request, or the answer is nonsense.
        case unusable

        init(_ outcome: NativeOutcome) {
            switch outcome {
            case .replied(.snapshot(let document)): self = .snapshot(document)
            case .replied(.notModified): self = .notModified
            case .replied, .rejected, .unreadable, .empty: self = .unusable
            }
        }
    }

    /// The snapshot request was answered. A full resync owed by a refused patch follows.
    private mutating func snapshotAnswered(_ request: Int, _ reply: NativeOutcome, fullResyncAfterAnswer: Bool,
                                           firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = [.cancelTimer(.nativeTimeout(request))]
        native.snapshot = .idle(fullResyncAfterNextSnapshot: false)
        switch SnapshotAnswer(reply) {
        case .snapshot(let snapshot):
            heardFromNative()
            directives += adopt(snapshot)
        case .notModified:
            heardFromNative()
            directives += pushChangedDecisions()
        case .unusable:
            directives += nativeWentUnanswered()
        }
        if fullResyncAfterAnswer {
            directives += reconcile(forceFull: true, firstNewRequest: firstNewRequest)
        }
        return directives
    }

    /// A snapshot request had a usable answer. Once the first snapshot was given up on, tabs
    /// go on being answered whatever comes later.
    private mutating func heardFromNative() {
        if firstSnapshot == .awaited { firstSnapshot = .heard }
    }

    /// A request got no usable answer: the next event is a reconciliation point, and with
    /// nothing cached the tabs waiting for a first answer get the built-in defaults.
    private mutating func nativeWentUnanswered() -> [Directive] {
        var directives: [Directive] = []
        native.recoveryDue = true
        if cache == nil && firstSnapshot != .givenUp {
            firstSnapshot = .givenUp
            directives += answerWaitingTabs()
        }
        return directives
    }

    /// What an answer to a patch says.
    private enum PatchAnswer {
        /// Applied (or found already applied), at this version when the handler has one.
        case applied(DocumentVersion?, changed: Bool)
        /// Refused for good (invalid, too large, or a read-only document).
        case refused
        /// Not applied, for now: the handler died or failed to store it, Safari rejected the
        /// request, or the answer does not read.
        case notApplied

        init(_ outcome: NativeOutcome, countsEnabledAsApplied: Bool) {
            let refusals: Set<NativeErrorCode> = [.invalidMessage, .tooLarge, .readOnly]
            switch outcome {
            case .replied(.applied(let version, let changed)): self = .applied(version, changed: changed)
            case .replied(.enabled) where countsEnabledAsApplied: self = .applied(nil, changed: false)
            case .replied(.error(let code, _)) where refusals.contains(code): self = .refused
            case .replied, .rejected, .unreadable, .empty: self = .notApplied
            }
        }
    }

    /// A patch request was answered.
    private mutating func patchAnswered(_ request: Int, edit: UInt64, _ reply: NativeOutcome, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = [.cancelTimer(.nativeTimeout(request))]
        switch PatchAnswer(reply, countsEnabledAsApplied: flawedCountsEnabledAsApplied) {
        case .applied(let version, let changed):
            directives += acknowledged(edit, at: version, changed: changed, firstNewRequest: firstNewRequest)
        case .refused:
            // It leaves the outbox and a full resync shows the document again (after the
            // snapshot already on its way, if one is).
            if let entry = outbox.item(edit)?.entry, entry.message != 0 {
                directives.append(.popupAnswer(message: entry.message, saved: false, scope: entry.request.scope))
            }
            outbox.remove(edit)
            directives += save()
            switch native.snapshot {
            case .idle:
                directives += reconcile(forceFull: true, firstNewRequest: firstNewRequest)
            case .requested(let request, let snapshotOwed, _):
                native.snapshot = .requested(request: request, snapshotOwed: snapshotOwed, fullResyncAfterAnswer: true)
            }
            // Tabs and the popup stop showing the refused change at once: what they see is the
            // cache with the changes still waiting, and the resync corrects the cache.
            rebuildResolver()
            directives += pushChangedDecisions()
        case .notApplied:
            // The patch stays in the outbox and the next event resends it, as after a timeout.
            native.recoveryDue = true
        }
        return directives
    }

    /// The handler applied a patch: it leaves the outbox and is folded into the cache, so tabs
    /// keep showing it. When the patch changed the cache exactly as it changed the document (both
    /// or neither) and both end at the same revision, the cache now is that revision (the same
    /// merge of the same edit); otherwise another write came between, the cache keeps its old
    /// version, and a snapshot is asked for.
    private mutating func acknowledged(_ edit: UInt64, at version: DocumentVersion?, changed: Bool, firstNewRequest: Int) -> [Directive] {
        var directives: [Directive] = []
        var converged = false
        if let change = outbox.item(edit)?.entry.modelEdit, var updated = cache {
            let changedHere = (try? updated.apply(change)) ?? false
            cache = updated
            // The cache is the document only if it was the handler's version just before this
            // patch and the patch changed both: a count of local changes that happens to reach
            // the document's revision proves nothing.
            if let version, snapshotVersion == DocumentVersion(documentId: version.documentId, revision: version.revision - 1),
               updated.documentId == version.documentId, changedHere, changed {
                snapshotVersion = version
                converged = true
            }
        }
        outbox.remove(edit)
        rebuildResolver()
        directives += save()
        if !converged, case .idle = native.snapshot { directives += reconcile(forceFull: false, firstNewRequest: firstNewRequest) }
        directives += pushChangedDecisions()
        return directives
    }

    /// A valid snapshot always wins over the cache; patches still waiting go back on top (the
    /// stored cache is the snapshot; what tabs see is the snapshot with the acknowledged patches).
    private mutating func adopt(_ snapshot: SettingsDocument) -> [Directive] {
        var directives: [Directive] = []
        let differs = snapshot != cache || snapshot.version != snapshotVersion
        if differs && !flawedKeepsCache {
            flawedDropWaitingPatches()
            cache = snapshot
            snapshotVersion = snapshot.version
            rebuildResolver()
            directives += save()
        }
        directives += pushChangedDecisions()
        return directives
    }
}
