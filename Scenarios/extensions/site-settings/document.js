// The shared settings document (SiteSettings' SettingsDocument, DocumentCodec, DocumentReader
// and Edit): read from JSON with the same normalization, written back in the same canonical
// form, and changed by edits whose per-field stamps decide what wins.
//
// A document here is
//   {schemaVersion, documentId (or null), revision, defaults, sites, tombstones}
// where `defaults` is {mode, theme, nativeDarkPolicy, schedule: {start, end}, changedAt},
// `sites` maps a key's text to {key, values, changedAt} (values hold only overridden fields),
// and `tombstones` maps a key's text to {key, changedAt}: fields reset or deleted, none left.

import { parseScopeKey } from './scope-key.js';
import {
  builtInDefaults, compareStamps, defaultsFields, formatTimeOfDay, isKnownTheme, modes, origins, parseTimeOfDay,
  policies, sameStamp, siteFields, stamp,
} from './values.js';

export const currentSchemaVersion = 1;
/** The largest serialized document: the most a native reply can carry. */
export const maximumBytes = 1 << 20;
/** Stored times below this are seconds, not milliseconds. */
export const secondsThreshold = 100_000_000_000;
/** 9999-12-31T23:59:59.999Z: later times are garbage. */
const latestTime = 253_402_300_799_999;
const largestRevision = 2 ** 53;

export class DocumentError extends Error {
  name = 'DocumentError';
  constructor(path, message) {
    super(`${path}: ${message}`);
  }
}

export class EditError extends Error {
  name = 'EditError';
}

/** A new document with the built-in defaults and no site. */
export function emptyDocument() {
  return {
    schemaVersion: currentSchemaVersion,
    documentId: null,
    revision: 0,
    defaults: { ...builtInDefaults, changedAt: {} },
    sites: new Map(),
    tombstones: new Map(),
  };
}

/** `{documentId, revision}`, what "not modified" compares; null for a document never written. */
export const documentVersion = (document) =>
  document.documentId === null ? null : { documentId: document.documentId, revision: document.revision };

export const sameVersion = (a, b) =>
  a === b || (a !== null && b !== null && a.documentId === b.documentId && a.revision === b.revision);

export const isReadOnly = (document) => document.schemaVersion > currentSchemaVersion;

// MARK: - Records

const isEmpty = (values) => siteFields.every((field) => values[field] === undefined);

/** The record for a key, live or tombstoned, as one fresh value. */
function entry(document, key) {
  const live = document.sites.get(key.text);
  if (live) return { key, values: { ...live.values }, changedAt: { ...live.changedAt } };
  return { key, values: {}, changedAt: { ...(document.tombstones.get(key.text)?.changedAt ?? {}) } };
}

/** Stores an entry back: live when it overrides a field, a tombstone when it does not. */
function store(document, record) {
  const text = record.key.text;
  if (isEmpty(record.values)) {
    document.sites.delete(text);
    if (Object.keys(record.changedAt).length === 0) document.tombstones.delete(text);
    else document.tombstones.set(text, { key: record.key, changedAt: record.changedAt });
  } else {
    document.sites.set(text, record);
    document.tombstones.delete(text);
  }
}

/** Folds another version of the same key into `record`: per field, the greater stamp wins. */
function join(record, other) {
  let changed = false;
  for (const field of siteFields) {
    const theirs = other.changedAt[field];
    if (theirs === undefined) continue;
    const ours = record.changedAt[field];
    if (ours !== undefined && compareStamps(ours, theirs) >= 0) continue;
    record.changedAt[field] = theirs;
    if (other.values[field] === undefined) delete record.values[field];
    else record.values[field] = other.values[field];
    changed = true;
  }
  return changed;
}

function joinAt(document, key, change) {
  const record = entry(document, key);
  if (!join(record, change)) return false;
  store(document, record);
  return true;
}

/** The time of a record's newest change (the seed format's `modifiedAt`). */
const modifiedAt = (record) => Math.max(0, ...Object.values(record.changedAt).map((s) => s.at));

function cloneDocument(document) {
  return {
    ...document,
    defaults: { ...document.defaults, changedAt: { ...document.defaults.changedAt } },
    sites: new Map(document.sites),
    tombstones: new Map(document.tombstones),
  };
}

// MARK: - Edits

/**
 * Applies an edit to a document as it is now and returns `{document, changed}`: a new document
 * when it changed (revision one more), the same one when not. Per field, the edit wins only if
 * its stamp is greater than that field's last change. Edits are
 *   {type: 'changeSite', scope, set, reset, stamp} and {type: 'deleteSite', scope, stamp}.
 * Throws an EditError for a read-only document, an invalid edit or a document over 1 MiB.
 */
export function applyEdit(document, edit) {
  if (isReadOnly(document)) {
    throw new EditError(`document has schemaVersion ${document.schemaVersion}, newer than ${currentSchemaVersion}: it is read-only to this version`);
  }
  validateEdit(edit);
  const change = { values: {}, changedAt: {} };
  if (edit.type === 'changeSite') {
    for (const field of siteFields) {
      if (edit.set[field] === undefined) continue;
      change.changedAt[field] = edit.stamp;
      change.values[field] = edit.set[field];
    }
    for (const field of edit.reset) change.changedAt[field] = edit.stamp;
  } else {
    for (const field of siteFields) change.changedAt[field] = edit.stamp;
  }
  const next = cloneDocument(document);
  if (!joinAt(next, edit.scope, change)) return { document, changed: false };
  next.revision += 1;
  const bytes = byteLength(JSON.stringify(encodeDocument(next)));
  if (bytes > maximumBytes) throw new EditError(`edit refused: the document would be ${bytes} bytes, over the limit of ${maximumBytes}`);
  return { document: next, changed: true };
}

function validateEdit(edit) {
  if (edit.stamp.at < 0) throw new EditError(`edit time ${edit.stamp.at} is negative`);
  if (edit.type === 'changeSite') {
    if (edit.set.theme !== undefined && !isKnownTheme(edit.set.theme)) throw new EditError(`unknown theme '${edit.set.theme}'`);
    const both = edit.reset.find((field) => edit.set[field] !== undefined);
    if (both !== undefined) throw new EditError(`field '${both}' is both set and reset`);
  }
  if (edit.stamp.at < secondsThreshold) throw new EditError(`edit time ${edit.stamp.at} is before 10^11 ms (1973-03-03)`);
}

function byteLength(text) {
  let bytes = 0;
  for (const character of text) {
    const cp = character.codePointAt(0);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

// MARK: - Writing

/** A time as stored: milliseconds, except below 10^11 (it can only have come from seconds). */
const stored = (time) => (time < secondsThreshold ? Math.trunc(time / 1000) : time);

function stampJSON(s) {
  if (s.origin === 'imported' && s.edit === 0) return stored(s.at);
  return sortedObject({ at: stored(s.at), by: s.origin, ...(s.edit !== 0 ? { edit: s.edit } : {}) });
}

const stampsJSON = (stamps) => sortedObject(Object.fromEntries(Object.entries(stamps).map(([f, s]) => [f, stampJSON(s)])));

function recordJSON(record) {
  const time = modifiedAt(record);
  const object = { ...record.values, modifiedAt: stored(time) };
  // The seed's short form (one `modifiedAt`) says it all when every present field was last set
  // then by an unknown editor and nothing was reset.
  const present = siteFields.filter((field) => record.values[field] !== undefined);
  const plain = stamp(time);
  const isPlain =
    Object.keys(record.changedAt).length === present.length &&
    present.every((field) => record.changedAt[field] && sameStamp(record.changedAt[field], plain));
  if (!isPlain) object.changedAt = stampsJSON(record.changedAt);
  return sortedObject(object);
}

/** A deletion (every field reset at one stamp) is written as that stamp alone. */
function tombstoneJSON(stamps) {
  const all = Object.values(stamps);
  if (all.length === siteFields.length && all.every((s) => sameStamp(s, all[0]))) return stampJSON(all[0]);
  return { changedAt: stampsJSON(stamps) };
}

/** The document's canonical JSON: sorted keys, times in milliseconds. */
export function encodeDocument(document) {
  const { defaults } = document;
  const defaultsObject = {
    mode: defaults.mode,
    theme: defaults.theme,
    nativeDarkPolicy: defaults.nativeDarkPolicy,
    schedule: { end: formatTimeOfDay(defaults.schedule.end), start: formatTimeOfDay(defaults.schedule.start) },
  };
  if (Object.keys(defaults.changedAt).length > 0) defaultsObject.changedAt = stampsJSON(defaults.changedAt);
  const top = {
    schemaVersion: document.schemaVersion,
    revision: document.revision,
    defaults: sortedObject(defaultsObject),
    sites: sortedObject(Object.fromEntries([...document.sites].map(([text, record]) => [text, recordJSON(record)]))),
    tombstones: sortedObject(Object.fromEntries([...document.tombstones].map(([text, t]) => [text, tombstoneJSON(t.changedAt)]))),
  };
  if (document.documentId !== null) top.documentId = document.documentId;
  return sortedObject(top);
}

function sortedObject(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Whether two documents are the same, compared by their canonical JSON. */
export const sameDocument = (a, b) =>
  a === b || (a !== null && b !== null && JSON.stringify(encodeDocument(a)) === JSON.stringify(encodeDocument(b)));

// MARK: - Reading

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isInteger = (value) => Number.isInteger(value);
const sortedEntries = (object) => Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function object(value, path, expected = 'an object') {
  if (!isObject(value)) throw new DocumentError(path, `expected ${expected}`);
  return value;
}

/**
 * Reads a document from parsed JSON, normalizing as the Swift reader does: keys canonical
 * (spellings of one key merged field by field), times below 10^11 read as seconds, missing
 * defaults filled in, unknown modes and policies dropped, unknown themes kept as written,
 * unknown members dropped. Throws a DocumentError for anything it cannot read.
 */
export function decodeDocument(json) {
  const top = object(json, '$');
  const document = emptyDocument();
  if (top.schemaVersion !== undefined) {
    if (!isInteger(top.schemaVersion)) throw new DocumentError('$.schemaVersion', 'expected an integer');
    if (top.schemaVersion < 1 || top.schemaVersion > 1_000_000) throw new DocumentError('$.schemaVersion', 'not a version');
    document.schemaVersion = top.schemaVersion;
  }
  for (const [name, value] of sortedEntries(top)) {
    const path = `$.${name}`;
    if (name === 'documentId') {
      if (typeof value !== 'string') throw new DocumentError(path, 'expected a string');
      if (!/^[\x21-\x7e]{1,128}$/.test(value)) throw new DocumentError(path, 'documentId must be 1 to 128 printable ASCII characters');
      document.documentId = value;
    } else if (name === 'revision') {
      if (!isInteger(value)) throw new DocumentError(path, 'expected an integer');
      if (value < 0 || value > largestRevision) throw new DocumentError(path, `revision ${value} is out of range`);
      document.revision = value;
    } else if (name === 'defaults') {
      document.defaults = readDefaults(value, path);
    } else if (name === 'sites') {
      for (const [text, record] of sortedEntries(object(value, path))) {
        const key = readKey(text, `${path}.${text}`);
        joinAt(document, key, readSiteRecord(record, `${path}.${text}`));
      }
    } else if (name === 'tombstones') {
      for (const [text, tombstone] of sortedEntries(object(value, path))) {
        const key = readKey(text, `${path}.${text}`);
        joinAt(document, key, { values: {}, changedAt: readTombstone(tombstone, `${path}.${text}`) });
      }
    }
  }
  return document;
}

function readKey(text, path) {
  try {
    return parseScopeKey(text);
  } catch (error) {
    throw new DocumentError(path, error.message);
  }
}

// A mode or policy: null or an unknown name leaves the field out; another type is an error.
function enumValue(allowed, value, path) {
  if (value === null) return undefined;
  if (typeof value !== 'string') throw new DocumentError(path, 'expected a string');
  return allowed.includes(value) ? value : undefined;
}

function readTheme(value, path) {
  if (typeof value !== 'string') throw new DocumentError(path, 'expected a string');
  return value;
}

function readDefaults(json, path) {
  const members = object(json, path);
  const defaults = { ...builtInDefaults, changedAt: {} };
  if (members.changedAt !== undefined) {
    for (const [name, value] of sortedEntries(object(members.changedAt, `${path}.changedAt`))) {
      if (defaultsFields.includes(name)) defaults.changedAt[name] = readStamp(value, `${path}.changedAt.${name}`);
    }
  }
  if (members.mode !== undefined) defaults.mode = enumValue(modes, members.mode, `${path}.mode`) ?? defaults.mode;
  if (members.theme !== undefined) defaults.theme = readTheme(members.theme, `${path}.theme`);
  if (members.nativeDarkPolicy !== undefined) {
    defaults.nativeDarkPolicy = enumValue(policies, members.nativeDarkPolicy, `${path}.nativeDarkPolicy`) ?? defaults.nativeDarkPolicy;
  }
  if (members.schedule !== undefined) defaults.schedule = readSchedule(members.schedule, `${path}.schedule`);
  return defaults;
}

function readSchedule(json, path) {
  const members = object(json, path);
  const time = (name) => {
    const value = members[name];
    if (typeof value !== 'string') throw new DocumentError(`${path}.${name}`, 'expected a time HH:MM');
    const minutes = parseTimeOfDay(value);
    if (minutes === null) throw new DocumentError(`${path}.${name}`, `invalid time of day '${value}'`);
    return minutes;
  };
  return { start: time('start'), end: time('end') };
}

function readSiteRecord(json, path) {
  const members = object(json, path);
  const values = {};
  let modified = null;
  let stamps = {};
  for (const [name, value] of sortedEntries(members)) {
    const fieldPath = `${path}.${name}`;
    if (name === 'mode' || name === 'nativeDarkPolicy') {
      const read = enumValue(name === 'mode' ? modes : policies, value, fieldPath);
      if (read !== undefined) values[name] = read;
    } else if (name === 'theme') {
      if (value !== null) values.theme = readTheme(value, fieldPath);
    } else if (name === 'modifiedAt') {
      modified = readTime(value, fieldPath);
    } else if (name === 'changedAt') {
      stamps = readFieldStamps(value, fieldPath);
    }
  }
  // The seed's form has one `modifiedAt` per record: each present field changed then.
  for (const field of siteFields) {
    if (values[field] !== undefined && stamps[field] === undefined) stamps[field] = stamp(modified ?? 0);
  }
  return { values, changedAt: stamps };
}

function readFieldStamps(json, path) {
  const stamps = {};
  for (const [name, value] of sortedEntries(object(json, path))) {
    if (siteFields.includes(name)) stamps[name] = readStamp(value, `${path}.${name}`);
  }
  return stamps;
}

/** A tombstone is a stamp (every field deleted then) or `{"changedAt": {field: stamp}}`. */
function readTombstone(json, path) {
  if (isObject(json) && json.changedAt !== undefined) return readFieldStamps(json.changedAt, `${path}.changedAt`);
  const deletion = readStamp(json, path);
  return Object.fromEntries(siteFields.map((field) => [field, deletion]));
}

function readStamp(json, path) {
  if (typeof json === 'number') return stamp(readTime(json, path));
  const members = object(json, path, 'a time or a stamp object');
  if (members.at === undefined) throw new DocumentError(`${path}.at`, 'expected a time');
  const at = readTime(members.at, `${path}.at`);
  let origin = 'imported';
  let edit = 0;
  if (members.by !== undefined) {
    if (typeof members.by !== 'string') throw new DocumentError(`${path}.by`, 'expected a string');
    if (!origins.includes(members.by)) throw new DocumentError(`${path}.by`, `unknown origin '${members.by}'`);
    origin = members.by;
  }
  if (members.edit !== undefined) {
    if (!isInteger(members.edit) || members.edit < 0) throw new DocumentError(`${path}.edit`, 'expected a non-negative integer');
    edit = members.edit;
  }
  return stamp(at, origin, edit);
}

/** Milliseconds since the epoch; a stored value below 10^11 is seconds. */
function readTime(value, path) {
  if (typeof value !== 'number') throw new DocumentError(path, 'expected a time in milliseconds');
  if (!isInteger(value)) throw new DocumentError(path, 'time must be a whole number of milliseconds');
  if (value < 0) throw new DocumentError(path, `time ${value} is negative`);
  const millis = value < secondsThreshold ? value * 1000 : value;
  if (millis > latestTime) throw new DocumentError(path, `time ${value} is after the year 9999`);
  return millis;
}
