/// What the harness's two JavaScript runtimes share on node's side (`runtime-common.mjs`,
/// written beside them): the framing, the options, reading the extension's files, and reading a
/// thrown value without running any of its code.
package enum RuntimeCommon {
    package static let fileName = "runtime-common.mjs"

    package static let source = #"""
// What the harness's JavaScript runtimes (runtime.mjs for a background, pages.mjs for an
// extension's own pages) share on node's side. Nothing here is handed to a script.

import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import vm from 'node:vm';

// The value of `--NAME VALUE` in `args` (the command line's), or `fallback`.
export function option(name, fallback, args = process.argv) {
    const at = args.indexOf(`--${name}`);
    return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
}

// MARK: - Frames: a 4-byte little-endian length, then a JSON object in UTF-8 (section 3)

const frameLimit = 64 * 1024 * 1024;

// With a `context`, the payload begins with it, 4 bytes little-endian (section 14, "Where code runs").
export function write(frame, context) {
    const json = Buffer.from(JSON.stringify(frame), 'utf8');
    const header = Buffer.alloc(context === undefined ? 4 : 8);
    header.writeUInt32LE(json.length + header.length - 4);
    if (context !== undefined) header.writeUInt32LE(context, 4);
    process.stdout.write(Buffer.concat([header, json]));
}

// The harness is gone or broke the framing: say so once and stop (section 12). A host says it
// as its context 0, which is no incarnation's.
function broken(message, tagged) {
    write({ kind: 'error', message }, tagged ? 0 : undefined);
    process.exit(75);
}

// Each frame's JSON text; `tagged`: `{ context, text }`, the payload's first 4 bytes being
// the context's number (section 14, "Where code runs").
export async function* frames({ tagged = false } = {}) {
    let buffer = Buffer.alloc(0);
    for await (const chunk of process.stdin) {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        while (buffer.length >= 4) {
            const length = buffer.readUInt32LE(0);
            if (length > frameLimit) broken(`a frame of ${length} bytes is over the limit of ${frameLimit} bytes`, tagged);
            if (tagged && length < 4) broken('a frame too short for the number of its context', tagged);
            if (buffer.length < 4 + length) break;
            const payload = buffer.subarray(4, 4 + length);
            yield tagged ? { context: payload.readUInt32LE(0), text: payload.subarray(4).toString('utf8') } : payload.toString('utf8');
            buffer = buffer.subarray(4 + length);
        }
    }
    if (buffer.length > 0) broken('the input ended inside a frame', tagged);
}

// MARK: - The extension's files

// The text of `file`, a path inside the extension's `folder`; one outside it is an error.
export function readIn(folder, file) {
    const full = path.resolve(folder, String(file).replace(/^\//, ''));
    if (!full.startsWith(folder + path.sep)) throw new Error(`${file} is outside the extension`);
    return fs.readFileSync(full, 'utf8');
}

// MARK: - ES modules

// V8's code cache of each module compiled here, by its file, with the source it was made from:
// later compiles of the same source (a host's next incarnation, a popup opened again) start from
// it, not from the text. It holds code only, nothing a script can observe.
const codeCache = new Map();
function compiledModule(file, source, options) {
    const cached = codeCache.get(file);
    const module = new vm.SourceTextModule(source, cached?.source === source ? { ...options, cachedData: cached.data } : options);
    if (cached?.source !== source || module.cachedDataRejected === true) codeCache.set(file, { source, data: module.createCachedData() });
    return module;
}

// Reads, compiles and links each of `files` as an ES module in `context`, with what it imports
// (each path relative to its importer's, inside the extension: `read` refuses the rest).
// Returns `{ file, module }` for each, or `{ file, error, place }` for one that cannot be read,
// compiled or linked, `place` naming the module at fault (V8 gives a module's syntax error none).
export async function linkModules(files, { context, read, importModuleDynamically }) {
    const modules = new Map();
    let reading = null;
    const load = (file, importer) => {
        const key = path.posix.normalize(String(file).replace(/^\//, ''));
        if (!modules.has(key)) {
            let source;
            try { source = read(key); } catch (error) {
                reading = importer ?? key;
                throw new Error(importer ? `${importer} imports ${key}, which cannot be read: ${error.message}` : `${key} cannot be read: ${error.message}`);
            }
            reading = key;
            modules.set(key, compiledModule(key, source, { identifier: key, context, importModuleDynamically }));
        }
        return modules.get(key);
    };
    const entries = [];
    for (const file of files) {
        try {
            const module = load(file);
            await module.link((specifier, referrer) => load(path.posix.join(path.posix.dirname(referrer.identifier), specifier), referrer.identifier));
            entries.push({ file, module });
        } catch (error) {
            entries.push({ file, error, place: reading });
        }
    }
    return entries;
}

// MARK: - Thrown values, read without running a script's code

// The runtimes' own folder, and the names of the scripts they compile themselves
// (`runtime:turn`, `pages:install`): stack frames a script's place is never in.
const runtimeFolder = path.dirname(new URL(import.meta.url).pathname);

// `file:line:col` of the first frame of a stack that is a script's (or `file:line` where the
// stack gives no column, as for a script that does not compile); the runtimes' own frames are
// skipped. A script can give an error any stack text it likes, and this runs outside the
// watchdog: it reads at most the first 100 lines, and only the end of each (where a frame's
// place is), so its work stays small.
export function place(stack) {
    const lines = String(stack).slice(0, 65536).split('\n', 100)
        .filter((line) => !line.includes(runtimeFolder) && !line.includes('runtime:') && !line.includes('pages:'));
    for (const line of lines) {
        const match = line.slice(-512).match(/([^\s()]+\.m?js):(\d+):(\d+)\)?$/);
        if (match) return match.slice(1).join(':');
    }
    for (const line of lines) {
        const match = line.slice(-512).match(/^([^\s()]+\.m?js):(\d+)$/);
        if (match) return match.slice(1).join(':');
    }
    return undefined;
}

// A thrown value in words (`text`) with its stack text, read without running any of its code
// (no getter, no proxy trap: that could loop outside the watchdog).
export function describe(value) {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return { text: String(value), stack: '' };
    if (util.types.isProxy(value)) return { text: 'a proxy', stack: '' };
    const data = (name) => {
        for (let object = value; object !== null; object = Object.getPrototypeOf(object)) {
            if (util.types.isProxy(object)) return undefined;
            const descriptor = Object.getOwnPropertyDescriptor(object, name);
            if (descriptor) return typeof descriptor.value === 'string' ? descriptor.value : undefined;
        }
        return undefined;
    };
    const name = data('name'), message = data('message');
    return { text: name !== undefined && message !== undefined ? `${name}: ${message}` : 'a thrown object', stack: data('stack') ?? '' };
}

// Whether a thrown value is node's timeout: read as an own data property of a value that is not
// a proxy, so nothing of a script's runs here, outside the watchdog.
export function isTimeout(value) {
    if (value === null || typeof value !== 'object' || util.types.isProxy(value)) return false;
    return Object.getOwnPropertyDescriptor(value, 'code')?.value === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}
// MARK: - What both runtimes set up in a script's realm

// Source text for the runtimes' install functions, which run it in a script's realm before any
// script, with `host`, `define`, `apply` and the built-ins they captured (`getOwn`, `getProto`,
// `hasOwn`, `exec`) in scope.

// No run depends on the collector.
export const realmCollector = String.raw`
    define('WeakRef', class WeakRef {
        #target;
        constructor(target) { this.#target = target; }
        deref() { return this.#target; }
    });
    define('FinalizationRegistry', class FinalizationRegistry {
        constructor(callback) { if (typeof callback !== 'function') throw new TypeError('a cleanup callback is required'); }
        register() {}
        unregister() { return false; }
    });
`;

// An error's stack names the scripts' frames only, as a page's would: not the runtime's (its
// own scripts are named `hidden`, as `runtime:turn`) or node's, whose paths are this machine's.
// Its first line is the error's own name and message, read without running any of the scripts'
// code (no getter, no trap), and scripts replace neither this nor the global Error node looks it
// up on: V8 formats a stack when it is first read, which may be in the runtime, outside the
// watchdog. Only built-ins no script can reach run here: the captured ones, and the frames' own
// methods (a call site's prototype is V8's, never handed to a script).
export const realmStacks = (hidden) => String.raw`
    const ownText = (object, key) => {
        for (let current = object, depth = 0; current !== null && (typeof current === 'object' || typeof current === 'function') && depth < 64; depth++) {
            if (host.isProxy(current)) return undefined;
            const descriptor = getOwn(current, key);
            if (descriptor) return hasOwn(descriptor, 'value') && typeof descriptor.value === 'string' ? descriptor.value : undefined;
            current = getProto(current);
        }
        return undefined;
    };
    const hiddenFile = /^(${hidden}|node:|file:)/;
    const runtimeFrame = (frame) => {
        const file = frame.getFileName();
        return typeof file === 'string' && apply(exec, hiddenFile, [file]) !== null;
    };
    Object.defineProperty(Error, 'prepareStackTrace', {
        value(error, frames) {
            const name = ownText(error, 'name') ?? 'Error', message = ownText(error, 'message') ?? '';
            let text = message === '' ? name : name + ': ' + message;
            for (let index = 0; index < frames.length; index++) {
                if (!runtimeFrame(frames[index])) text += '\n    at ' + frames[index].toString();
            }
            return text;
        },
        writable: false, configurable: false, enumerable: false,
    });
    Object.defineProperty(globalThis, 'Error', { value: Error, writable: false, configurable: false, enumerable: false });
`;

// Timers are the harness's to fire (section 14): host.setTimer and host.cancelTimer tell it, and
// a turn runs the timer in \`timers\` by its number. A delay is read as browsers read it
// (truncated; not a number, negative or over 2^31 - 1: 0), and an interval runs at most once a
// millisecond, so time moves while it runs.
export const realmTimers = String.raw`
    const timers = new Map();
    let nextTimer = 1;
    const delay = (value) => {
        const wait = Math.trunc(Number(value));
        return Number.isFinite(wait) && wait > 0 && wait <= 2147483647 ? wait : 0;
    };
    const setTimer = (callback, wait, args, repeats) => {
        if (typeof callback !== 'function') throw new TypeError('setTimeout and setInterval take a function (a string is not evaluated)');
        const id = nextTimer++;
        const every = repeats ? Math.max(1, delay(wait)) : delay(wait);
        timers.set(id, { callback, args, every, repeats });
        host.setTimer(id, host.now() + every);
        return id;
    };
    define('setTimeout', (callback, wait = 0, ...args) => setTimer(callback, wait, args, false));
    define('setInterval', (callback, wait = 0, ...args) => setTimer(callback, wait, args, true));
    const clear = (id) => { if (timers.delete(id)) host.cancelTimer(id); };
    define('clearTimeout', clear);
    define('clearInterval', clear);
`;
// An event object of the browser.* API over its list of listeners.
export const realmEvents = String.raw`
    const eventOf = (listeners) => ({
        addListener(callback) {
            if (typeof callback !== 'function') throw new TypeError('addListener takes a function');
            if (!listeners.includes(callback)) listeners.push(callback);
        },
        removeListener(callback) { const at = listeners.indexOf(callback); if (at >= 0) listeners.splice(at, 1); },
        hasListener(callback) { return listeners.includes(callback); },
        hasListeners() { return listeners.length > 0; },
    });
`;

// One end of a port in a script's realm: runtime.connect's in a page, the background's from
// runtime.onConnect. It has the given fields (name, sender), its events, postMessage and
// disconnect, which tell the host through post(text) and close(). The host's turns call
// heard(message) when the other end posts and closed(error) when it goes, runtime.lastError
// saying error meanwhile, if there is one. Needs realmEvents, jsonText, lastError and
// listenerCall(listener, args) in scope.
export const realmPorts = String.raw`
    const portEnd = (fields, post, close) => {
        let open = true;
        const messageListeners = [], disconnectListeners = [];
        const port = {
            ...fields,
            onMessage: eventOf(messageListeners),
            onDisconnect: eventOf(disconnectListeners),
            postMessage(message) {
                if (!open) throw new Error('Attempting to use a disconnected port object');
                post(jsonText(message, 'a message'));
            },
            disconnect() {
                if (!open) return;
                open = false;
                close();
            },
        };
        return {
            port,
            heard(message) { for (const listener of [...messageListeners]) listenerCall(listener, [message, port]); },
            closed(error) {
                open = false;
                lastError = error === undefined ? undefined : { message: error };
                for (const listener of [...disconnectListeners]) listenerCall(listener, [port]);
                lastError = undefined;
            },
        };
    };
`;
"""#
}
