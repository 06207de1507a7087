// What the harness's JavaScript runtimes (runtime.mjs for a background, pages.mjs for an
// extension's own pages) share on node's side. Nothing here is handed to a script.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import util from 'node:util';
import vm from 'node:vm';
import { frame } from './directives.mjs';

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
    write(frame.error(message), tagged ? 0 : undefined);
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
function compiledModule(identifier, source, options) {
    const cached = codeCache.get(identifier);
    const module = new vm.SourceTextModule(source, cached?.source === source ? { ...options, cachedData: cached.data } : options);
    if (cached?.source !== source || module.cachedDataRejected === true) codeCache.set(identifier, { source, data: module.createCachedData() });
    return module;
}

// MARK: - The realm modules

// The modules of a script's realm (runtime-realm.mjs, pages-realm.mjs and realm-common.mjs) are
// ES modules, which node's test runner imports as they are. The runtimes make a realm often (each
// background incarnation, each page load), so each module is compiled once per process, as a
// script that every realm runs (V8 then compiles each of its functions once, not once per realm,
// as it would a module compiled in each realm): its `import { NAMES } from './FILE';` becomes
// `const { NAMES } = imported('FILE');`, its `export` before a function, class or const is
// dropped, and it returns what it exported. Its lines stay where they are, so a place in it is
// its file's. Any other import or export is refused.
const runtimeFolder = path.dirname(fileURLToPath(import.meta.url));
const realmScripts = new Map();
function realmScript(file, prefix) {
    const key = prefix + file;
    if (realmScripts.has(key)) return realmScripts.get(key);
    const exported = [];
    const body = fs.readFileSync(path.join(runtimeFolder, file), 'utf8')
        .replace(/^import (\{[^}]*\}) from '\.\/([\w.-]+\.mjs)';$/gm, (whole, names, from) => `const ${names} = imported('${from}');`)
        .replace(/^export (async function|function|class|const) ([\w$]+)/gm, (whole, kind, name) => { exported.push(name); return `${kind} ${name}`; });
    const refused = /^(import|export)\b.*$/m.exec(body);
    if (refused) {
        const line = body.slice(0, refused.index).split('\n').length;
        throw new Error(`${file}:${line}: a realm module imports only names from its siblings and exports only functions, classes and consts: ${refused[0]}`);
    }
    const script = new vm.Script(`(function (imported) { 'use strict'; ${body}\nreturn { ${exported.join(', ')} };\n})`, { filename: key });
    realmScripts.set(key, script);
    return script;
}

// The realm module `file`, with what it imports, run in `context` before any script runs:
// everything it makes is that realm's. Returns what it exports. Each is named `prefix` and its
// file (`runtime:realm-common.mjs`), so that a stack leaves out its frames and place() skips them.
export function realmModule(context, file, prefix) {
    const loaded = new Map();
    const load = (name) => {
        if (!loaded.has(name)) loaded.set(name, realmScript(name, prefix).runInContext(context, { displayErrors: false })(load));
        return loaded.get(name);
    };
    return load(file);
}

// MARK: - The extension as its manifest gives it (Manifest V3, or V2)

// The background's scripts, in the order they load: V3's `service_worker` or `scripts`, or V2's
// `scripts` or `page` (the `<script src>` files of that page, in order, from its folder).
export function backgroundScripts(manifest, read) {
    const background = manifest?.background ?? {};
    if (typeof background.service_worker === 'string') return [background.service_worker];
    if (Array.isArray(background.scripts)) return background.scripts;
    if (typeof background.page !== 'string') return [];
    const base = path.posix.dirname(background.page);
    const sources = [];
    for (const [, , source] of read(background.page).matchAll(/<script\b[^>]*\bsrc\s*=\s*(["'])([^"']*)\1[^>]*>/gi)) {
        sources.push(path.posix.normalize(path.posix.join(base, source)).replace(/^\.\//, ''));
    }
    return sources;
}

// The popup's page: V3's `action.default_popup`, or V2's `browser_action` or `page_action`'s.
export function popupOf(manifest) {
    for (const key of ['action', 'browser_action', 'page_action']) {
        const popup = manifest?.[key]?.default_popup;
        if (typeof popup === 'string') return popup;
    }
    return undefined;
}

// A realm's URL request (realm-web.mjs), read with node's WHATWG parser: `["parse", input,
// base?]`, or `["set", href, part, value]` for one part of a URL; its parts as JSON text, or ''
// for input that is not a URL. Strings in and out: nothing of this realm reaches the script's.
const urlParts = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
export function url(text) {
    try {
        const request = JSON.parse(String(text));
        let parsed;
        if (request[0] === 'parse') {
            parsed = request.length > 2 ? new URL(String(request[1]), String(request[2])) : new URL(String(request[1]));
        } else if (request[0] === 'set' && urlParts.includes(request[2]) && request[2] !== 'origin' && request[2] !== 'href') {
            parsed = new URL(String(request[1]));
            parsed[request[2]] = String(request[3]);
        } else {
            return '';
        }
        return JSON.stringify(Object.fromEntries(urlParts.map((part) => [part, parsed[part]])));
    } catch {
        return '';
    }
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

// The runtimes' own folder (runtimeFolder), and the names of the modules and scripts they
// compile themselves (`runtime:turn`, `pages:realm-common.mjs`): stack frames a script's place is
// never in.

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
