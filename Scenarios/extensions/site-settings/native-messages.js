// The messages of PROTOCOL.md section 9 between the background and the native handler: the
// requests it sends, written as the Swift background writes them, and the handler's replies,
// read as strictly as the Swift background reads them (anything else is unreadable).

import { decodeDocument, secondsThreshold } from './document.js';
import { maximumPathBytes, parseScopeKey } from './scope-key.js';
import { isKnownTheme, modes, policies, siteFields, stamp } from './values.js';

/** `getSnapshot`, with the version the cache holds when there is one. */
export const snapshotRequest = (known) =>
  known === null ? { type: 'getSnapshot' } : { known: { documentId: known.documentId, revision: known.revision }, type: 'getSnapshot' };

/** A popup change for one record: set and reset fields, or delete it. `stamp` is the user's action. */
export function changeRequest(change) {
  const { at, edit } = change.stamp;
  if (change.type === 'deleteSite') return { at, edit, scope: change.scope.text, type: 'deleteSite' };
  return { at, edit, reset: [...change.reset], scope: change.scope.text, set: valuesJSON(change.set), type: 'patch' };
}

const valuesJSON = (values) => Object.fromEntries(['mode', 'nativeDarkPolicy', 'theme'].filter((f) => values[f] !== undefined).map((f) => [f, values[f]]));

/** The same change as an edit of the document (see document.js's applyEdit). */
export function editOf(request) {
  const scope = parseScopeKey(request.scope);
  const editStamp = stamp(request.at, 'extension', request.edit);
  if (request.type === 'deleteSite') return { type: 'deleteSite', scope, stamp: editStamp };
  return { type: 'changeSite', scope, set: request.set ?? {}, reset: request.reset ?? [], stamp: editStamp };
}

// MARK: - Reading

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const onlyMembers = (object, names) => Object.keys(object).every((name) => names.includes(name));
const isInteger = Number.isInteger;
const errorCodes = ['invalidMessage', 'readOnly', 'tooLarge', 'storageFailure'];

/**
 * A handler's reply as the background reads it, or null when it does not read as one:
 *   {type: 'snapshot', document}, {type: 'notModified', version}, {type: 'applied', version, changed},
 *   {type: 'enabled', enabled}, {type: 'error', code, message}.
 */
export function readReply(reply) {
  if (!isObject(reply)) return null;
  const version = () =>
    typeof reply.documentId === 'string' && isInteger(reply.revision) ? { documentId: reply.documentId, revision: reply.revision } : undefined;
  switch (reply.type) {
    case 'snapshot': {
      if (!onlyMembers(reply, ['type', 'document']) || reply.document === undefined) return null;
      try {
        return { type: 'snapshot', document: decodeDocument(reply.document) };
      } catch {
        return null;
      }
    }
    case 'notModified': {
      const known = version();
      return onlyMembers(reply, ['type', 'documentId', 'revision']) && known ? { type: 'notModified', version: known } : null;
    }
    case 'applied': {
      if (!onlyMembers(reply, ['type', 'changed', 'documentId', 'revision']) || typeof reply.changed !== 'boolean') return null;
      // A document never written has no id, and then neither member is sent.
      const written = reply.documentId !== undefined || reply.revision !== undefined;
      const known = written ? version() : null;
      return known === undefined ? null : { type: 'applied', version: known, changed: reply.changed };
    }
    case 'enabled':
      return onlyMembers(reply, ['type', 'enabled']) && typeof reply.enabled === 'boolean' ? { type: 'enabled', enabled: reply.enabled } : null;
    case 'error':
      return onlyMembers(reply, ['type', 'code', 'message']) && errorCodes.includes(reply.code) && typeof reply.message === 'string'
        ? { type: 'error', code: reply.code, message: reply.message }
        : null;
    default:
      return null;
  }
}

/**
 * A patch or deletion read back from storage, validated as the handler validates one (reset
 * fields sorted); null when it does not validate.
 */
export function readStoredRequest(json) {
  if (!isObject(json)) return null;
  const common = () => {
    if (typeof json.scope !== 'string' || json.scope.length > 253 + 1 + maximumPathBytes) return null;
    let scope;
    try {
      scope = parseScopeKey(json.scope);
    } catch {
      return null;
    }
    if (!isInteger(json.at) || json.at < secondsThreshold || !isInteger(json.edit) || json.edit < 0) return null;
    return { at: json.at, edit: json.edit, scope: scope.text };
  };
  if (json.type === 'deleteSite') {
    if (!onlyMembers(json, ['type', 'scope', 'at', 'edit'])) return null;
    const read = common();
    return read && { ...read, type: 'deleteSite' };
  }
  if (json.type !== 'patch' || !onlyMembers(json, ['type', 'scope', 'set', 'reset', 'at', 'edit'])) return null;
  const read = common();
  const set = json.set === undefined ? {} : readValues(json.set);
  const reset = json.reset === undefined ? [] : readFields(json.reset);
  if (!read || !set || !reset) return null;
  if (reset.some((field) => set[field] !== undefined)) return null;
  if (Object.keys(set).length === 0 && reset.length === 0) return null;
  return { at: read.at, edit: read.edit, reset: reset.sort(), scope: read.scope, set, type: 'patch' };
}

/** Fields to set as a popup or a stored patch gives them: known modes, catalogue themes, policies. Null otherwise. */
export function readValues(json) {
  if (!isObject(json)) return null;
  const allowed = { mode: modes, theme: null, nativeDarkPolicy: policies };
  const values = {};
  for (const [field, value] of Object.entries(json)) {
    if (!(field in allowed) || typeof value !== 'string') return null;
    if (field === 'theme' ? !isKnownTheme(value) : !allowed[field].includes(value)) return null;
    values[field] = value;
  }
  return values;
}

/** A list of site fields, none twice; null otherwise. */
export function readFields(json) {
  if (!Array.isArray(json) || json.length > siteFields.length) return null;
  if (!json.every((field) => siteFields.includes(field)) || new Set(json).size !== json.length) return null;
  return [...json];
}
