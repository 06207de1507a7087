// Extension storage as Safari keeps it (PROTOCOL.md, section 10): the areas' rules, shared by
// the background's runtime (runtime.mjs) and the pages' (pages.mjs), which each carry out the
// operations their scripts ask for over the same folder of the profile's extension storage:
// `local.json`, `session.json` and `sync.json`, each an object of the area's keys. Nothing here
// is handed to a script.

import fs from 'node:fs';
import path from 'node:path';

export const areaNames = ['local', 'session', 'sync'];

// Safari's quotas (WebKit, `WebExtensionContext::quotaForStorageType` and
// WebExtensionConstants.h): storage.local 5 MiB (none with unlimitedStorage), storage.session
// 10 MiB, storage.sync 100 KiB in all, 8 KiB a key and 512 keys (kept on this device: nothing
// syncs). A script reads them on each area (realm-common.mjs, `areaConstants`).
export function quotas(manifest) {
    const unlimited = (manifest.permissions ?? []).includes('unlimitedStorage');
    return {
        local: { bytes: unlimited ? Infinity : 5242880 },
        session: { bytes: 10485760 },
        sync: { bytes: 102400, perItem: 8192, items: 512 },
    };
}

export const fileOf = (area) => area + '.json';

// An area's keys as its file holds them; nothing (or what is not an object) is an empty area.
export function readArea(folder, area) {
    try {
        const value = JSON.parse(fs.readFileSync(path.join(folder, fileOf(area)), 'utf8'));
        return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
    } catch { return {}; }
}

// What a storage area's keys take, counted as each key's and its value's JSON in UTF-8.
export function bytesInUse(items, keys) {
    let size = 0;
    for (const key of keys) if (Object.hasOwn(items, key)) size += Buffer.byteLength(key) + Buffer.byteLength(JSON.stringify(items[key]));
    return size;
}

// An operation (`get`, `bytes`, `set`, `remove`, `clear`) on an area's `items`: a read's
// `{value}`; a change's `{value: null, items, changes}` (the area after it, and what changed as
// storage.onChanged says it: only keys whose value is new or different, or removed, as WebKit's
// `fireStorageChangedEventIfNeeded` compares their JSON); or `{error}` in Safari's words, with
// nothing changed.
export function operate(items, area, op, argument, manifest) {
    if (op === 'get') {
        const keys = argument === null ? Object.keys(items) : Array.isArray(argument) ? argument
            : typeof argument === 'string' ? [argument] : Object.keys(argument);
        const result = {};
        for (const key of keys) {
            if (Object.hasOwn(items, key)) result[key] = items[key];
            else if (argument !== null && typeof argument === 'object' && !Array.isArray(argument)) result[key] = argument[key];
        }
        return { value: result };
    }
    if (op === 'bytes') return { value: bytesInUse(items, argument === null ? Object.keys(items) : [argument].flat().map(String)) };
    const changed = op === 'clear' ? {} : { ...items };
    const changes = {};
    if (op === 'set') {
        for (const [key, value] of Object.entries(argument)) {
            if (!Object.hasOwn(items, key) || JSON.stringify(items[key]) !== JSON.stringify(value)) {
                changes[key] = Object.hasOwn(items, key) ? { oldValue: items[key], newValue: value } : { newValue: value };
            }
            changed[key] = value;
        }
    } else {
        for (const key of op === 'clear' ? Object.keys(items) : [argument].flat()) {
            if (Object.hasOwn(items, key)) { changes[key] = { oldValue: items[key] }; delete changed[key]; }
        }
    }
    if (op === 'set') {
        const quota = quotas(manifest)[area];
        const size = bytesInUse(changed, Object.keys(changed));
        const where = `browser.storage.${area}.set()`;
        if (size > quota.bytes) return { error: `${where}: exceeded storage quota (${size} bytes, over ${quota.bytes}): nothing was saved` };
        if (quota.items !== undefined && Object.keys(changed).length > quota.items) {
            return { error: `${where}: exceeded maximum number of items (${quota.items}): nothing was saved` };
        }
        const large = quota.perItem === undefined ? undefined : Object.keys(argument).find((key) => bytesInUse(changed, [key]) > quota.perItem);
        if (large !== undefined) return { error: `${where}: exceeded the quota of ${quota.perItem} bytes for one item ('${large}'): nothing was saved` };
    }
    return { value: null, items: changed, changes };
}

// Applies what changed (as onChanged says it) to an area's `items` another context read.
export function applyChanges(items, changes) {
    const next = { ...items };
    for (const [key, change] of Object.entries(changes ?? {})) {
        if (change !== null && typeof change === 'object' && Object.hasOwn(change, 'newValue')) next[key] = change.newValue;
        else delete next[key];
    }
    return next;
}

// Writes an area whole: storage.session in place (Safari keeps it in memory), the others
// through a temporary file and a rename, so that a reader finds the old area or the new.
export function writeArea(folder, area, items) {
    const text = JSON.stringify(items);
    if (area === 'session') { fs.writeFileSync(path.join(folder, fileOf(area)), text); return; }
    const temporary = path.join(folder, fileOf(area) + '.tmp');
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, path.join(folder, fileOf(area)));
}

// The extension's own origin's localStorage (its background page's, its popup's, its other
// pages'), kept with the profile's extension storage in `localStorage.json` (strings by key),
// read afresh and written in place at each operation, as a page's is at once: `op` is `get`,
// `set`, `remove`, `clear` or `keys`; the answer is JSON text (a value, the keys, or null).
export const webStorageFile = 'localStorage.json';
export function extensionWebStorage(folder, op, key, value) {
    const file = path.join(folder, webStorageFile);
    let items = {};
    try {
        const read = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (read !== null && typeof read === 'object' && !Array.isArray(read)) items = read;
    } catch {}
    const has = Object.hasOwn(items, key);
    switch (op) {
    case 'get': return has ? JSON.stringify(String(items[key])) : 'null';
    case 'keys': return JSON.stringify(Object.keys(items));
    case 'set': items[key] = String(value); break;
    case 'remove': if (!has) return 'null'; delete items[key]; break;
    case 'clear': items = {}; break;
    default: return 'null';
    }
    fs.writeFileSync(file, JSON.stringify(items));
    return 'null';
}

// A file Safari keeps beside the extension's storage (`NAME.json` in `folder`: registered content
// scripts, network rules, granted permissions, storage.session's access level): read when `text`
// is '' (what it holds, '' for nothing), written otherwise; `{text}`, with `error` when it could
// not be written, for the caller to say (never to throw into a script's realm).
export function keepFile(folder, name, text) {
    const file = path.join(folder, `${name}.json`);
    if (text === '') { try { return { text: fs.readFileSync(file, 'utf8') }; } catch { return { text: '' }; } }
    try { fs.writeFileSync(file, text); return { text: '' }; } catch (error) { return { text: '', error: `Safari could not keep ${name}.json: ${error.message}` }; }
}
