import Foundation

/// The JavaScript runtime an extension's background runs in (`PROTOCOL.md`, section 14): one
/// `node` process per background incarnation (`arguments`), which speaks the background role's
/// frames. Its source lives here, so that the harness's
/// executables need no bundle resources; `install(in:)` writes it to a run's folder.
package enum ExtensionRuntime {
    /// The file name `install(in:)` writes.
    package static let fileName = "runtime.mjs"

    /// The arguments for `node` that run the runtime at `path` for the extension in `folder`;
    /// the harness adds its own (`--storage DIR`) after them.
    package static func arguments(runtime path: String, extension folder: String, watchdogMilliseconds: Int = 2_000) -> [String] {
        ["--experimental-vm-modules", "--no-warnings", path, "--extension", folder, "--watchdog", String(watchdogMilliseconds)]
    }

    /// The background's command on the process transport: `node` running the runtime at `path`.
    package static func background(node: String, runtime path: String, extension folder: String) -> ProcessExecutables.Command {
        ProcessExecutables.Command(path: node, arguments: arguments(runtime: path, extension: folder))
    }

    /// Writes the runtime into `folder`; returns its path.
    package static func install(in folder: String) throws -> String {
        let path = folder + "/" + fileName
        try Data(source.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }

    package static let source = #"""
// The harness's JavaScript runtime for an extension's background: one node process per
// background incarnation, speaking the background role of the protocol (PROTOCOL.md, sections
// 3 to 6 and 14) on its standard input and output. It owns the event loop: every script runs
// in a turn that an input frame begins, microtasks drain before the turn ends, and nothing
// runs between turns. Scripts see an allowlisted global object whose clock, timers and random
// numbers come from the frames, so the same frames give the same run.
//
// node --experimental-vm-modules --no-warnings runtime.mjs --extension FOLDER [--watchdog MS]
//     --storage FOLDER [--free]
// (the harness adds --storage, and --free in a soak, as it does for every background).

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

function option(name, fallback) {
    const at = process.argv.indexOf(`--${name}`);
    return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}
const folder = option('extension');
const watchdog = Number(option('watchdog', '2000'));

// Frames are a 4-byte little-endian length, then a JSON object in UTF-8 (PROTOCOL.md, section 3).
const frameLimit = 64 * 1024 * 1024;

function write(frame) {
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

async function* frames() {
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

// MARK: - The extension as its manifest gives it

const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'));
const background = manifest.background ?? {};
const backgroundScripts = background.service_worker ? [background.service_worker] : (background.scripts ?? []);
const isModule = background.type === 'module';
const permissions = new Set(manifest.permissions ?? []);

// MARK: - Time and randomness, from the frames

const clock = { now: 0, uptime: 0 };
let random = null;

// sfc32 over a 128-bit state mixed from the run's seed, the role and the incarnation's first
// moment on Safari's clock (the wire does not carry the incarnation's number).
function seededRandom(seed, uptime) {
    let h = 0x9e3779b9;
    const text = `${seed}/background/${uptime}`;
    const state = [0, 0, 0, 0].map((_, i) => {
        for (let c = 0; c < text.length; c++) h = Math.imul(h ^ text.charCodeAt(c), 0x5bd1e995 + i * 2);
        h ^= h >>> 15;
        return h >>> 0;
    });
    let [a, b, c, d] = state;
    const next = () => {
        a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
        const t = (a + b | 0) + d | 0;
        d = d + 1 | 0;
        a = b ^ b >>> 9;
        b = c + (c << 3) | 0;
        c = c << 21 | c >>> 11;
        c = c + t | 0;
        return (t >>> 0) / 4294967296;
    };
    for (let i = 0; i < 12; i++) next();
    return next;
}

// MARK: - The turn: what a script does while an input is handled

let directives = [];
let loading = false;
const loadListeners = new Set();

function log(level, message, at) {
    const frame = { kind: 'log', level, message };
    if (at) frame.at = at;
    write(frame);
}

// `file:line:col` of the first frame of an error's stack that is a script's (or `file:line`,
// where the stack gives no column).
function place(error) {
    const lines = String(error?.stack ?? '').split('\n');
    for (const line of lines) {
        const match = line.match(/([^\s()]+\.m?js):(\d+):(\d+)\)?$/);
        if (match) return match.slice(1).join(':');
    }
    for (const line of lines) {
        const match = line.match(/^([^\s()]+\.m?js):(\d+)$/);
        if (match) return match.slice(1).join(':');
    }
    return undefined;
}

function describe(value) {
    // An error of the scripts' realm is no instance of this one's `Error`.
    if (value !== null && typeof value === 'object' && 'message' in value && 'name' in value) return `${value.name}: ${value.message}`;
    try { return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value); } catch { return String(value); }
}

process.on('unhandledRejection', (reason) => log('error', `Uncaught (in promise) ${describe(reason)}`, place(reason)));

// MARK: - The global object scripts see

const context = vm.createContext({}, {
    name: 'background',
    microtaskMode: 'afterEvaluate',
    codeGeneration: { strings: false, wasm: false },
});

// Runs `run` (a function of the context's realm) in a turn: its microtasks drain before it
// returns, and a turn longer than the watchdog ends with an error.
const enter = new vm.Script('globalThis.__turn()', { filename: 'runtime:turn' });
const drain = new vm.Script('', { filename: 'runtime:drain' });
function turn(run) {
    context.__turn = run;
    try {
        enter.runInContext(context, { timeout: watchdog });
        return true;
    } catch (error) {
        if (error?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
            write({ kind: 'error', message: `a script did not yield within ${watchdog} ms` });
            return false;
        }
        log('error', `Uncaught ${describe(error)}`, place(error));
        // The microtasks the script queued before it threw still run in this turn.
        try { drain.runInContext(context, { timeout: watchdog }); } catch (later) { log('error', `Uncaught ${describe(later)}`, place(later)); }
        return true;
    } finally {
        delete context.__turn;
    }
}

const timers = new Map();
let nextTimer = 1;

function event(listener) {
    const listeners = [];
    return {
        addListener(callback) {
            if (typeof callback !== 'function') throw new TypeError('addListener expects a function');
            if (!listeners.includes(callback)) listeners.push(callback);
            if (loading && listener) loadListeners.add(listener);
        },
        removeListener(callback) { const index = listeners.indexOf(callback); if (index >= 0) listeners.splice(index, 1); },
        hasListener(callback) { return listeners.includes(callback); },
        hasListeners() { return listeners.length > 0; },
        dispatch(...args) { for (const callback of [...listeners]) callback(...args); },
    };
}

// `browser.NAME.MEMBER` that this runtime does not provide: a function that throws, naming it.
function missing(name) {
    return new Proxy({}, {
        get(_, member) {
            if (typeof member === 'symbol') return undefined;
            return () => { throw new Error(`browser.${name}.${member} is not provided by the harness's runtime`); };
        },
    });
}

const api = {
    runtime: {
        id: manifest.browser_specific_settings?.safari?.id ?? 'extension',
        onMessage: event('message'),
        onStartup: event(null),
        onInstalled: event(null),
        getManifest: () => structuredClone(manifest),
        getURL: (file) => `safari-web-extension://extension/${String(file).replace(/^\//, '')}`,
    },
};
api.tabs = { onActivated: event('tabActivated'), onRemoved: event('tabRemoved') };
api.windows = { onFocusChanged: event('windowFocus') };
if (permissions.has('alarms')) api.alarms = { onAlarm: event('alarm') };
// What the manifest's permissions do not grant is absent, as in Safari; any other namespace
// this runtime lacks throws, naming what was called.
const granted = new Set(['alarms', 'storage', 'nativeMessaging', 'scripting', 'cookies', 'webNavigation', 'declarativeNetRequest']);
const browser = new Proxy(api, {
    get(target, name) {
        if (typeof name === 'symbol' || name in target) return target[name];
        if (granted.has(name) && !permissions.has(name)) return undefined;
        return missing(name);
    },
});

// The context's own intrinsics, made deterministic, and what a background page has besides.
const install = new vm.Script(`(host) => {
    const RealDate = Date;
    globalThis.Date = class Date extends RealDate {
        constructor(...args) { if (args.length === 0) super(host.now()); else super(...args); }
        static now() { return host.now(); }
    };
    Math.random = () => host.random();
    globalThis.WeakRef = class WeakRef {
        #target;
        constructor(target) { this.#target = target; }
        deref() { return this.#target; }
    };
    globalThis.FinalizationRegistry = class FinalizationRegistry {
        constructor(callback) { if (typeof callback !== 'function') throw new TypeError('a cleanup callback is required'); }
        register() {}
        unregister() { return false; }
    };
    globalThis.performance = { now: () => host.uptime() };
    globalThis.crypto = {
        getRandomValues(array) {
            const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
            for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(host.random() * 256);
            return array;
        },
        randomUUID() {
            const bytes = this.getRandomValues(new Uint8Array(16));
            bytes[6] = bytes[6] & 0x0f | 0x40;
            bytes[8] = bytes[8] & 0x3f | 0x80;
            const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
            return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
        },
    };
    globalThis.queueMicrotask = (callback) => { Promise.resolve().then(callback); };
    globalThis.setTimeout = (callback, delay = 0, ...args) => host.setTimer(callback, delay, args, false);
    globalThis.setInterval = (callback, delay = 0, ...args) => host.setTimer(callback, delay, args, true);
    globalThis.clearTimeout = globalThis.clearInterval = (id) => host.clearTimer(id);
    globalThis.console = Object.fromEntries(['log', 'info', 'warn', 'error', 'debug']
        .map((level) => [level, (...values) => host.log(level, values)]));
    globalThis.browser = globalThis.chrome = host.browser;
    globalThis.self = globalThis;
    globalThis.importScripts = (...files) => host.importScripts(files);
}`, { filename: 'runtime:install' }).runInContext(context);

install({
    now: () => clock.now,
    uptime: () => clock.uptime,
    random: () => random(),
    browser,
    setTimer(callback, delay, args, repeats) {
        if (typeof callback !== 'function') throw new TypeError('setTimeout expects a function (strings are not evaluated)');
        const id = nextTimer++;
        const wait = Math.max(0, Number(delay) || 0);
        timers.set(id, { callback, args, wait, repeats });
        directives.push({ type: 'setTimer', timer: { script: id }, at: clock.now + wait });
        return id;
    },
    clearTimer(id) {
        if (timers.delete(id)) directives.push({ type: 'cancelTimer', timer: { script: id } });
    },
    log(level, values) {
        log(level === 'warn' || level === 'error' ? level : 'log', values.map((v) => typeof v === 'string' ? v : describe(v)).join(' '));
    },
    importScripts(files) {
        if (isModule) throw new TypeError('importScripts is not available in a module background');
        for (const file of files) runClassic(String(file));
    },
});

// MARK: - Loading the background

function read(file) {
    const full = path.resolve(folder, file.replace(/^\//, ''));
    if (!full.startsWith(path.resolve(folder) + path.sep)) throw new Error(`${file} is outside the extension`);
    return fs.readFileSync(full, 'utf8');
}

function runClassic(file) {
    new vm.Script(read(file), { filename: file }).runInContext(context);
}

async function loadModules() {
    const modules = new Map();
    const load = (file) => {
        const key = path.posix.normalize(file.replace(/^\//, ''));
        if (!modules.has(key)) modules.set(key, new vm.SourceTextModule(read(key), { identifier: key, context }));
        return modules.get(key);
    };
    for (const file of backgroundScripts) {
        const module = load(file);
        await module.link((specifier, referrer) => load(path.posix.join(path.posix.dirname(referrer.identifier), specifier)));
        // A module's top-level await settles through the context's own microtask queue, which
        // drains only after an evaluation in the context.
        let outcome = null;
        module.evaluate({ timeout: watchdog }).then(() => { outcome = { ok: true }; }, (error) => { outcome = { error }; });
        for (let round = 0; outcome === null && round < 1000; round++) {
            drain.runInContext(context, { timeout: watchdog });
            await new Promise((resolve) => setImmediate(resolve));
        }
        if (outcome === null) throw new Error(`${file} did not finish loading: its top-level await waits for something that never comes`);
        if (outcome.error) throw outcome.error;
    }
}

// MARK: - Inputs

async function handle(frame) {
    clock.now = frame.now;
    clock.uptime = frame.uptime ?? clock.uptime;
    random ??= seededRandom(frame.seed ?? 0, clock.uptime);
    directives = [];
    const input = frame.input ?? {};
    let answered = true;
    switch (input.type) {
    case 'started':
        loading = true;
        if (isModule) {
            try { await loadModules(); } catch (error) { log('error', `Uncaught ${describe(error)}`, place(error)); }
        } else {
            answered = turn(() => { for (const file of backgroundScripts) runClassic(file); });
        }
        loading = false;
        directives.unshift({ type: 'listen', events: [...loadListeners].sort() });
        break;
    case 'timerFired': {
        const id = input.timer?.script;
        const timer = timers.get(id);
        if (!timer) break;
        if (timer.repeats) directives.push({ type: 'setTimer', timer: { script: id }, at: clock.now + timer.wait });
        else timers.delete(id);
        answered = turn(() => timer.callback(...timer.args));
        break;
    }
    default:
        write({ kind: 'error', message: `invalid input: type: the JavaScript runtime does not take '${input.type}' yet` });
        return;
    }
    // Rejections nobody handled are reported before the input ends.
    await new Promise((resolve) => setImmediate(resolve));
    if (answered) write({ kind: 'done', directives });
}

write({ kind: 'hello', protocol: 1, role: 'background' });
for await (const line of frames()) {
    let frame;
    try { frame = JSON.parse(line); } catch { write({ kind: 'error', message: 'a frame that is not JSON' }); continue; }
    if (frame.kind !== 'input') { write({ kind: 'error', message: 'expected an input frame' }); continue; }
    await handle(frame);
}
"""#
}
