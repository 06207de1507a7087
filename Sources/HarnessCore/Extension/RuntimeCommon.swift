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

// The value of `--NAME VALUE` on the command line, or `fallback`.
export function option(name, fallback) {
    const at = process.argv.indexOf(`--${name}`);
    return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

// MARK: - Frames: a 4-byte little-endian length, then a JSON object in UTF-8 (section 3)

const frameLimit = 64 * 1024 * 1024;

export function write(frame) {
    const payload = Buffer.from(JSON.stringify(frame), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32LE(payload.length);
    process.stdout.write(Buffer.concat([header, payload]));
}

// The harness is gone or broke the framing: say so once and stop (section 12).
function broken(message) {
    write({ kind: 'error', message });
    process.exit(75);
}

export async function* frames() {
    let buffer = Buffer.alloc(0);
    for await (const chunk of process.stdin) {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        while (buffer.length >= 4) {
            const length = buffer.readUInt32LE(0);
            if (length > frameLimit) broken(`a frame of ${length} bytes is over the limit of ${frameLimit} bytes`);
            if (buffer.length < 4 + length) break;
            yield buffer.subarray(4, 4 + length).toString('utf8');
            buffer = buffer.subarray(4 + length);
        }
    }
    if (buffer.length > 0) broken('the input ended inside a frame');
}

// MARK: - The extension's files

// The text of `file`, a path inside the extension's `folder`; one outside it is an error.
export function readIn(folder, file) {
    const full = path.resolve(folder, String(file).replace(/^\//, ''));
    if (!full.startsWith(folder + path.sep)) throw new Error(`${file} is outside the extension`);
    return fs.readFileSync(full, 'utf8');
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
"""#
}
