// The pages' DOM: jsdom, as Debian packages it (node-jsdom, in /usr/share/nodejs, which node
// searches only when NODE_PATH names it: the page host is started so). PROTOCOL.md, section 15.
//
// Loaded once per page host. Three things are done before jsdom is, so that the host can keep
// node's --disallow-code-generation-from-strings:
// - jsdom's selector engine (nwsapi) compiles each selector with `Function(...)`: it is loaded
//   into a context of its own that may compile strings, with nothing in its globals and no way
//   to reach its `Function` from what it makes, and handed to jsdom through require's cache;
// - jsdom makes its window's context with `vm.createContext(window)`, which would compile strings
//   whatever node's flag says: a context made with no options gets code from strings off;
// - Debian's jsdom 20.0.3 calls `NodeFilter.convert(globalObject, value)` on a generated module
//   that takes `(value, options)`, so every TreeWalker and NodeIterator filter throws: the export
//   is given the arguments its caller passes.
// And the host makes no request of its own: jsdom's resource loader reads no file and fetches
// nothing, and its XMLHttpRequest and WebSocket cannot be made.

import fs from 'node:fs';
import { Buffer } from 'node:buffer';
import util from 'node:util';
import vm from 'node:vm';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// Why jsdom cannot be had here, or null once it is loaded (`loadDOM`).
export let unavailable = 'jsdom is not loaded: loadDOM loads it';
// Told of each window jsdom makes (a document's, an iframe's): keepTime.
let windowMade = null;
// The context jsdom's selector engine compiles in.
let compiler = null;
let JSDOM = null, VirtualConsole = null;

// Loads jsdom, once per process (about 0.4 s and 70 MB: the background's runtime loads it only
// for a background page whose scripts name the DOM), and reads what every page shares. Returns
// `unavailable`: null, or why jsdom cannot be had.
export function loadDOM() {
    if (JSDOM !== null || compiler !== null) return unavailable;
    try {
        load();
        unavailable = null;
    } catch (error) {
        unavailable = `jsdom cannot be loaded (${String(error.message).split('\n')[0]}): install it with apt-get install node-jsdom`;
        return unavailable;
    }
    readNames();
    readShared();
    return unavailable;
}

function load() {
    const selectors = require.resolve('nwsapi');
    compiler = vm.createContext(Object.create(null), { name: 'selectors', codeGeneration: { strings: true, wasm: false } });
    vm.runInContext('globalThis.module = { exports: {} }; globalThis.exports = module.exports;', compiler);
    vm.runInContext(fs.readFileSync(selectors, 'utf8'), compiler, { filename: selectors });
    const factory = vm.runInContext('module.exports', compiler);
    // What the engine compiled (a function of that context) leads to its Function through
    // `constructor`: there, it makes nothing.
    vm.runInContext(`delete globalThis.module; delete globalThis.exports;
        Object.defineProperty(Function.prototype, 'constructor', { value: function Function() { throw new EvalError('Code generation from strings disallowed for this context'); } });`, compiler);
    require.cache[selectors] = { id: selectors, filename: selectors, loaded: true, exports: factory, children: [], paths: [] };

    const createContext = vm.createContext;
    vm.createContext = (object, options) => {
        if (options !== undefined) return createContext(object, options);
        const context = createContext(object, { codeGeneration: { strings: false, wasm: false } });
        windowMade?.(object);
        return context;
    };

    ({ JSDOM, VirtualConsole } = require('jsdom'));
    const nodeFilter = require('jsdom/lib/jsdom/living/generated/NodeFilter.js');
    const convert = nodeFilter.convert;
    if (convert.length === 1) nodeFilter.convert = (globalObject, value, options) => convert(value, options);

    const loader = require('jsdom/lib/jsdom/browser/resources/resource-loader.js').prototype;
    for (const name of ['fetch', '_readFile', '_readDataURL']) loader[name] = () => null;
    const offline = (name) => class { constructor() { throw new TypeError(`a scenario cannot stub the network: ${name} is not provided by the harness's runtime`); } };
    require('jsdom/lib/jsdom/living/xhr/XMLHttpRequest-impl.js').implementation = offline('XMLHttpRequest');
    require('jsdom/lib/jsdom/living/websockets/WebSocket-impl.js').implementation = offline('WebSocket');
}

// The interfaces jsdom gives a window (the list it installs them from), read without loading
// jsdom, once per process (each background page's incarnation asks: namesTheDOM); [] when it is
// not installed.
let interfaces = null;
function domInterfaces() {
    if (interfaces !== null) return interfaces;
    let text = '';
    try { text = fs.readFileSync(require.resolve('jsdom/lib/jsdom/living/interfaces.js'), 'utf8'); } catch {}
    interfaces = [...text.matchAll(/^ {2}(\w+): require\(/gm)].map(([, name]) => name);
    return interfaces;
}

// A plain page: nothing but the color-scheme its natively dark rules set (pages-realm.mjs).
export const plainPage = '<!DOCTYPE html><html><head></head><body></body></html>';

// A document over `html` at `url`, scripts in it never run. `report(kind, error)` hears what
// jsdom reports: 'uncaught' (a listener threw: the thrown value) or 'unsupported' (something
// jsdom does not implement: its message).
export function openDocument(html, url, report) {
    const console = new VirtualConsole();
    console.on('jsdomError', (error) => {
        if (error?.type === 'not implemented') report('unsupported', String(error.message));
        else report('uncaught', error?.detail ?? error);
    });
    const dom = new JSDOM(html, { url, runScripts: 'outside-only', virtualConsole: console });
    return dom.window;
}

// The names a document's window has: jsdom's interfaces (the list jsdom installs them from) and
// the members of a blank window. A page's realm reads each from its own document's window.
const domNames = [];
// Two blank documents' windows, read once as jsdom loads (what every window shares: below).
const blanks = [];

// What a page's realm reads from its document's window: every name jsdom's window has (its
// interfaces, its members), made once per process as accessors on the prototype of every page
// realm's sandbox, each reading the window of the sandbox it is read through. A realm's own
// globals, its builtins and what pages-realm.mjs (or runtime-realm.mjs, for a background page)
// defines, come first. A window's function is bound to it, so that `window.getSelection()`
// called on the realm's global works.
// (A context's global asks its sandbox first, so the names every realm has built in, `Object`,
// `Function`, `Array` and the rest, are left out: a page's are its own.)
const windows = new WeakMap();
const documentNames = Object.create(null);

function readNames() {
    domNames.push(...domInterfaces());
    blanks.push(openDocument(plainPage, 'about:blank', () => {}), openDocument(plainPage, 'https://blank.example/', () => {}));
    for (const name of ['HTMLDocument', 'Option', 'Image', 'Audio', ...Object.getOwnPropertyNames(blanks[0])]) if (!domNames.includes(name)) domNames.push(name);
    const builtIn = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', vm.createContext(Object.create(null), {})));
    for (const name of domNames) {
        if (name.startsWith('_') || builtIn.has(name) || ['window', 'self', 'top', 'parent', 'frames'].includes(name)) continue;
        const capitalized = /^[A-Z]/.test(name);
        Object.defineProperty(documentNames, name, {
            get() {
                const window = windows.get(this);
                if (window === undefined) return undefined;
                const value = window[name];
                return typeof value === 'function' && !capitalized ? value.bind(window) : value;
            },
            set(value) { const window = windows.get(this); if (window !== undefined) window[name] = value; },
        });
    }
    Object.freeze(documentNames);
}

// Gives the context made over `sandbox` (one whose prototype is null) the names of `window`, its
// document's: its sandbox's prototype becomes the document's names (above).
export function attachWindow(sandbox, window) {
    if (Object.getPrototypeOf(sandbox) !== documentNames) Object.setPrototypeOf(sandbox, documentNames);
    windows.set(sandbox, window);
}

// A context for a page's scripts (named `name`, making no code from strings), and `attach`,
// which gives it its document's window. The global object's names fall back to its sandbox's,
// prototype and all: a sandbox of node's realm (whose Object.prototype has constructor, that
// realm's Object) would hand scripts that realm's Function through globalThis.constructor. Its
// prototype is the document's names only, whose own prototype is null.
export function pageContext(name) {
    const sandbox = Object.create(documentNames);
    const context = vm.createContext(sandbox, { name, codeGeneration: { strings: false, wasm: false } });
    return { context, attach: (window) => attachWindow(sandbox, window) };
}

// The members of a document's window that name the DOM where a script uses them (the window's
// other members, `name`, `open`, `status`, ..., are words most scripts hold).
export const domMembers = ['document', 'location', 'history', 'sessionStorage', 'getComputedStyle', 'getSelection', 'matchMedia', 'customElements',
                           'Image', 'Option', 'Audio', 'alert', 'confirm', 'prompt', 'innerWidth', 'innerHeight', 'devicePixelRatio'];

// Whether a background page's scripts (`sources`, their text) name any of the DOM its document
// would give: `document`, or a name that the realm lacks of its own (`ownNames`: a worker's
// names and the page's own) among jsdom's interfaces and `domMembers`. Anywhere in their text,
// comments and strings too (a script may reach a global by its name): a name found where it is
// not used only costs jsdom's load.
export function namesTheDOM(sources, ownNames) {
    const names = new Set([...domMembers, ...domInterfaces()].filter((name) => !ownNames.has(name) || name === 'document'));
    for (const text of sources) {
        for (const [word] of String(text).matchAll(/[A-Za-z_$][\w$]*/g)) if (names.has(word)) return true;
    }
    return false;
}

// MARK: - What every page shares

// Every page's document is made by the same jsdom in node's one realm, so what a page's objects
// lead to is partly every page's: node's built-in prototypes (`Object.getPrototypeOf(
// document.querySelector)` is node's Function.prototype) and jsdom's implementation classes
// (behind each object's symbol-named property). A script that changes them changes them for every
// page the host runs after it, in its run and in runs to come. What every page shares is read
// once here: what two blank windows both lead to (own properties, accessors and prototypes,
// followed to the end), jsdom's implementation classes, node's realm's built-ins and the
// classes and functions of its globals (Promise, Uint8Array, Buffer, ...), and the built-ins
// of the selector engine's context (a page reaches both through what jsdom hands it).
// `changedShared` says whether any of
// it changed since (its prototype, whether it can be extended, or any own property's key, value,
// accessors or attributes): the page host asks before it serves another run, and a host whose
// shared objects changed serves no other. (A change inside an object, such as a Map's entries,
// or to an object made after this, is not seen: PROTOCOL.md, section 15.)
const shared = [];
const sharedRecords = [];
function readShared() {
    const reached = (roots, seen = new Set()) => {
        const pending = [...roots];
        while (pending.length > 0) {
            const value = pending.pop();
            if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) continue;
            seen.add(value);
            if (util.types.isProxy(value)) continue;
            pending.push(Object.getPrototypeOf(value));
            for (const key of Reflect.ownKeys(value)) {
                const property = Reflect.getOwnPropertyDescriptor(value, key);
                if (property === undefined) continue;
                if ('value' in property) pending.push(property.value); else pending.push(property.get, property.set);
            }
        }
        return seen;
    };
    const second = reached([blanks[1], blanks[1].document]);
    const both = new Set([...reached([blanks[0], blanks[0].document])].filter((value) => second.has(value)));
    const implementations = Object.values(require.cache).map((module) => module.exports?.implementation).filter((value) => typeof value === 'function');
    // (Data properties, and Buffer, which jsdom's Blob and File hold: a global that is an
    // accessor is made when first read.)
    const globals = Reflect.ownKeys(globalThis).map((key) => Object.getOwnPropertyDescriptor(globalThis, key))
        .filter((property) => 'value' in property && typeof property.value === 'function').map((property) => property.value);
    globals.push(Buffer);
    const iterators = [[][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ''[Symbol.iterator](), /a/[Symbol.matchAll]('')];
    const unnamed = [...iterators.map((iterator) => Object.getPrototypeOf(iterator)), function* () {}, async function () {}, async function* () {}];
    const selectorBuiltIns = vm.runInContext('globalThis', compiler);
    shared.push(...reached([...implementations, ...globals, ...unnamed, selectorBuiltIns], both), documentNames);
    for (const value of shared) sharedRecords.push(record(value));
    for (const blank of blanks.splice(0)) blank.close();
}

// An object's shape, to be compared: its prototype, whether it can be extended, and per own
// property its key, its value or getter, its setter and its attributes.
function record(value) {
    const fields = [Object.getPrototypeOf(value), Object.isExtensible(value)];
    for (const key of Reflect.ownKeys(value)) {
        const property = Reflect.getOwnPropertyDescriptor(value, key);
        fields.push(key, 'value' in property ? property.value : property.get, property.set, attributes(property));
    }
    return fields;
}

function attributes(property) {
    return (property.writable ? 1 : 0) | (property.enumerable ? 2 : 0) | (property.configurable ? 4 : 0);
}

// Whether `value` still has the shape `record` gave (made as it compares: the check runs
// before every run a host serves).
function unchanged(value, fields) {
    if (Object.getPrototypeOf(value) !== fields[0] || Object.isExtensible(value) !== fields[1]) return false;
    const keys = Reflect.ownKeys(value);
    if (keys.length * 4 + 2 !== fields.length) return false;
    for (let index = 0, at = 2; index < keys.length; index++, at += 4) {
        const property = Reflect.getOwnPropertyDescriptor(value, keys[index]);
        if (fields[at] !== keys[index] || !Object.is(fields[at + 1], 'value' in property ? property.value : property.get) || fields[at + 2] !== property.set
            || fields[at + 3] !== attributes(property)) return false;
    }
    return true;
}

// What a page changed of what every page shares, said in a few words (`Function.prototype: call
// changed`), or null.
export function changedShared() {
    for (let index = 0; index < shared.length; index++) {
        const value = shared[index], before = sharedRecords[index];
        if (unchanged(value, before)) continue;
        const now = record(value);
        let what = 'its prototype or extensibility';
        for (let at = 2; at < Math.max(now.length, before.length); at += 4) {
            if ([0, 1, 2, 3].some((offset) => !Object.is(now[at + offset], before[at + offset]))) { what = String((now[at] ?? before[at]).toString()); break; }
        }
        return `${nameOf(value)}: ${what} changed`;
    }
    return null;
}

// A shared object as a script would name it: a function by its name, a prototype by its
// constructor's.
// (Read from property descriptors only: a getter a page put there does not run.)
function nameOf(value) {
    const own = (object, key) => {
        if (object === null || (typeof object !== 'object' && typeof object !== 'function') || util.types.isProxy(object)) return undefined;
        return Object.getOwnPropertyDescriptor(object, key)?.value;
    };
    const constructor = own(value, 'constructor'), name = own(constructor, 'name');
    if (typeof constructor === 'function' && own(constructor, 'prototype') === value && typeof name === 'string') return `${name}.prototype`;
    const named = own(value, 'name');
    if (typeof value === 'function' && typeof named === 'string' && named !== '') return named;
    return typeof value === 'function' ? 'a function every page shares' : 'an object every page shares';
}

// Runs node's queued work now (its microtasks, among them jsdom's mutation records, and its
// nextTick queue, where jsdom fires DOMContentLoaded and load). It does something only when
// called from a macrotask: within a microtask V8 runs no other.
export const runQueued = () => process._tickCallback();

// MARK: - jsdom's time

// node's own setImmediate, for the page host's tasks: after `keepTime`, the global one is jsdom's.
export const nextTask = globalThis.setImmediate;

// Runs `work` in a task of its own (a setImmediate callback): node runs its queued work
// synchronously (runQueued) only from a task, never from within a microtask, where everything
// after an `await` runs.
export const inTask = (work) => new Promise((resolve, reject) => nextTask(() => { try { resolve(work()); } catch (error) { reject(error); } }));

// jsdom reads node's clock (an event's `timeStamp`, a document's `lastModified`, a File's
// `lastModified`) and puts its own later work on node's timers (a details element's toggle
// event, a postMessage's message, a FileReader's events, a link's navigation). Both go through the
// page host from here: `clock()` is the time node's Date gives, and `tasks.schedule(callback,
// delay)` takes each piece of later work (giving a handle for `tasks.cancel`), so that no page
// hears the real clock and a page's work runs in its own turns, under the watchdog. (The page
// host itself, and node's internals, use neither.)
export function keepTime(clock, tasks) {
    windowMade = tasks.window;
    const RealDate = Date;
    const { clearTimeout: clearNodeTimeout, clearImmediate: clearNodeImmediate, clearInterval: clearNodeInterval } = globalThis;
    function HostDate(...args) {
        if (new.target === undefined) return new RealDate(clock()).toString();
        return Reflect.construct(RealDate, args.length === 0 ? [clock()] : args, new.target);
    }
    HostDate.prototype = RealDate.prototype;
    HostDate.now = () => clock();
    HostDate.parse = RealDate.parse;
    HostDate.UTC = RealDate.UTC;
    const later = (callback, delay, args) => tasks.schedule(() => callback(...args), Number(delay) || 0);
    const repeating = (callback, delay, args) => {
        const handle = { current: null };
        const again = () => { handle.current = tasks.schedule(again, Number(delay) || 0); callback(...args); };
        handle.current = tasks.schedule(again, Number(delay) || 0);
        return handle;
    };
    // A handle that is not one of these (a node timer made before) goes to node's own clear.
    const cancel = (clearNode) => (handle) => {
        if (handles.has(handle)) tasks.cancel('current' in handle ? handle.current : handle); else clearNode(handle);
    };
    const handles = new WeakSet();
    const made = (handle) => { handles.add(handle); return handle; };
    Object.assign(globalThis, {
        Date: HostDate,
        setTimeout: (callback, delay, ...args) => made(later(callback, delay, args)),
        setImmediate: (callback, ...args) => made(later(callback, 0, args)),
        setInterval: (callback, delay, ...args) => made(repeating(callback, delay, args)),
        clearTimeout: cancel(clearNodeTimeout),
        clearImmediate: cancel(clearNodeImmediate),
        clearInterval: cancel(clearNodeInterval),
    });
}
