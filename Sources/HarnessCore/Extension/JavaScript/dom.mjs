// The pages' DOM: jsdom, as Debian packages it (node-jsdom, in /usr/share/nodejs, which node
// searches only when NODE_PATH names it: the page host is started so). PROTOCOL.md, section 15.
//
// Loaded once per page host. Three things are done before jsdom is, so that the host can keep
// node's --disallow-code-generation-from-strings:
// - jsdom's selector engine (nwsapi) compiles each selector with `Function(...)`: it is loaded
//   into a context of its own that may compile strings, with nothing in its globals, and handed
//   to jsdom through require's cache;
// - jsdom makes its window's context with `vm.createContext(window)`, which would compile strings
//   whatever node's flag says: a context made with no options gets code from strings off;
// - Debian's jsdom 20.0.3 calls `NodeFilter.convert(globalObject, value)` on a generated module
//   that takes `(value, options)`, so every TreeWalker and NodeIterator filter throws: the export
//   is given the arguments its caller passes.

import fs from 'node:fs';
import vm from 'node:vm';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// Why jsdom cannot be had here, or null once it is loaded.
export let unavailable = null;
let JSDOM = null, VirtualConsole = null;
try {
    const selectors = require.resolve('nwsapi');
    const compiler = vm.createContext(Object.create(null), { name: 'selectors', codeGeneration: { strings: true, wasm: false } });
    vm.runInContext('globalThis.module = { exports: {} }; globalThis.exports = module.exports;', compiler);
    vm.runInContext(fs.readFileSync(selectors, 'utf8'), compiler, { filename: selectors });
    const factory = vm.runInContext('module.exports', compiler);
    vm.runInContext('delete globalThis.module; delete globalThis.exports;', compiler);
    require.cache[selectors] = { id: selectors, filename: selectors, loaded: true, exports: factory, children: [], paths: [] };

    const createContext = vm.createContext;
    vm.createContext = (object, options) => createContext(object, options ?? { codeGeneration: { strings: false, wasm: false } });

    ({ JSDOM, VirtualConsole } = require('jsdom'));
    const nodeFilter = require('jsdom/lib/jsdom/living/generated/NodeFilter.js');
    const convert = nodeFilter.convert;
    if (convert.length === 1) nodeFilter.convert = (globalObject, value, options) => convert(value, options);
} catch (error) {
    unavailable = `jsdom cannot be loaded (${String(error.message).split('\n')[0]}): install it with apt-get install node-jsdom`;
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
if (unavailable === null) {
    const interfaces = fs.readFileSync(require.resolve('jsdom/lib/jsdom/living/interfaces.js'), 'utf8');
    for (const [, name] of interfaces.matchAll(/^ {2}(\w+): require\(/gm)) domNames.push(name);
    const blank = openDocument(plainPage, 'about:blank', () => {});
    for (const name of ['HTMLDocument', 'Option', 'Image', 'Audio', ...Object.getOwnPropertyNames(blank)]) if (!domNames.includes(name)) domNames.push(name);
    blank.close();
}

// What a page's realm reads from its document's window: every name jsdom's window has (its
// interfaces, its members), made once per host as accessors on the prototype of every page
// realm's sandbox, each reading the window of the sandbox it is read through. A realm's own
// globals, its builtins and what pages-realm.mjs defines, come first. A window's function is
// bound to it, so that `window.getSelection()` called on the realm's global works.
// (A context's global asks its sandbox first, so the names every realm has built in, `Object`,
// `Function`, `Array` and the rest, are left out: a page's are its own.)
const windows = new WeakMap();
const documentNames = Object.create(null);
const builtIn = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', vm.createContext(Object.create(null))));
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

// A context for a page's scripts (named `name`, making no code from strings), and `attach`,
// which gives it its document's window. The global object's names fall back to its sandbox's,
// prototype and all: a sandbox of node's realm (whose Object.prototype has constructor, that
// realm's Object) would hand scripts that realm's Function through globalThis.constructor. Its
// prototype is the document's names only, whose own prototype is null.
export function pageContext(name) {
    const sandbox = Object.create(documentNames);
    const context = vm.createContext(sandbox, { name, codeGeneration: { strings: false, wasm: false } });
    return { context, attach: (window) => { windows.set(sandbox, window); } };
}

// Runs node's queued work now (its microtasks, among them jsdom's mutation records, and its
// nextTick queue, where jsdom fires DOMContentLoaded and load). It does something only when
// called from a macrotask: within a microtask V8 runs no other.
export const runQueued = () => process._tickCallback();
