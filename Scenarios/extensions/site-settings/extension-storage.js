// What the background keeps in extension storage, in the keys and shapes of PROTOCOL.md
// section 10 (the harness reads them):
//   storage.local   {cache, snapshotVersion, outbox, nextEdit}, saved in one write so that the
//                   cache and the outbox never disagree;
//   storage.session {pausedUntil, nativelyDarkTabs}: survives an unload, not a Safari restart.

import { decodeDocument, encodeDocument } from './document.js';
import { readStoredRequest } from './native-messages.js';

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads what storage.local held. Anything unreadable counts as nothing stored (a first run):
 * a cache that does not read is none, an outbox entry that does not validate is dropped.
 */
export function readLocal(items) {
  const local = { cache: null, snapshotVersion: null, outbox: [], nextEdit: 1 };
  if (!isObject(items)) return local;
  if (items.cache !== undefined && items.cache !== null) {
    try {
      local.cache = decodeDocument(items.cache);
    } catch {
      local.cache = null;
    }
  }
  const version = items.snapshotVersion;
  if (isObject(version) && typeof version.documentId === 'string' && Number.isInteger(version.revision)) {
    local.snapshotVersion = { documentId: version.documentId, revision: version.revision };
  }
  for (const entry of Array.isArray(items.outbox) ? items.outbox : []) {
    if (!isObject(entry) || !Number.isInteger(entry.edit) || entry.edit <= 0) continue;
    const request = readStoredRequest(entry.request);
    if (request === null) continue;
    local.outbox.push({ edit: entry.edit, request, message: Number.isInteger(entry.message) ? entry.message : 0 });
  }
  if (Number.isInteger(items.nextEdit) && items.nextEdit > 0) local.nextEdit = items.nextEdit;
  return local;
}

/**
 * The items of storage.local. `snapshotVersion` is left out when there is none; where storage
 * already holds one (a set cannot remove a key) it is written null, which reads as none.
 */
export function localItems({ cache, snapshotVersion, outbox, nextEdit }, storedVersion) {
  const items = {
    cache: cache === null ? null : encodeDocument(cache),
    nextEdit,
    outbox: outbox.map(({ edit, request, message }) => (message !== 0 ? { edit, message, request } : { edit, request })),
  };
  if (snapshotVersion !== null) items.snapshotVersion = { documentId: snapshotVersion.documentId, revision: snapshotVersion.revision };
  else if (storedVersion) items.snapshotVersion = null;
  return items;
}

/** Reads what storage.session held. */
export function readSession(items) {
  const session = { pausedUntil: null, nativelyDarkTabs: new Set() };
  if (!isObject(items)) return session;
  if (Number.isInteger(items.pausedUntil)) session.pausedUntil = items.pausedUntil;
  for (const tab of Array.isArray(items.nativelyDarkTabs) ? items.nativelyDarkTabs : []) {
    if (typeof tab === 'number' || typeof tab === 'string') session.nativelyDarkTabs.add(tab);
  }
  return session;
}

/** The items of storage.session: the pause's end (or null) and the natively dark tabs, sorted. */
export const sessionItems = ({ pausedUntil, nativelyDarkTabs }) => ({ nativelyDarkTabs: [...nativelyDarkTabs].sort(), pausedUntil });
