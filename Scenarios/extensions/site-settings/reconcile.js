// The exchange with the native handler (BackgroundMachine+Native.swift): reconciliation points
// ask for the snapshot and resend the outbox; answers and timeouts correct the cache,
// acknowledge or refuse patches, and decide what is owed next. Methods of BackgroundMachine.

import { applyEdit, documentVersion, sameDocument, sameVersion } from './document.js';
import { editOf, readReply, snapshotRequest } from './native-messages.js';

/** How long the background waits for a native reply: Safari sets no limit of its own. */
const nativeTimeout = 5_000;
/** The handler's refusals for good: the change leaves the outbox. Others mean "not yet". */
const refusals = new Set(['invalidMessage', 'tooLarge', 'readOnly']);

const idle = (fullResyncAfterNextSnapshot) => ({ state: 'idle', fullResyncAfterNextSnapshot });

// MARK: - Reconciliation

/**
 * A reconciliation point: ask for the snapshot (with the known version unless a full one is
 * needed) and resend the outbox, oldest first. A request already out is not sent again, but
 * it is owed once: its answer may predate the change that made this point, or never come, so
 * when it ends it goes again. A request sent for the same input (numbered from
 * `firstNewRequest`) owes nothing: a wake that replays what waited reaches several points at once.
 */
export function reconcile(forceFull, firstNewRequest) {
  const directives = [];
  if (this.saveOwed) directives.push(...this.save());
  if (this.native.snapshot.state === 'idle') directives.push(...this.requestSnapshot(forceFull));
  const { snapshot, patches } = this.native;
  if (snapshot.state === 'requested' && snapshot.request < firstNewRequest) snapshot.snapshotOwed = true;
  for (const [request, patch] of patches) if (request < firstNewRequest) patch.owed = true;
  for (const entry of this.outbox.confirmed) directives.push(...this.sendPatch(entry));
  return directives;
}

export function newRequest() {
  return this.native.nextRequest++;
}

/** Sends a snapshot request; none may be out. */
export function requestSnapshot(full) {
  const { fullResyncAfterNextSnapshot } = this.native.snapshot;
  const request = this.newRequest();
  this.native.snapshot = { state: 'requested', request, snapshotOwed: false, fullResyncAfterAnswer: fullResyncAfterNextSnapshot };
  const known = full || this.cache === null ? null : this.snapshotVersion;
  return [
    { type: 'sendNative', request, message: snapshotRequest(known) },
    { type: 'setTimer', request, at: this.now + nativeTimeout },
  ];
}

/** The snapshot request ended: the one owed since a reconciliation point goes now, unless one is out. */
export function snapshotIfOwed(snapshotOwed) {
  return snapshotOwed && this.native.snapshot.state === 'idle' ? this.requestSnapshot(false) : [];
}

/** A patch request ended: owed since a reconciliation point and still waiting, its change goes again now, once. */
export function resendIfOwed(patch) {
  const item = this.outbox.item(patch.edit);
  return patch.owed && item?.save.state === 'confirmed' ? this.sendPatch(item.entry) : [];
}

/** Sends an outbox entry as a patch, unless a request carrying it is already out. */
export function sendPatch(entry) {
  if ([...this.native.patches.values()].some((patch) => patch.edit === entry.edit)) return [];
  const request = this.newRequest();
  this.native.patches.set(request, { edit: entry.edit, owed: false });
  return [
    { type: 'sendNative', request, message: entry.request },
    { type: 'setTimer', request, at: this.now + nativeTimeout },
  ];
}

// MARK: - Answers and timeouts

/** A native request ended ({reply} or {rejected}). The answer to a request whose timeout passed is dropped. */
export function nativeRequestAnswered(request, outcome, firstNewRequest) {
  const { snapshot, patches } = this.native;
  const reply = outcome.rejected === undefined ? readReply(outcome.reply) : null;
  if (snapshot.state === 'requested' && snapshot.request === request) {
    return [...this.snapshotAnswered(request, reply, snapshot.fullResyncAfterAnswer, firstNewRequest), ...this.snapshotIfOwed(snapshot.snapshotOwed)];
  }
  const patch = patches.get(request);
  if (patch === undefined) return [];
  patches.delete(request);
  return [...this.patchAnswered(request, patch.edit, reply, firstNewRequest), ...this.resendIfOwed(patch)];
}

/** A native request's timeout passed with no answer: it is given up on. */
export function nativeRequestTimedOut(request) {
  const { snapshot, patches } = this.native;
  if (snapshot.state === 'requested' && snapshot.request === request) {
    // A full resync owed after this answer follows the next request's instead.
    this.native.snapshot = idle(snapshot.fullResyncAfterAnswer);
    return [...this.nativeWentUnanswered(), ...this.snapshotIfOwed(snapshot.snapshotOwed)];
  }
  const patch = patches.get(request);
  if (patch === undefined) return [];
  patches.delete(request);
  return [...this.nativeWentUnanswered(), ...this.resendIfOwed(patch)];
}

/** The snapshot request was answered: a snapshot, "not modified", or nothing usable. A full resync owed by a refused patch follows. */
export function snapshotAnswered(request, reply, fullResyncAfterAnswer, firstNewRequest) {
  const directives = [{ type: 'cancelTimer', request }];
  this.native.snapshot = idle(false);
  if (reply?.type === 'snapshot') {
    this.heardFromNative();
    directives.push(...this.adoptSnapshot(reply.document));
  } else if (reply?.type === 'notModified') {
    this.heardFromNative();
    directives.push(...this.pushChangedDecisions());
  } else {
    directives.push(...this.nativeWentUnanswered());
  }
  if (fullResyncAfterAnswer) directives.push(...this.reconcile(true, firstNewRequest));
  return directives;
}

/** Once the first snapshot was given up on, tabs go on being answered whatever comes later. */
export function heardFromNative() {
  if (this.firstSnapshot === 'awaited') this.firstSnapshot = 'heard';
}

/** No usable answer: the next event is a reconciliation point, and with nothing cached the waiting tabs get the built-in defaults. */
export function nativeWentUnanswered() {
  this.native.recoveryDue = true;
  if (this.cache !== null || this.firstSnapshot === 'givenUp') return [];
  this.firstSnapshot = 'givenUp';
  return this.answerWaitingTabs();
}

/** A patch request was answered: applied, refused for good, or not applied yet. */
export function patchAnswered(request, edit, reply, firstNewRequest) {
  const directives = [{ type: 'cancelTimer', request }];
  if (reply?.type === 'applied') {
    directives.push(...this.acknowledged(edit, reply.version, reply.changed, firstNewRequest));
  } else if (reply?.type === 'error' && refusals.has(reply.code)) {
    // It leaves the outbox and a full resync shows the document again (after the snapshot
    // already on its way, if one is).
    const entry = this.outbox.item(edit)?.entry;
    if (entry && entry.message !== 0) directives.push({ type: 'popupAnswer', message: entry.message, saved: false, scope: entry.request.scope });
    this.outbox.remove(edit);
    directives.push(...this.save());
    if (this.native.snapshot.state === 'idle') directives.push(...this.reconcile(true, firstNewRequest));
    else this.native.snapshot.fullResyncAfterAnswer = true;
    // What tabs see stops showing the refused change at once; the resync corrects the cache.
    this.rebuildResolver();
    directives.push(...this.pushChangedDecisions());
  } else {
    // The patch stays in the outbox and the next event resends it, as after a timeout.
    this.native.recoveryDue = true;
  }
  return directives;
}

/**
 * The handler applied a patch: it leaves the outbox and is folded into the cache, so tabs keep
 * showing it. When the patch changed the cache exactly as it changed the document and the
 * cache was the handler's version just before, the cache now is the new version (the same
 * merge of the same edit); otherwise another write came between, and a snapshot is asked for.
 */
export function acknowledged(edit, version, changed, firstNewRequest) {
  const directives = [];
  let converged = false;
  const item = this.outbox.item(edit);
  if (item && this.cache !== null) {
    let changedHere = false;
    try {
      ({ document: this.cache, changed: changedHere } = applyEdit(this.cache, editOf(item.entry.request)));
    } catch {
      // The cache refuses the edit as it is: it stays as it was.
    }
    const before = version ? { documentId: version.documentId, revision: version.revision - 1 } : null;
    if (version && sameVersion(this.snapshotVersion, before) && this.cache.documentId === version.documentId && changedHere && changed) {
      this.snapshotVersion = version;
      converged = true;
    }
  }
  this.outbox.remove(edit);
  this.rebuildResolver();
  directives.push(...this.save());
  if (!converged && this.native.snapshot.state === 'idle') directives.push(...this.reconcile(false, firstNewRequest));
  directives.push(...this.pushChangedDecisions());
  return directives;
}

/** A valid snapshot always wins over the cache; changes still waiting stay on top of it. */
export function adoptSnapshot(snapshot) {
  const directives = [];
  const version = documentVersion(snapshot);
  if (!sameDocument(snapshot, this.cache) || !sameVersion(version, this.snapshotVersion)) {
    this.cache = snapshot;
    this.snapshotVersion = version;
    this.rebuildResolver();
    directives.push(...this.save());
  }
  directives.push(...this.pushChangedDecisions());
  return directives;
}
