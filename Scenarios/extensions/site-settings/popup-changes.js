// Popup changes and storage.local (BackgroundMachine+Outbox.swift): a change goes into the
// outbox and is saved with the cache in one write; it is shown and sent once that save is
// confirmed. Methods of BackgroundMachine.

import { applyEdit, emptyDocument } from './document.js';
import { changeRequest, editOf } from './native-messages.js';
import { Outbox, confirmed, saveFailed, unconfirmed } from './outbox.js';
import { stamp } from './values.js';

/** A popup change's stamp: when the user acted (never later than now), from the extension, numbered as the next outbox edit. */
export function popupStamp(at) {
  return stamp(Math.min(at ?? this.now, this.now), 'extension', this.outbox.nextEdit);
}

/** Puts a popup change in the outbox and saves it with the cache in one write; it counts once that write is confirmed. */
export function recordEdit(change, message) {
  const entry = { edit: this.outbox.nextEdit, request: changeRequest(change), message };
  if (!this.canRecord(entry)) return [{ type: 'popupAnswer', message, saved: false, scope: null }];
  const token = this.newToken();
  this.outbox.add(entry, unconfirmed(token));
  return [{ type: 'saveLocal', local: this.storedLocal(), token }];
}

/** Whether a change can go into the outbox: storage may be written, and the cache (or an empty document) accepts it. */
export function canRecord(entry) {
  if (!this.mayWriteStorage()) return false;
  try {
    applyEdit(this.cache ?? emptyDocument(), editOf(entry.request));
    return true;
  } catch {
    return false;
  }
}

/**
 * The save that carried a popup change finished (`saved` true, or null when it failed and may
 * or may not have reached the disk): the change is answered and shown either way, and sent if
 * the save worked (else once one works). Other saves need no answer.
 */
export function saveFinished(token, saved) {
  const entry = this.outbox.entrySavedWith(token);
  if (entry === undefined) return [];
  this.outbox.setSave(confirmed, entry.edit);
  this.rebuildResolver();
  const directives = [{ type: 'popupAnswer', message: entry.message, saved, scope: entry.request.scope }];
  directives.push(...this.pushChangedDecisions());
  if (saved === null) this.outbox.setSave(saveFailed, entry.edit);
  else directives.push(...this.sendPatch(entry));
  return directives;
}

// MARK: - Storage

/** Takes what storage.local held at a load. */
export function adoptLocal(stored) {
  this.cache = stored.cache;
  this.snapshotVersion = stored.snapshotVersion;
  this.outbox = Outbox.stored(stored.outbox, stored.nextEdit);
}

/** Saves storage.local, unless it could not be read. */
export function save() {
  return this.mayWriteStorage() ? [{ type: 'saveLocal', local: this.storedLocal(), token: this.newToken() }] : [];
}

/** Storage may be written unless it could not be read (saving would overwrite what it holds). */
export function mayWriteStorage() {
  return this.storage.state !== 'unreadable';
}

/** What storage.local keeps: the cache, its version, the outbox and the next edit number. */
export function storedLocal() {
  return { cache: this.cache, snapshotVersion: this.snapshotVersion, outbox: this.outbox.entries, nextEdit: this.outbox.nextEdit };
}

export function newToken() {
  return this.nextToken++;
}
