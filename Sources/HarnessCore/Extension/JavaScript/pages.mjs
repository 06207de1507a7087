// The harness's JavaScript runtime for an extension's own pages (PROTOCOL.md, section 15): one
// node process per run holds every page the extension has in Safari, each in a realm of its
// own: a tab's page with the content scripts the manifest matches to its address, and the
// popup's page while it is open. A page loads afresh (a new realm) each time its tab loads, and
// is gone when its tab closes. The harness sends one frame per thing that happens and reads one
// frame back with what the pages did; like the background's runtime, it owns the event loop:
// scripts run in the turn an input begins, their microtasks drain before the turn ends, and the
// clock and the random numbers come from the frames. What a page's scripts see is
// pages-realm.mjs, made in each page's realm.
//
// node --experimental-vm-modules --no-warnings --disallow-code-generation-from-strings pages.mjs --extension FOLDER [--watchdog MS] [--seed N]
//
// (PageHost.Input and PageHost.Output in PageHost+Wire.swift are these frames' one codec.)
// In:  {"now": MS, "utcOffsetMinutes": N (left out when 0), "input": {"type": "load", "tab", "url", "visible", "appearance", "nativeDark"?, "storage"?}
//       | {"type": "close", "tab"} | {"type": "show", "tab", "visible"} | {"type": "appearance", "appearance"}
//       | {"type": "nativeDark", "tab", "nativeDark"}
//       | {"type": "answer", "id", "answer"?} | {"type": "message", "tab" | "popup": true, "id", "message"}
//       | {"type": "openPopup", "tab", "appearance", "tabs": [{"id", "url", "windowId", "active"}], "windowId", "storage"?}
//       | {"type": "storageChanged", "storage", "area", "changes"}
//       | {"type": "tabs", "tabs": [...]} | {"type": "closePopup", "hide"} | {"type": "click", "element"} | {"type": "choose", "element", "value"}
//       | {"type": "portMessage", "port", "message"} | {"type": "portDisconnected", "port", "error"?}
//       | {"type": "timer", "page", "timer"}}
// Out: {"outputs": [{"type": "sendMessage", "id", "tab" | "popup": true, "message"}
//       | {"type": "answer", "id", "answer"?} | {"type": "page", "tab", "state"}
//       | {"type": "log", "page", "level", "text", "at"?} | {"type": "setTimer", "page", "timer", "at"}
//       | {"type": "cancelTimer", "page", "timer"} | {"type": "connect", "port", "name", "tab" | "popup": true}
//       | {"type": "portPost", "port", "message"} | {"type": "portDisconnect", "port"}
//       | {"type": "storageChanged", "tab" | "popup": true, "area", "changes"}]}

process.env.TZ = 'UTC';

import path from 'node:path';
import util from 'node:util';
import vm from 'node:vm';
import {
    option, write, frames, readIn, place, describe, isTimeout, linkModules, realmModule, url as parseURL, popupOf,
} from './runtime-common.mjs';
import * as storage from './storage-areas.mjs';
import { matchesPattern } from './realm-common.mjs';
const folder = path.resolve(option('extension', '.'));
const watchdog = Number(option('watchdog', '2000'));
const seed = String(option('seed', '0'));
// The platform Safari runs on, as a page's navigator says it.
const platform = option('platform', 'ios') === 'macos' ? 'macos' : 'ios';

// MARK: - What the pages did in this input

let outputs = [];
// The page whose turn runs: a rejection nobody handled is its.
let current = null;

function log(page, level, text, at) {
    const output = { type: 'log', page, level, text: String(text) };
    if (at) output.at = String(at);
    outputs.push(output);
}

function uncaught(page, prefix, value) {
    const described = describe(value);
    log(page, 'error', `${prefix} ${described.text}`, place(described.stack));
}

process.on('unhandledRejection', (reason) => uncaught(current?.name ?? 'pages', 'Uncaught (in promise)', reason));

// MARK: - The extension

const read = (file) => readIn(folder, file);

const manifest = JSON.parse(read('manifest.json'));
const safariID = manifest.browser_specific_settings?.safari?.id;
const extensionID = typeof safariID === 'string' ? safariID : 'extension';
const popupFile = popupOf(manifest);
// The default locale's messages (_locales/LOCALE/messages.json), as text for i18n.getMessage.
let localeMessages = '{}';
if (typeof manifest.default_locale === 'string') {
    try { localeMessages = read(path.posix.join('_locales', manifest.default_locale, 'messages.json')); } catch {}
}

// The content scripts for an address, in the manifest's order, by when they run.
function contentScripts(url) {
    const scripts = { start: [], end: [] };
    for (const entry of manifest.content_scripts ?? []) {
        if (!(entry.matches ?? []).some((pattern) => matchesPattern(pattern, url))) continue;
        if ((entry.exclude_matches ?? []).some((pattern) => matchesPattern(pattern, url))) continue;
        for (const file of entry.js ?? []) (entry.run_at === 'document_start' ? scripts.start : scripts.end).push(file);
    }
    return scripts;
}

// The popup page: its head's and body's elements as trees ({tag, attributes, text, children}),
// and its scripts in document order. An inline script is refused, as MV3's content security
// policy refuses it. The parser knows void elements, raw text (script, style, textarea, title),
// comments, the five named character references and numeric ones, and closes an open option, p
// or li where HTML would; an end tag with no open element of its name is ignored.
const voidElements = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const rawText = new Set(['script', 'style', 'textarea', 'title']);
const closedBy = { option: ['option', 'optgroup'], optgroup: ['optgroup'], p: ['p', 'div', 'form', 'ul', 'ol', 'table', 'h1', 'h2', 'h3'], li: ['li'] };
const decode = (text) => text.replace(/&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos|nbsp));/g, (whole, decimal, hex, name) => {
    if (decimal !== undefined) return String.fromCodePoint(Number(decimal));
    if (hex !== undefined) return String.fromCodePoint(parseInt(hex, 16));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }[name];
});
function popupPage() {
    const html = read(popupFile);
    const base = path.posix.dirname(popupFile);
    const head = { tag: 'HEAD', children: [] }, body = { tag: 'BODY', children: [] };
    const scripts = [];
    let open = [head];
    const top = () => open[open.length - 1];
    const token = /<!--[\s\S]*?(?:-->|$)|<![^>]*>|<\/\s*([a-zA-Z][a-zA-Z0-9-]*)[^>]*>|<([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</g;
    for (let found; (found = token.exec(html)) !== null;) {
        const [whole, closing, opening, attributeText] = found;
        if (whole.startsWith('<!')) continue;
        if (closing !== undefined) {
            const name = closing.toUpperCase();
            if (name === 'HEAD') open = [body];
            const at = open.findLastIndex((element) => element.tag === name);
            if (at > 0) open.length = at;
            continue;
        }
        if (opening === undefined) {
            if (whole.trim() !== '') (top().text ??= []).push(decode(whole));
            continue;
        }
        const name = opening.toLowerCase();
        if (name === 'html') continue;
        if (name === 'head' || name === 'body') { open = [name === 'head' ? head : body]; continue; }
        const attributes = {};
        for (const attribute of attributeText.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
            attributes[attribute[1].toLowerCase()] ??= decode(attribute[2] ?? attribute[3] ?? attribute[4] ?? '');
        }
        let text = '';
        if (rawText.has(name)) {
            const close = html.toLowerCase().indexOf('</' + name, token.lastIndex);
            text = html.slice(token.lastIndex, close < 0 ? html.length : close);
            token.lastIndex = close < 0 ? html.length : html.indexOf('>', close) + 1 || html.length;
        }
        if (name === 'script') {
            if (attributes.src !== undefined) scripts.push({ file: path.posix.join(base, attributes.src), module: attributes.type === 'module' });
            else if (text.trim() !== '') scripts.push({ refused: true });
            continue;
        }
        // Content after the head's own elements starts the body, as a parser does.
        if (open[0] === head && !['meta', 'link', 'title', 'style', 'base'].includes(name)) open = [body];
        while (open.length > 1 && (closedBy[top().tag.toLowerCase()] ?? []).includes(name)) open.pop();
        const element = { tag: name.toUpperCase(), attributes, text: rawText.has(name) ? [name === 'textarea' || name === 'title' ? decode(text) : text] : [], children: [] };
        top().children.push(element);
        if (!voidElements.has(name) && !rawText.has(name) && !/\/\s*$/.test(attributeText)) open.push(element);
    }
    const finish = (element) => ({ tag: element.tag, attributes: element.attributes, text: (element.text ?? []).join(''), children: element.children.map(finish) });
    return { head: head.children.map(finish), body: body.children.map(finish), scripts };
}

// MARK: - Extension storage (section 10)

// What pages changed in this input, to be heard by every page over the same storage and told to
// Safari: {storage, area, changes, page}.
let storageChanges = [];
// How many changes one input's pages may make: past it, the rest are not heard (the page host
// says so), as a listener that changes storage on every change would never let the input end.
const storageChangesPerInput = 1000;

// A page's storage operation, carried out at once over its profile's folder (read afresh each
// time: the background may have changed it). No yield point stops it (section 10).
function storageOperation(page, area, op, argument) {
    if (typeof page.storage !== 'string') return { error: `browser.storage.${area} is not available: the page has no extension storage here` };
    const outcome = storage.operate(storage.readArea(page.storage, area), area, op, argument, manifest);
    if (outcome.items === undefined) return outcome;
    try { storage.writeArea(page.storage, area, outcome.items); } catch (error) { return { error: `browser.storage.${area} could not be saved: ${error.message}` }; }
    if (Object.keys(outcome.changes).length > 0) storageChanges.push({ storage: page.storage, area, changes: outcome.changes, page });
    return { value: null };
}

// Every page over `folder` hears what changed (storage.onChanged); returns them.
function hearStorageChange(folder, area, changes) {
    const heard = [...pages.values()].filter((page) => page.storage === folder);
    for (const page of heard) turn(page, 'storageChanged', 0, JSON.stringify({ area, changes }));
    return heard;
}

// What the pages changed in this input: each page over that storage hears it, and Safari is
// told (for the background). A change a listener makes is heard in turn, up to the limit.
async function settleStorageChanges(touched) {
    for (let count = 0; storageChanges.length > 0; count++) {
        const { storage: folder, area, changes, page } = storageChanges.shift();
        if (count >= storageChangesPerInput) {
            log('pages', 'error', `the pages changed storage ${storageChangesPerInput} times in one input: the rest of their changes are not heard`);
            storageChanges = [];
            break;
        }
        const output = { type: 'storageChanged', area, changes };
        if (page.tab === undefined) output.popup = true; else output.tab = page.tab;
        outputs.push(output);
        for (const heard of hearStorageChange(folder, area, changes)) if (!touched.includes(heard)) touched.push(heard);
        await settle();
    }
}

// MARK: - The web's storage: localStorage by origin for the whole run, sessionStorage by tab
// until it closes (the popup's until it closes), each profile's its own (its pages are over
// its own extension storage folder, and a put-away profile's tab is named PROFILE/TAB).

const localStores = new Map(), sessionStores = new Map();

function webStorageOperation(page, url, kind, op, key, value) {
    let stores = localStores, name;
    if (kind === 'session') { stores = sessionStores; name = page.name; } else {
        try { name = new URL(url).origin; } catch { name = String(url); }
        name = `${page.storage ?? ''} ${name}`;
    }
    if (!stores.has(name)) stores.set(name, new Map());
    const store = stores.get(name);
    switch (op) {
    case 'get': return store.has(key) ? JSON.stringify(store.get(key)) : 'null';
    case 'set': store.set(key, value); return 'null';
    case 'remove': store.delete(key); return 'null';
    case 'clear': store.clear(); return 'null';
    case 'keys': return JSON.stringify([...store.keys()]);
    default: return 'null';
    }
}

// MARK: - A page: its realm, its scripts, its state

const pages = new Map();
// Each page message still to be answered, by number: the page that sent it.
const asked = new Map();
// Everything a script can reach is made in its page's realm (pages-realm.mjs): what crosses
// from this file is strings and numbers (the page's setup is JSON text), and the host's
// functions are called only through the page's own.
const turnScript = new vm.Script('__pageTurn()', { filename: 'pages:turn' });

let nextMessage = 1;
let loads = 0;
// Each port a page opened, by number: the page (the load of it) that holds it.
let nextPort = 1;
const portPages = new Map();
// While the popup is open: the tabs its tabs.query reads ({id, url, windowId, active}), as
// Safari has them now, and the window it opened in.
let popupTabs = null;
let popupWindow = 1;
// A tab as the popup's tabs.query gives it: its number (tabs.Tab.id) when Safari gave one, else
// its name.
const listedTabs = (tabs) => (tabs ?? []).map((tab) => ({
    id: Number.isSafeInteger(tab.number) ? tab.number : String(tab.id), url: String(tab.url), windowId: Number(tab.windowId), active: tab.active === true,
}));

// Safari's clock, and its local time's offset from UTC in minutes, as the frame gives them.
let now = 0;
let utcOffset = 0;

// A page, loaded: its realm, then its scripts in the order a browser runs them: those that run
// as the page is parsed (`start`: a content script at document_start, a popup's classic
// scripts), its module scripts (deferred to the end of parsing), DOMContentLoaded, and then the
// content scripts at document_end. `tree` holds the page's own elements ({head, body}).
async function load(name, tab, url, visible, appearance, scripts, tree = { head: [], body: [] }, nativeDark = false, storageFolder = null) {
    // The page's random numbers: from the run's seed, the page and how many pages loaded before it.
    const seedText = `${seed}/${name}/${++loads}`;
    // The global object's names fall back to its sandbox's, prototype and all: a sandbox of this
    // realm (whose Object.prototype has constructor, this realm's Object) would hand scripts
    // this realm's Function through globalThis.constructor. It has no prototype.
    const context = vm.createContext(Object.create(null), { name, microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const page = { name, key: `${name}#${loads}`, tab, context, scripts: null, lastState: null, storage: storageFolder };
    const host = {
        now: () => Number(now),
        utcOffset: () => utcOffset,
        url: (text) => parseURL(text),
        platform: () => platform,
        seed: () => seedText,
        messages: () => localeMessages,
        storage: (area, op, text) => JSON.stringify(storageOperation(page, String(area), String(op), JSON.parse(String(text)))),
        webStorage: (kind, op, key, value) => webStorageOperation(page, url, String(kind), String(op), String(key), String(value)),
        // The one question about an object of a page's realm: whether it is a proxy (whose traps
        // are a script's code), asked before its properties are read.
        isProxy: (value) => util.types.isProxy(value),
        log: (level, text, stack) => log(name, String(level), String(text), stack ? place(stack) : undefined),
        sendMessage: (text) => {
            const id = nextMessage++;
            const output = { type: 'sendMessage', id, message: JSON.parse(String(text)) };
            if (tab === undefined) output.popup = true; else output.tab = tab;
            outputs.push(output);
            asked.set(id, page);
            return id;
        },
        setTimer: (id, at) => {
            if (Number.isSafeInteger(id) && Number.isSafeInteger(at)) outputs.push({ type: 'setTimer', page: page.key, timer: id, at });
        },
        cancelTimer: (id) => { if (Number.isSafeInteger(id)) outputs.push({ type: 'cancelTimer', page: page.key, timer: id }); },
        connect: (name) => {
            const port = nextPort++;
            const output = { type: 'connect', port, name: String(name) };
            if (tab === undefined) output.popup = true; else output.tab = tab;
            outputs.push(output);
            portPages.set(port, page);
            return port;
        },
        portPost: (port, text) => {
            if (portPages.get(port) === page) outputs.push({ type: 'portPost', port, message: JSON.parse(String(text)) });
        },
        portDisconnect: (port) => {
            if (portPages.get(port) !== page) return;
            portPages.delete(port);
            outputs.push({ type: 'portDisconnect', port });
        },
        answer: (id, text, unreachable) => {
            const output = { type: 'answer', id };
            if (text !== '') output.answer = JSON.parse(String(text));
            if (unreachable === true) output.unreachable = true;
            outputs.push(output);
        },
    };
    // The popup's tabs.query reads the tabs as Safari last handed them over.
    if (tab === undefined) host.tabs = () => JSON.stringify({ window: popupWindow, tabs: popupTabs });
    const { install } = realmModule(context, 'pages-realm.mjs', 'pages:');
    page.scripts = install(host, JSON.stringify({ url: String(url), visible, appearance: String(appearance), nativeDark: nativeDark === true,
                                                                       head: tree.head, body: tree.body, popup: tab === undefined, extensionID,
                                                                       manifest: JSON.stringify(manifest) }));
    pages.set(name, page);
    const run = (file) => {
        let source;
        try { source = read(file); } catch (error) { log(name, 'error', `Uncaught Error: ${file} cannot be read: ${error.message}`, String(file)); return; }
        evaluate(page, () => new vm.Script(source, { filename: String(file) }).runInContext(context, evaluation));
    };
    for (const file of scripts.start) run(file);
    if ((scripts.modules ?? []).length > 0) {
        const importModuleDynamically = () => { throw page.scripts.refusal('import()'); };
        for (const { module, error, place: where } of await linkModules(scripts.modules, { context, read, importModuleDynamically })) {
            if (error !== undefined) {
                const described = describe(error);
                log(name, 'error', `Uncaught ${described.text}`, where ?? place(described.stack));
            } else await runModule(page, module);
        }
    }
    turn(page, 'ready', 0, '');
    for (const file of scripts.end) run(file);
    return page;
}

// A module script runs its body under the watchdog; what it awaits at its top level settles in
// the turns that bring it (DOMContentLoaded does not wait for it, as in a browser). What it
// throws, at once or after an await, is the page's uncaught error.
async function runModule(page, module) {
    current = page;
    let settled = false;
    module.evaluate({ timeout: watchdog }).then(() => { settled = true; }, (error) => {
        settled = true;
        if (isTimeout(error)) log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`);
        else uncaught(page.name, 'Uncaught', error);
    });
    // The body's own microtasks drain in its realm; node settles the evaluation's promise after.
    for (let round = 0; !settled && round < 3; round++) {
        try { drain.runInContext(page.context, evaluation); } catch (error) {
            if (isTimeout(error)) log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`);
        }
        await settle();
    }
}

// How a page's code runs: under the watchdog, and without node's decoration of what it throws
// (node reads a thrown value's stack to add the line it came from, after the watchdog stopped:
// a getter or a proxy's trap there would run a script's code outside it).
const evaluation = { timeout: watchdog, displayErrors: false };

// Runs `work` in the page, under the watchdog, and lets its microtasks drain.
function evaluate(page, work) {
    current = page;
    try { work(); } catch (error) {
        if (isTimeout(error)) { log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`); return; }
        uncaught(page.name, 'Uncaught', error);
        // The microtasks the script queued before it threw still run now, as a browser runs
        // them after a script that throws: node drains them only after an evaluation that ends.
        try { drain.runInContext(page.context, evaluation); } catch (later) {
            if (isTimeout(later)) log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`);
            else uncaught(page.name, 'Uncaught', later);
        }
    }
}
const drain = new vm.Script('', { filename: 'pages:drain' });

function turn(page, kind, id, text) {
    evaluate(page, () => {
        page.scripts.post(kind, id, text);
        turnScript.runInContext(page.context, evaluation);
    });
    return page.scripts.result();
}

// A tab's page reports its state when it changed since it last did.
function reportState(page) {
    if (page.tab === undefined) return;
    const state = turn(page, 'state', 0, '');
    // A script that broke the page's own elements (a getter that throws or loops) leaves no
    // state to read: its error is said, and the page keeps the state it last reported.
    if (state === '' || state === page.lastState) return;
    page.lastState = state;
    outputs.push({ type: 'page', tab: page.tab, state: JSON.parse(state) });
}

const tabPage = (tab) => pages.get(`tab ${tab}`);

// Node hands over the rejections nobody handled once the current task is done: an input that
// runs several pages waits for that after each, so each rejection is said as its own page's.
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function handle(input) {
    switch (input.type) {
    case 'load': {
        pages.delete(`tab ${input.tab}`);
        const page = await load(`tab ${input.tab}`, input.tab, input.url, input.visible === true, input.appearance, contentScripts(input.url), undefined,
                                input.nativeDark === true, typeof input.storage === 'string' ? input.storage : null);
        return [page];
    }
    case 'close':
        pages.delete(`tab ${input.tab}`);
        sessionStores.delete(`tab ${input.tab}`);
        return [];
    case 'show': {
        const page = tabPage(input.tab);
        if (page) turn(page, 'show', 0, JSON.stringify(input));
        return page ? [page] : [];
    }
    case 'appearance': {
        const all = [...pages.values()];
        for (const page of all) {
            turn(page, 'appearance', 0, JSON.stringify(input));
            await settle();
        }
        return all;
    }
    case 'answer': {
        const page = asked.get(input.id);
        asked.delete(input.id);
        // The page that asked loaded again or closed since: the answer goes nowhere.
        if (page === undefined || pages.get(page.name) !== page) return [];
        turn(page, 'answer', input.id, JSON.stringify(input));
        return [page];
    }
    case 'nativeDark': {
        const page = tabPage(input.tab);
        if (page) turn(page, 'nativeDark', 0, JSON.stringify(input));
        return page ? [page] : [];
    }
    case 'message': {
        const page = input.popup === true ? pages.get('popup') : tabPage(input.tab);
        if (page === undefined) { outputs.push({ type: 'answer', id: input.id, unreachable: true }); return []; }
        turn(page, 'message', input.id, JSON.stringify(input));
        return [page];
    }
    case 'openPopup': {
        if (popupFile === undefined) return [];
        let setup;
        try { setup = popupPage(); } catch (error) { log('popup', 'error', `Uncaught Error: ${popupFile} cannot be read: ${error.message}`); return []; }
        const scripts = { start: [], modules: [], end: [] };
        for (const script of setup.scripts) {
            if (script.refused) log('popup', 'error', `Refused to execute an inline script in ${popupFile}: the extension's content security policy allows only its own files`);
            // A module script is deferred to the end of parsing; a classic one runs as the page
            // is parsed. Both run before DOMContentLoaded.
            else if (script.module) scripts.modules.push(script.file);
            else scripts.start.push(script.file);
        }
        popupTabs = listedTabs(input.tabs);
        popupWindow = Number(input.windowId ?? 1);
        const page = await load('popup', undefined, 'safari-web-extension://extension/' + popupFile, true, input.appearance, scripts, setup, false,
                                typeof input.storage === 'string' ? input.storage : null);
        return [page];
    }
    case 'tabs':
        // Safari's tabs changed while the popup is open.
        if (popupTabs !== null) popupTabs = listedTabs(input.tabs);
        return [];
    case 'closePopup': {
        // Closed by the user, the popup hears that it goes (visibilitychange, then pagehide);
        // what it sends then still leaves, and its answer finds no page.
        const page = pages.get('popup');
        if (page !== undefined && input.hide === true) {
            turn(page, 'hide', 0, '');
            await settle();
        }
        pages.delete('popup');
        sessionStores.delete('popup');
        popupTabs = null;
        return [];
    }
    case 'query': {
        // A scenario's check reads a page (its elements that match a selector): no script of the
        // page runs, and the page reports nothing else.
        const page = input.popup === true ? pages.get('popup') : tabPage(input.tab);
        const found = page === undefined ? '' : turn(page, 'query', 0, JSON.stringify(input));
        outputs.push({ type: 'queried', found: found === '' ? null : JSON.parse(found) });
        return [];
    }
    case 'timer': {
        // A timer of a load of a page that is gone since is dropped.
        const page = [...pages.values()].find((candidate) => candidate.key === input.page);
        if (page === undefined) return [];
        turn(page, 'timer', input.timer, '');
        return [page];
    }
    case 'portMessage': case 'portDisconnected': {
        // A port of a page that loaded again or closed since goes nowhere.
        const page = portPages.get(input.port);
        if (input.type === 'portDisconnected') portPages.delete(input.port);
        if (page === undefined || pages.get(page.name) !== page) return [];
        turn(page, input.type, input.port, JSON.stringify(input));
        return [page];
    }
    case 'storageChanged':
        // The background changed storage: the pages over it hear it.
        return hearStorageChange(String(input.storage), String(input.area), input.changes);
    case 'click': case 'choose': {
        const page = pages.get('popup');
        if (page === undefined) return [];
        const refused = turn(page, input.type, 0, JSON.stringify(input));
        const step = `popup ${input.type} ${input.element}${input.type === 'choose' ? ' ' + input.value : ''}`;
        // A control out of sight is one the user cannot reach yet (the page has not shown it):
        // nothing happens, and the trace says so. Anything else is a step the page cannot do.
        if (refused === 'hidden') log('popup', 'warn', `${step}: nothing happens, #${input.element} is hidden`);
        else if (refused !== '') log('popup', 'error', `Not done: ${step}: ${refused}`);
        return [page];
    }
    default:
        log('pages', 'error', `the page runtime does not take '${input.type}'`);
        return [];
    }
}

const incoming = frames();
for (;;) {
    const next = await incoming.next();
    if (next.done) break;
    const frame = JSON.parse(next.value);
    now = frame.now;
    utcOffset = Number.isInteger(frame.utcOffsetMinutes) ? frame.utcOffsetMinutes : 0;
    outputs = [];
    storageChanges = [];
    const touched = await handle(frame.input ?? {});
    // Rejections nobody handled are reported before the input ends.
    await settle();
    await settleStorageChanges(touched);
    for (const page of touched) if (pages.get(page.name) === page) reportState(page);
    write({ outputs });
}