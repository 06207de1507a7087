// The harness's JavaScript runtime for an extension's own pages (PROTOCOL.md, section 15): one
// node process (kept between runs: `reset`) holds every page the extension has in Safari, each in a realm of its
// own: a tab's page with the content scripts the manifest matches to its address, and the
// popup's page while it is open. A page loads afresh (a new realm) each time its tab loads, and
// is gone when its tab closes. The harness sends one frame per thing that happens and reads one
// frame back with what the pages did; like the background's runtime, it owns the event loop:
// scripts run in the turn an input begins, their microtasks drain before the turn ends, and the
// clock and the random numbers come from the frames. What a page's scripts see is
// pages-realm.mjs, made in each page's realm.
//
// NODE_PATH=/usr/share/nodejs node --experimental-vm-modules --no-warnings --disallow-code-generation-from-strings pages.mjs --extension FOLDER [--watchdog MS] [--seed N] [--platform ios|macos]
//
// (PageHost.Input and PageHost.Output in PageHost+Wire.swift are these frames' one codec.)
// In:  {"now": MS, "utcOffsetMinutes": N (left out when 0), "input": {"type": "load", "tab", "url", "visible", "appearance", "nativeDark"?, "storage"?, "html"?, "version"?, "extension"?}
//       | {"type": "close", "tab"} | {"type": "show", "tab", "visible"} | {"type": "appearance", "appearance"}
//       | {"type": "nativeDark", "tab", "nativeDark"}
//       | {"type": "answer", "id", "answer"?} | {"type": "message", "tab" | "popup": true, "id", "message"}
//       | {"type": "openPopup", "tab", "appearance", "tabs": [{"id", "url", "windowId", "active"}], "windowId", "storage"?, "version"?, "extension"?, "page"?}
//       | {"type": "storageChanged", "storage", "area", "changes"}
//       | {"type": "permissionsChanged", "storage", "change": "added" | "removed", "permissions", "origins"}
//       | {"type": "action", "storage", "action": {"default"?, "tabs"?}} | {"type": "actionClicked", "storage", "tab"}
//       | {"type": "commandPressed", "storage", "name", "tab"?}
//       | {"type": "alarms", "storage", "alarms": {NAME: {"at", "period"?}}} | {"type": "alarmFired", "storage", "name"}
//       | {"type": "menus", "storage", "items"} | {"type": "menuClicked", "storage", "event" (the background's menuClicked), "tabId"}
//       | {"type": "windowFocus", "storage", "windowId"}
//       | {"type": "tabEvent", "storage", "event" (the background's tabCreated, tabUpdated, tabActivated, tabClosed or webNavigation), "tabId", "windowId"}
//       | {"type": "tabs", "tabs": [...], "frontWindow"?, "focusedWindow"? (-1: none)} | {"type": "closePopup", "hide"}
//       | {"type": "click", "tab" | "popup": true, "element"} | {"type": "choose", "tab" | "popup": true, "element", "value"}
//       | {"type": "portMessage", "port", "message"} | {"type": "portDisconnected", "port", "error"?}
//       | {"type": "portOpened", "tab", "port", "name"}
//       | {"type": "timer", "page", "timer"} | {"type": "reset", "extension", "seed", "platform"}
//       | {"type": "inject", "tab", "request", "method": "executeScript" | "insertCSS" | "removeCSS", "func" and "args" | "files" | "code"}
//       | {"type": "permissionsAnswered", "id", "granted"} | {"type": "tabsAnswered", "id", "tab"? (as "tabs" lists them), "error"?}}
// Out: {"outputs": [{"type": "sendMessage", "id", "tab" | "popup": true, "message"}
//       (sendMessage: "userGesture": true when an extension page sent it in the user's click or pick)
//       | {"type": "answer", "id", "answer"?} | {"type": "page", "tab", "state"}
//       | {"type": "log", "page", "level", "text", "at"?} | {"type": "setTimer", "page", "timer", "at"}
//       | {"type": "cancelTimer", "page", "timer"} | {"type": "connect", "port", "name", "tab" | "popup": true}
//       | {"type": "portPost", "port", "message"} | {"type": "portDisconnect", "port", "unheard"?: true}
//       | {"type": "storageChanged", "tab" | "popup": true, "area", "changes"}
//       | {"type": "injected", "request", "results": [{"frameId", "result"?, "error"?}] | "error"}
//       | {"type": "openOptionsPage", "tab" | "popup": true} | {"type": "requestPermissions", "id", "tab" | "popup": true, "permissions", "origins"}
//       | {"type": "messageTab", "id", "tab" | "popup": true, "to", "message"}
//       | {"type": "permissionsRemoved", "tab" | "popup": true, "permissions", "origins"}
//       | {"type": "actionSet", "tab" | "popup": true, "for"?, "property", "value"}
//       | {"type": "setAlarm", "tab" | "popup": true, "at", "name", "period"?} | {"type": "clearAlarm", "tab" | "popup": true, "name"}
//       | {"type": "menuChanged", "tab" | "popup": true, "op": "create" | "update", "item"} | {"type": "menuChanged", ..., "op": "remove", "id"}
//       | {"type": "menuChanged", ..., "op": "removeAll"}
//       | {"type": "tabsCall", "id", "tab" | "popup": true, "call": {"method": "create" | "update" | "reload" | "remove", ...}}]}

process.env.TZ = 'UTC';

import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import vm from 'node:vm';
import {
    option, write, frames, readIn, place, describe, isTimeout, linkModules, realmModule, url as parseURL, popupOf,
} from './runtime-common.mjs';
import * as storage from './storage-areas.mjs';
import { matchesPattern } from './realm-common.mjs';
import { changedShared, inTask, keepTime, loadDOM, nextTask, openDocument, pageContext, plainPage, runQueued } from './dom.mjs';
// Without jsdom no page can be had: the host says why and ends (the harness checks first).
const unavailable = loadDOM();
if (unavailable !== null) {
    process.stderr.write(unavailable + '\n');
    process.exit(3);
}
const watchdog = Number(option('watchdog', '2000'));
// (These three are given again by each run that takes the host: `reset`.)
let seed = String(option('seed', '0'));
// The platform Safari runs on, as a page's navigator says it.
let platform = option('platform', 'ios') === 'macos' ? 'macos' : 'ios';

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

// The extension, read from its folder when the host starts and again when a run takes it
// (`runFolder`), or when a page loads from the files an update installed.
let runFolder, folder, manifest, extensionID, popupFile, localeMessages;
// The version Safari installed the extension's files as, when an update gave them another one.
let installedVersion;
const read = (file) => readIn(folder, file);
function readExtension(given) {
    folder = path.resolve(given);
    manifest = JSON.parse(read('manifest.json'));
    const safariID = manifest.browser_specific_settings?.safari?.id;
    extensionID = typeof safariID === 'string' ? safariID : 'extension';
    popupFile = popupOf(manifest);
    // The default locale's messages (_locales/LOCALE/messages.json), as text for i18n.getMessage.
    localeMessages = '{}';
    if (typeof manifest.default_locale === 'string') {
        try { localeMessages = read(path.posix.join('_locales', manifest.default_locale, 'messages.json')); } catch {}
    }
}
readExtension(option('extension', '.'));
runFolder = folder;

// The files Safari installed, as a page's load or the popup's opening says: their version when
// not the manifest's, and the folder an update installed when not the run's. The pages already
// loaded keep what they ran.
function takeInstalled(input) {
    installedVersion = typeof input.version === 'string' ? input.version : undefined;
    const wanted = typeof input.extension === 'string' ? path.resolve(input.extension) : runFolder;
    if (wanted === folder) return;
    try { readExtension(wanted); } catch (error) { log('pages', 'error', `the extension in ${wanted} cannot be read: ${error.message}`); }
}

// The content scripts for an address, in the manifest's order and then those the background
// registered (`scripting.registerContentScripts`, kept in the profile's storage folder), by when
// they run, and the style sheets (`css`) of the entries that match it.
function contentScripts(url, storageFolder) {
    const scripts = { start: [], end: [], css: [] };
    const entries = [...(manifest.content_scripts ?? []),
                     ...registeredScripts(storageFolder).map((script) => ({ matches: script.matches, exclude_matches: script.excludeMatches, js: script.js,
                                                                           css: script.css, run_at: script.runAt }))];
    for (const entry of entries) {
        if (!(entry.matches ?? []).some((pattern) => matchesPattern(pattern, url))) continue;
        if ((entry.exclude_matches ?? []).some((pattern) => matchesPattern(pattern, url))) continue;
        for (const file of entry.js ?? []) (entry.run_at === 'document_start' ? scripts.start : scripts.end).push(file);
        for (const file of entry.css ?? []) scripts.css.push(file);
    }
    return scripts;
}

// The content scripts the background registered, for good and until Safari quits (runtime.mjs,
// `keep`); none without a storage folder, or from a file that is not a list.
function registeredScripts(storageFolder) {
    if (storageFolder === null) return [];
    return ['content-scripts', 'content-scripts-session'].flatMap((name) => {
        let text, scripts;
        try { text = fs.readFileSync(path.join(storageFolder, `${name}.json`), 'utf8'); } catch { return []; }
        try { scripts = JSON.parse(text); } catch {}
        if (!Array.isArray(scripts)) { log('pages', 'error', `the registered content scripts (${name}.json) cannot be read: not a list of scripts`); return []; }
        return scripts.filter((script) => script !== null && typeof script === 'object');
    });
}

// The content scripts' style sheets, applied before any script runs. WebKit injects them as
// user style sheets at the author level (its `css_origin` default), which cascade before the
// page's own sheets and are not in its DOM; jsdom has no such sheets, so each is a <style>
// element at the head's start (before the page's own, so the page's rule wins a tie), which
// the page's scripts can see. The page's state leaves them out. (jsdom orders its sheets as they
// were made, not as their elements stand: the page's own are made again after these.)
function injectStyles(page, files) {
    const texts = [];
    for (const file of files) {
        try { texts.push(read(file)); } catch (error) { log(page.name, 'error', `${file} cannot be read: ${error.message}`, String(file)); }
    }
    addStyles(page, texts, false);
    // The page's own sheets are made again after these, so that they win a tie.
    for (const style of page.window.document.querySelectorAll('style')) if (!page.sheets.has(style)) style.parentNode.insertBefore(style, style.nextSibling);
}

// Style sheets' texts put before the page's own, in order, as <style> elements; `injected`: the
// background's (insertCSS), which removeCSS may take away, where the content scripts' stay. A
// page that has run is not moved about: the page's own sheets keep their places (and what its
// scripts did to them), so a sheet added then wins a tie (jsdom orders sheets as made).
function addStyles(page, texts, injected) {
    const document = page.window.document;
    const before = [...document.querySelectorAll('style')].find((element) => !page.sheets.has(element)) ?? null;
    const added = texts.map((text) => {
        const style = document.createElement('style');
        style.textContent = text;
        if (before !== null && before.parentNode !== null) before.parentNode.insertBefore(style, before);
        else document.head.appendChild(style);
        page.sheets.set(style, { text, injected });
        return style;
    });
    page.scripts?.sheets(added);
}

// The texts of `files`, or undefined when one cannot be read: the injection `request` is then
// answered with why.
function readAll(files, request) {
    const texts = [];
    for (const file of files ?? []) {
        try { texts.push(read(file)); } catch (error) {
            outputs.push({ type: 'injected', request, error: `the file ${file} cannot be read: ${error.message}` });
            return undefined;
        }
    }
    return texts;
}

// The file of the extension an address of its own shows (`safari-web-extension://HOST/PATH`,
// as runtime.getURL gives it, or a path in the extension), else undefined: a web page.
function ownFile(url) {
    const text = String(url);
    const match = /^safari-web-extension:\/\/[^/]*\/([^?#]*)/.exec(text);
    if (match === null) return undefined;
    try { return decodeURIComponent(match[1]); } catch { return match[1]; }
}

// An extension page's scripts (the popup's, or a page of its own in a tab), in document order,
// from its document `file`: a classic script runs as the page is parsed, a module one is
// deferred to the end of parsing; both run before DOMContentLoaded. An inline script is
// refused, as MV3's content security policy refuses it.
function ownPageScripts(document, file) {
    const base = path.posix.dirname(file);
    const scripts = { start: [], modules: [], end: [], refused: 0 };
    for (const element of document.querySelectorAll('script')) {
        const source = element.getAttribute('src');
        if (source === null) { if (element.textContent.trim() !== '') scripts.refused += 1; continue; }
        const file = path.posix.normalize(path.posix.join(base, source)).replace(/^\.\//, '');
        if (element.getAttribute('type') === 'module') scripts.modules.push(file); else scripts.start.push(file);
    }
    return scripts;
}

// MARK: - Extension storage (section 10)

// What pages changed in this input, to be heard by every page over the same storage and told to
// Safari: {storage, area, changes, page}.
let storageChanges = [];
// How many things the pages may hear from each other in one input (a change of storage, a
// message, an answer): past it, the rest are not heard (the page host says so), as pages that
// answer each other's changes and messages without end would never let the input end.
const heardPerInput = 1000;

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
// The extension's own pages over the storage folder `folder` (the popup, and tabs showing its
// pages, of that profile).
const ownPagesOver = (folder) => [...pages.values()].filter((page) => page.extensionPage && page.storage === String(folder));

// What Safari tells the extension's own pages over `folder`: each hears it in a turn of `kind`,
// with `value` as its JSON. Returns them.
async function hearOwn(folder, kind, value, except = () => false) {
    const heard = ownPagesOver(folder).filter((page) => !except(page));
    for (const page of heard) await turn(page, kind, 0, JSON.stringify(value));
    return heard;
}

async function hearStorageChange(folder, area, changes) {
    const heard = [...pages.values()].filter((page) => page.storage === folder);
    for (const page of heard) await turn(page, 'storageChanged', 0, JSON.stringify({ area, changes }));
    return heard;
}

// A change a page made in this input: each page over that storage hears it, and Safari is told
// (for the background). Returns the pages that heard it.
async function settleStorageChange({ storage: folder, area, changes, page }) {
    const output = { type: 'storageChanged', area, changes };
    if (page.tab === undefined) output.popup = true; else output.tab = page.tab;
    outputs.push(output);
    return await hearStorageChange(folder, area, changes);
}

// What Safari keeps for the extension beside its storage that its pages read and change: what the
// user granted (`permissions`), storage.session's access level (`session-access`), the
// registered content scripts (`content-scripts`, `content-scripts-session`) and the network
// rules (`net-request-dynamic`, `-session`, `-enabled`), as runtime.mjs keeps them.
const pageKept = ['permissions', 'session-access', 'content-scripts', 'content-scripts-session', 'net-request-dynamic', 'net-request-session', 'net-request-enabled'];

// MARK: - Messages between pages

// A page's runtime.sendMessage reaches the extension's own pages too, but the one that sent it,
// as WebKit sends it to every process of the extension's main world that listens
// (`WebExtensionContext::runtimeSendMessage`): the popup, and each tab that shows one of its
// pages, of the sender's profile. The first answer that is not nothing, the background's or a
// page's, is the one the sender gets (an answer of nothing leaves the others their chance); what
// comes after it goes nowhere.
let pageMessages = [];
let pageReplies = [];
// Each message a page heard from another, by the number it heard it under: the number it was
// sent under, and the page that heard it.
const pageAsks = new Map();
let nextPageAsk = 1;
// The messages Safari answered with nothing (no background answered) while a page that heard
// them might still answer: the sender hears nothing once none of them can.
const safariSaidNothing = new Set();

// A page that heard message `id` answered nothing, or went: if Safari answered nothing too and
// no other page may still answer, the sender gets nothing.
function heardNothing(id) {
    if (!safariSaidNothing.has(id) || [...pageAsks.values()].some((asking) => asking.id === id)) return;
    safariSaidNothing.delete(id);
    pageReplies.push({ id, answer: undefined });
}

// The sender as the pages that hear it read it: the extension, the page's address, and its tab
// as Safari handed it over, if it is in one.
function senderOf(page) {
    const sender = { id: extensionID, url: page.url };
    try { sender.origin = new URL(page.url).origin; } catch {}
    if (page.tab === undefined) return sender;
    const listed = safariTabs.find((candidate) => candidate.name === String(page.tab).split('/').pop());
    if (listed !== undefined) sender.tab = unlisted(listed);
    sender.frameId = 0;
    return sender;
}

// An answer a page gave another's message, for the page that asked (if it still waits).
async function settleReply(reply) {
    const page = waitingPage(asked, reply.id);
    if (page === undefined) return [];
    await turn(page, 'answer', reply.id, JSON.stringify(reply.answer === undefined ? {} : { answer: reply.answer }));
    return [page];
}

// A message a page sent: each other page of the extension's own over its storage hears it.
async function settlePageMessage({ from, id, message }) {
    const sender = senderOf(from);
    const hearing = ownPagesOver(from.storage).filter((page) => page !== from);
    for (const page of hearing) {
        if (pages.get(page.name) !== page) continue;
        const number = nextPageAsk++;
        pageAsks.set(number, { id, page });
        await turn(page, 'pageMessage', number, JSON.stringify({ message, sender }));
    }
    return hearing;
}

// MARK: - Ports between pages

// An extension page's tabs.connect to a tab: a port whose two ends are both pages of the host
// (the page's, and the tab's page's, whose runtime.onConnect takes it), so that what goes on it
// stays here, as a page's messages to another page do. Each end's number leads to the other's.
const pagePortPeers = new Map();
// What the ports between pages carry, in order, each for the end numbered `port`: its opening
// (`portOpened`), a message (`portMessage`), or its closing (`portDisconnected`).
let portEvents = [];

// The end numbered `port` hears `kind` (its page, if it is still there).
async function settlePortEvent({ port, kind, input }) {
    const page = portPages.get(port);
    if (kind === 'portDisconnected') { portPages.delete(port); pagePortPeers.delete(port); }
    if (page === undefined || pages.get(page.name) !== page) return [];
    await turn(page, kind, port, JSON.stringify({ type: kind, ...input }));
    return [page];
}

// The other end of a port between pages hears that this one closed (with why, when it never
// connected), and neither leads to the other any more: until it hears it, what the other end
// posts or closes goes nowhere (its peer is null).
function closePagePort(port, error) {
    const peer = pagePortPeers.get(port);
    pagePortPeers.delete(port);
    if (peer === null || peer === undefined) return;
    pagePortPeers.set(peer, null);
    portEvents.push({ port: peer, kind: 'portDisconnected', input: error === undefined ? {} : { error } });
}

// Why such a port closed at once, in WebKit's words (`tabsConnect`, as for the background's).
const noTab = 'Invalid call to tabs.connect(). Tab not found.';
const noListener = 'Invalid call to tabs.connect(). No runtime.onConnect listeners found.';

// What the pages did to each other in this input, heard in turn until nothing is left or the
// input's budget is spent: answers first, then messages, then what ports carry, then changes of
// storage.
async function settlePages(touched) {
    for (let count = 0; pageReplies.length > 0 || pageMessages.length > 0 || portEvents.length > 0 || storageChanges.length > 0; count++) {
        if (count >= heardPerInput) {
            log('pages', 'error', `the pages changed storage, sent each other messages, answered them and posted on ports between them ${heardPerInput} times in one input: the rest are not heard`);
            pageReplies = [];
            pageMessages = [];
            portEvents = [];
            storageChanges = [];
            break;
        }
        const heard = pageReplies.length > 0 ? await settleReply(pageReplies.shift())
            : pageMessages.length > 0 ? await settlePageMessage(pageMessages.shift())
                : portEvents.length > 0 ? await settlePortEvent(portEvents.shift()) : await settleStorageChange(storageChanges.shift());
        for (const page of heard) if (!touched.includes(page)) touched.push(page);
        await settle();
    }
}

// MARK: - The web's storage: localStorage by origin for the whole run (the extension's own
// origin's with its storage, storage-areas.mjs), sessionStorage by tab
// until it closes (the popup's until it closes), each profile's its own (its pages are over
// its own extension storage folder, and a put-away profile's tab is named PROFILE/TAB).

const localStores = new Map(), sessionStores = new Map();

function webStorageOperation(page, url, kind, op, key, value) {
    if (kind === 'local' && typeof page.storage === 'string' && String(url).startsWith('safari-web-extension:')) {
        return storage.extensionWebStorage(page.storage, op, key, value);
    }
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
// Each permission request a page made, by number: the page (the load of it) that waits for the answer.
let nextPermissionRequest = 1;
const permissionPages = new Map();
// Each call an extension page made on Safari's tabs, by number: the page (the load of it) that waits.
let nextTabsCall = 1;
const tabsCallPages = new Map();
// The tabs an extension page's tabs.query reads ({id, url, windowId, active}), as Safari last
// handed them over (it does while the popup or a page of the extension's own is open), and the
// window the popup opened in.
let safariTabs = [];
let popupWindow = 1;
// Safari's frontmost window and its focused one (-1 while another app is in front), as Safari
// last handed them over with the tabs; the popup's window is both while it opens.
let frontWindow = 1;
let focusedWindow = 1;
// What the extension set on its toolbar item, and the alarms Safari holds for it, as Safari last
// handed them over for each profile's extension storage folder (JSON text, as Safari's `action`
// and `alarms` inputs give them).
const safariActions = new Map();
const safariAlarms = new Map();
// The menu items Safari holds for the extension, by storage folder (JSON text).
const safariMenus = new Map();
// A tab as an extension page's tabs.query gives it: its number (tabs.Tab.id) when Safari gave
// one, else its name; `name` is the page host's own, left out of what a page reads.
const listedTabs = (tabs) => (tabs ?? []).map((tab) => ({
    id: Number.isSafeInteger(tab.number) ? tab.number : String(tab.id), url: String(tab.url), windowId: Number(tab.windowId), active: tab.active === true,
    name: String(tab.id),
}));
// A tab as a page reads it: as listed, without the page host's name for it.
const unlisted = ({ name, ...tab }) => tab;
// The name of the tab an extension page names by its number (or by its name, where Safari gave
// none), among the tabs Safari handed over; undefined for another.
const listedName = (tabId) => safariTabs.find((listed) => String(listed.id) === String(tabId))?.name;
// What an extension page's tabs.query reads: the tabs, the page's window (the popup's, or its
// tab's), and its own tab as listed (`current`; none for the popup).
function pageTabs(tab) {
    // (A tab's page is named PROFILE/TAB outside the first profile; Safari lists the front
    // profile's tabs by their own names.)
    const own = tab === undefined ? undefined : String(tab).split('/').pop();
    const mine = tab === undefined ? undefined : safariTabs.find((listed) => listed.name === own);
    const window = tab === undefined ? popupWindow : mine?.windowId ?? 1;
    return JSON.stringify({ window, front: frontWindow, focused: focusedWindow, current: mine?.id, tabs: safariTabs.map(unlisted) });
}

// How many inputs the host took (a page takes Safari's state once in each: `safariState`).
let inputsHandled = 0;

// Safari's clock, and its local time's offset from UTC in minutes, as the frame gives them.
let now = 0;
let utcOffset = 0;

// A page, loaded: its document (jsdom's, over `html`; its own scripts never run), its realm, then
// its scripts in the order a browser runs them: those that run as the page is parsed (`start`: a
// content script at document_start, a popup's classic scripts), its module scripts (deferred to
// the end of parsing), DOMContentLoaded and load, and then the content scripts at document_end.
// Every script and every turn runs from a task of its own (`inTask`), with what jsdom queued
// run in it (`settleDocument`).
// `own`: the extension's file the page shows (the popup, or a page of its own in a tab), whose
// scripts it runs with the extension pages' APIs; undefined for a web page, which runs the
// content scripts that match it.
async function load(name, tab, url, visible, appearance, html, nativeDark = false, storageFolder = null, own = undefined) {
    // The page's random numbers: from the run's seed, the page and how many pages loaded before it.
    const seedText = `${seed}/${name}/${++loads}`;
    // Its microtasks are node's, with jsdom's (its mutation records), so that both come in the
    // order they were queued, as a browser's one queue has them; each evaluation ends by running
    // them (settleDocument), under the watchdog.
    const { context, attach } = pageContext(name);
    const page = { name, key: `${name}#${loads}`, tab, url: String(url), context, scripts: null, window: null, lastState: null, storage: storageFolder, early: [],
                   frames: [], gone: false, sheets: new Map(), extensionPage: own !== undefined };
    // An output of the page's: it names the page (its tab, or the popup).
    const sentFrom = (output) => {
        if (tab === undefined) output.popup = true; else output.tab = tab;
        return output;
    };
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
        sendMessage: (text, gesture) => {
            const id = nextMessage++;
            const output = { type: 'sendMessage', id, message: JSON.parse(String(text)) };
            if (gesture === 1 && own !== undefined) output.userGesture = true;
            outputs.push(sentFrom(output));
            asked.set(id, page);
            // The extension's other pages hear it too (`settlePages`).
            pageMessages.push({ from: page, id, message: output.message });
            return id;
        },
        // An extension page's answer to another page's message (`pageMessage`, numbered here):
        // the first that is not nothing goes to the page that asked.
        answerPage: (id, text) => {
            const asking = pageAsks.get(id);
            pageAsks.delete(id);
            if (asking === undefined) return;
            if (text !== '') pageReplies.push({ id: asking.id, answer: JSON.parse(String(text)) }); else heardNothing(asking.id);
        },
        // An extension page's tabs.create, update, reload or remove, as JSON text, its tabs named
        // by their numbers (or their names where Safari gave none): its number, for Safari's
        // answer (`tabsAnswered`), or -1 for a tab Safari did not hand over.
        tabsCall: (text) => {
            const call = JSON.parse(String(text));
            if (call.tab !== undefined) { call.tab = listedName(call.tab); if (call.tab === undefined) return -1; }
            if (call.tabs !== undefined) { call.tabs = call.tabs.map(listedName); if (call.tabs.includes(undefined)) return -1; }
            const id = nextTabsCall++;
            const output = { type: 'tabsCall', id, call };
            outputs.push(sentFrom(output));
            tabsCallPages.set(id, page);
            return id;
        },
        // An extension page's tabs.sendMessage to a tab (by its number, or its name where Safari
        // gave none): its number, or -1 for a tab Safari did not hand over.
        messageTab: (tabId, text) => {
            const to = listedName(tabId);
            if (to === undefined) return -1;
            const id = nextMessage++;
            const output = { type: 'messageTab', id, to, message: JSON.parse(String(text)) };
            outputs.push(sentFrom(output));
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
            outputs.push(sentFrom(output));
            portPages.set(port, page);
            return port;
        },
        portPost: (port, text) => {
            if (portPages.get(port) !== page) return;
            if (!pagePortPeers.has(port)) outputs.push({ type: 'portPost', port, message: JSON.parse(String(text)) });
            else if (pagePortPeers.get(port) !== null) portEvents.push({ port: pagePortPeers.get(port), kind: 'portMessage', input: { message: JSON.parse(String(text)) } });
        },
        // `unheard`: a port the background or another page opened, which no runtime.onConnect
        // listener took.
        portDisconnect: (port, unheard) => {
            if (portPages.get(port) !== page) return;
            portPages.delete(port);
            if (pagePortPeers.has(port)) closePagePort(port, unheard === true ? noListener : undefined);
            else outputs.push(unheard === true ? { type: 'portDisconnect', port, unheard: true } : { type: 'portDisconnect', port });
        },
        // An extension page's tabs.connect to a tab (by its number, or its name where Safari gave
        // none): the page's end's number. Its other end is the tab's page's; a tab Safari did not
        // hand over, or whose page is not there, closes it at once, saying so. A page's own tab
        // is not one: WebKit sends no connection to the sender's own page, and the port closes
        // with no error.
        connectTab: (tabId, name) => {
            const port = nextPort++, peer = nextPort++;
            portPages.set(port, page);
            pagePortPeers.set(port, peer);
            pagePortPeers.set(peer, port);
            const to = listedName(tabId);
            // (The tab's page of the same profile: over the same extension storage.)
            const shows = (other) => other.tab !== undefined && String(other.tab).split('/').pop() === to && other.storage === page.storage;
            const target = to === undefined ? undefined : [...pages.values()].find((other) => other !== page && shows(other));
            if (target === undefined) { closePagePort(peer, to !== undefined && shows(page) ? undefined : noTab); return port; }
            portPages.set(peer, target);
            portEvents.push({ port: peer, kind: 'portOpened', input: { name: String(name), sender: senderOf(page) } });
            return port;
        },
        answer: (id, text, unreachable) => {
            const output = { type: 'answer', id };
            if (text !== '') output.answer = JSON.parse(String(text));
            if (unreachable === true) output.unreachable = true;
            outputs.push(output);
        },
        // A permission request of an extension page's, for Safari's prompt: its number.
        requestPermissions: (text) => {
            const id = nextPermissionRequest++;
            const { permissions, origins } = JSON.parse(String(text));
            const output = { type: 'requestPermissions', id, permissions, origins };
            outputs.push(sentFrom(output));
            permissionPages.set(id, page);
            return id;
        },
        // What an extension page's permissions.remove took back of the user's grants, as JSON
        // text ({permissions, origins}): Safari hears it.
        permissionsRemoved: (text) => {
            const { permissions, origins } = JSON.parse(String(text));
            const output = { type: 'permissionsRemoved', permissions, origins };
            outputs.push(sentFrom(output));
        },
        // What Safari keeps for the extension with its storage (`pageKept`): read with '' (''
        // for nothing kept), written otherwise.
        keep: (name, text) => {
            if (!pageKept.includes(String(name)) || typeof page.storage !== 'string') return '';
            const kept = storage.keepFile(page.storage, String(name), String(text));
            if (kept.error !== undefined) log(page.name, 'error', kept.error);
            return kept.text;
        },
        // What one run of the background's script gave: its result as JSON text ('' for
        // none), or the error it ended with.
        injected: (request, text, error) => {
            injectionRan(page, request, { frameId: 0, ...(error !== null ? { error: String(error) } : text !== '' ? { result: JSON.parse(String(text)) } : {}) });
        },
    };
    // An extension page's tabs.query reads the tabs as Safari last handed them over; its
    // runtime.openOptionsPage asks Safari to open the options page.
    // Its toolbar item is Safari's: what it sets goes out (`for`: the tab it is for, by name),
    // what it reads is what Safari last handed over.
    if (own !== undefined) {
        host.tabs = () => pageTabs(tab);
        host.openOptionsPage = () => { outputs.push(sentFrom({ type: 'openOptionsPage' })); };
        // What Safari holds for it, its toolbar item, its alarms and its menu items (`{action, alarms, menus}` as JSON
        // text), as Safari last handed them over: given once in each input ('' after), so that
        // what the page sets in the input's later turns stays until Safari hands it back.
        host.safariState = () => {
            if (page.stateTakenIn === inputsHandled) return '';
            page.stateTakenIn = inputsHandled;
            return `{"action":${safariActions.get(storageFolder) ?? '{}'},"alarms":${safariAlarms.get(storageFolder) ?? '{}'},"menus":${safariMenus.get(storageFolder) ?? '[]'}}`;
        };
        // Its menu items are Safari's: each change goes out, for Safari to make in its list.
        host.menusChanged = (text, change) => { outputs.push(sentFrom({ type: 'menuChanged', ...JSON.parse(String(change)) })); };
        // Its alarms are Safari's: what it makes or clears goes out.
        host.setAlarm = (at, name, period) => {
            if (!Number.isSafeInteger(at)) return;
            const output = { type: 'setAlarm', at, name: String(name) };
            if (Number.isSafeInteger(period) && period > 0) output.period = period;
            outputs.push(sentFrom(output));
        };
        host.clearAlarm = (name) => {
            const output = { type: 'clearAlarm', name: String(name) };
            outputs.push(sentFrom(output));
        };
        host.tabName = (tabId) => listedName(tabId) ?? '';
        host.actionSet = (target, property, text) => {
            const output = { type: 'actionSet', property: String(property), value: JSON.parse(String(text)) };
            if (target !== '') output.for = String(target);
            outputs.push(sentFrom(output));
        };
    }
    host.runQueued = runQueued;
    // What a page that is gone still asks (through what it left behind in an object every page
    // shares) does nothing: it sends, logs and stores nothing.
    for (const name of ['storage', 'webStorage', 'log', 'sendMessage', 'setTimer', 'cancelTimer', 'connect', 'portPost', 'portDisconnect', 'answer', 'injected',
                        'openOptionsPage', 'requestPermissions', 'permissionsRemoved', 'keep', 'messageTab', 'tabsCall', 'actionSet', 'answerPage', 'setAlarm', 'clearAlarm',
                        'connectTab', 'menusChanged']) {
        const live = host[name];
        if (live === undefined) continue;
        host[name] = (...args) => {
            if (!page.gone) return live(...args);
            return name === 'sendMessage' || name === 'messageTab' ? nextMessage++ : name === 'connect' || name === 'connectTab' ? nextPort++ : name === 'requestPermissions' ? nextPermissionRequest++
                : name === 'tabsCall' ? nextTabsCall++
                : name === 'storage' ? JSON.stringify({ error: 'the page is gone' }) : '';
        };
    }
    // The document, its own loading done before any script of the page can hear it (the page's
    // realm fires DOMContentLoaded and load in their place).
    let scripts;
    await inTask(() => {
        current = page;
        const report = (kind, value) => {
            if (kind === 'uncaught') uncaught(name, 'Uncaught', value);
            else log(name, 'warn', `${value} (the harness's DOM, jsdom, does not have it)`);
        };
        // An address jsdom refuses (one Safari takes) is said, and the page is a plain one.
        try { page.window = openDocument(html ?? plainPage, String(url), report); } catch (error) {
            log(name, 'error', `the harness's DOM cannot open ${url}: ${error.message}; the page is a plain one at about:blank`);
            page.window = openDocument(plainPage, 'about:blank', report);
        }
        runQueued();
        attach(page.window);
        scripts = own !== undefined ? ownPageScripts(page.window.document, own) : contentScripts(url, storageFolder);
        injectStyles(page, scripts.css ?? []);
    });
    if (scripts.refused > 0) log(name, 'error', `Refused to execute an inline script in ${own}: the extension's content security policy allows only its own files`);
    dropPage(name);
    pages.set(name, page);
    const { install } = realmModule(context, 'pages-realm.mjs', 'pages:');
    await inTask(() => {
        page.scripts = install(host, JSON.stringify({ url: String(url), visible, appearance: String(appearance), nativeDark: nativeDark === true,
                                                      plain: html === undefined, popup: tab === undefined, extensionPage: own !== undefined, extensionID,
                                                      manifest: JSON.stringify(installedVersion === undefined ? manifest : { ...manifest, version: installedVersion }) }),
                                       page.window);
        // What jsdom put off while the document was read runs as the page's timers, and the
        // frames it read read the page's clock.
        for (const task of page.early.splice(0)) task.timer = page.scripts.later(task.callback, task.delay);
        for (const frame of page.frames.splice(0)) if (frame !== page.window) page.scripts.adopt(frame);
    });
    const run = async (file) => {
        let source;
        try { source = read(file); } catch (error) { log(name, 'error', `Uncaught Error: ${file} cannot be read: ${error.message}`, String(file)); return; }
        await inTask(() => evaluate(page, () => new vm.Script(source, { filename: String(file) }).runInContext(context, evaluation)));
    };
    for (const file of scripts.start) await run(file);
    if ((scripts.modules ?? []).length > 0) {
        const importModuleDynamically = () => { throw page.scripts.refusal('import()'); };
        for (const { module, error, place: where } of await linkModules(scripts.modules, { context, read, importModuleDynamically })) {
            if (error !== undefined) {
                const described = describe(error);
                log(name, 'error', `Uncaught ${described.text}`, where ?? place(described.stack));
            } else await runModule(page, module);
        }
    }
    await turn(page, 'ready', 0, '');
    for (const file of scripts.end) await run(file);
    return page;
}

// A page goes, with everything pending in it: its timers and jsdom's later work never run, and
// what it still asks does nothing. Its document is let go, not closed (jsdom's close empties the
// body, which would run the page's observers and custom elements once more).
function dropPage(name) {
    const page = pages.get(name);
    if (page === undefined) return;
    page.gone = true;
    pages.delete(name);
    // Its ports go with it (Safari closes the other ends), and the messages it heard from other
    // pages are answered by it no more.
    for (const [port, holder] of portPages) {
        if (holder !== page) continue;
        portPages.delete(port);
        if (pagePortPeers.has(port)) closePagePort(port);
    }
    for (const [number, asking] of pageAsks) {
        if (asking.page !== page) continue;
        pageAsks.delete(number);
        heardNothing(asking.id);
    }
    // A script still running there ends with the page.
    for (const [request, injection] of injections) {
        if (injection.page !== page) continue;
        injectionRan(page, request, { frameId: 0, error: 'the page went before the script finished' });
    }
}

// MARK: - The background's scripts and style sheets (scripting.executeScript and kin)

// The injections not answered yet, by Safari's number: the page, and the results so far of the
// runs it waits for.
const injections = new Map();

// One run of an injection ended: with the last, Safari is answered.
function injectionRan(page, request, result) {
    const injection = injections.get(request);
    if (injection === undefined || injection.page !== page) return;
    injection.results.push(result);
    if (injection.results.length < injection.runs) return;
    injections.delete(request);
    outputs.push({ type: 'injected', request, results: injection.results });
}

// The background's script, run in the page's content scripts' realm (WebKit runs it in the
// content scripts' world; `world: 'MAIN'` is the same realm here): a function as
// `(FUNC)(...ARGS)`, whose promise is waited for (WebKit's `callAsyncJavaScript`), or each
// file, or the code, whose last statement's value is its result (`evaluateJavaScript`, which
// waits for nothing). Each run gives one result, for frame 0 (a page here has one frame): its
// value as JSON, or the error it threw. A value JSON cannot carry is an error too.
async function executeScript(page, input) {
    const runs = [];
    if (typeof input.func === 'string') {
        runs.push({ source: `(${input.func})(...JSON.parse(${JSON.stringify(JSON.stringify(input.args ?? []))}))`, file: 'scripting.executeScript', awaits: true });
    } else if (typeof input.code === 'string') {
        runs.push({ source: input.code, file: 'tabs.executeScript', awaits: false });
    } else {
        const texts = readAll(input.files, input.request);
        if (texts === undefined) return;
        texts.forEach((source, index) => runs.push({ source, file: String(input.files[index]), awaits: false }));
    }
    if (runs.length === 0) { outputs.push({ type: 'injected', request: input.request, results: [] }); return; }
    injections.set(input.request, { page, runs: runs.length, results: [] });
    for (const run of runs) {
        let value, failure;
        await inTask(() => {
            current = page;
            try { value = new vm.Script(run.source, { filename: run.file }).runInContext(page.context, evaluation); } catch (error) { failure = error; }
            if (page.scripts !== null) settleDocument(page);
        });
        if (page.gone) return;
        if (failure !== undefined) {
            const why = isTimeout(failure) ? `a script did not yield within ${watchdog} ms` : describe(failure).text;
            if (isTimeout(failure)) log(page.name, 'error', `Uncaught Error: ${why}`);
            injectionRan(page, input.request, { frameId: 0, error: why });
            continue;
        }
        const heard = injections.get(input.request)?.results.length;
        const waits = await turn(page, 'injected', input.request, run.awaits ? '{"awaits":true}' : '', value);
        // A result that could not be read (its `then` or `toJSON` threw, or never yielded)
        // is the run's error, not a wait without end.
        if (waits !== 'waits' && injections.get(input.request)?.results.length === heard) {
            injectionRan(page, input.request, { frameId: 0, error: 'the script\'s result could not be read' });
        }
    }
}

// The background's style sheets for the page (scripting.insertCSS and removeCSS): added as the
// content scripts' are; removed, each sheet of the same text it added.
function restyle(page, input) {
    const texts = typeof input.code === 'string' ? [input.code] : readAll(input.files, input.request);
    if (texts === undefined) return;
    if (input.method === 'insertCSS') addStyles(page, texts, true);
    else {
        for (const [element, sheet] of page.sheets) {
            if (!sheet.injected || !texts.includes(sheet.text) || element.parentNode === null) continue;
            element.remove();
            page.sheets.delete(element);
        }
    }
    outputs.push({ type: 'injected', request: input.request, results: [] });
}

// jsdom's own later work (dom.mjs, keepTime) is a task of the page whose code (or whose document's
// reading) asked for it, run on the harness's timers like the page's own; a page that is gone
// has none. A window jsdom makes for one of the page's frames reads the page's clock and random
// numbers (the page's own window is given them as its realm is made).
keepTime(() => Number(now), {
    window(made) {
        const page = current;
        if (page === null || page.gone) return;
        if (page.scripts === null) page.frames.push(made); else page.scripts.adopt(made);
    },
    schedule(callback, delay) {
        const page = current;
        const task = { page, callback, delay, timer: null };
        if (page === null || page.gone) return task;
        if (page.scripts === null) page.early.push(task); else task.timer = page.scripts.later(callback, delay);
        return task;
    },
    cancel(task) {
        const page = task?.page;
        if (page === null || page === undefined || page.gone) return;
        if (task.timer !== null) page.scripts.cancel(task.timer);
        else if (page.early.includes(task)) page.early.splice(page.early.indexOf(task), 1);
    },
});

// A module script runs its body under the watchdog; what it awaits at its top level settles in
// the turns that bring it (DOMContentLoaded does not wait for it, as in a browser). What it
// throws, at once or after an await, is the page's uncaught error.
async function runModule(page, module) {
    let settled = false;
    await inTask(() => {
        current = page;
        module.evaluate({ timeout: watchdog }).then(() => { settled = true; }, (error) => {
            settled = true;
            if (isTimeout(error)) log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`);
            else uncaught(page.name, 'Uncaught', error);
        });
    });
    // What it queued runs; node settles the evaluation's promise after.
    for (let round = 0; !settled && round < 3; round++) await inTask(() => settleDocument(page));
}

// How a page's code runs: under the watchdog, and without node's decoration of what it throws
// (node reads a thrown value's stack to add the line it came from, after the watchdog stopped:
// a getter or a proxy's trap there would run a script's code outside it).
const evaluation = { timeout: watchdog, displayErrors: false };

// Runs `work` in the page, under the watchdog; then the microtasks it queued, and what jsdom
// queued for the page, run (settleDocument). A script that throws still has its microtasks
// run, as a browser runs them after a script that throws.
function evaluate(page, work) {
    current = page;
    try { work(); } catch (error) {
        if (isTimeout(error)) log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`);
        else uncaught(page.name, 'Uncaught', error);
    }
    // Even after a stop: what the script queued runs here, under the watchdog, not after the task.
    if (page.scripts !== null) settleDocument(page);
}

// The page's microtasks and jsdom's (its mutation records), all on node's own queue, run now:
// in an evaluation of the page's realm, so that the watchdog covers them (one that never lets
// the queue empty is stopped like a script that never yields).
const settleScript = new vm.Script('__pageSettle()', { filename: 'pages:settle' });
function settleDocument(page) {
    try { settleScript.runInContext(page.context, evaluation); } catch (error) {
        if (isTimeout(error)) { log(page.name, 'error', `Uncaught Error: a script did not yield within ${watchdog} ms`); return; }
        uncaught(page.name, 'Uncaught', error);
    }
}


// A turn: the page's realm runs the input named, in a task of its own; what it answers.
async function turn(page, kind, id, text, value) {
    return inTask(() => {
        evaluate(page, () => {
            page.scripts.post(kind, id, text, value);
            turnScript.runInContext(page.context, evaluation);
        });
        return page.scripts.result();
    });
}

// A tab's page reports its state when it changed since it last did.
async function reportState(page) {
    if (page.tab === undefined) return;
    const state = await turn(page, 'state', 0, '');
    // A script that broke the page's own elements (a getter that throws or loops) leaves no
    // state to read: its error is said, and the page keeps the state it last reported.
    if (state === '' || state === page.lastState) return;
    page.lastState = state;
    outputs.push({ type: 'page', tab: page.tab, state: JSON.parse(state) });
}

const tabPage = (tab) => pages.get(`tab ${tab}`);

// The page that waits in `waiting` for what Safari answers to its number `id`, taken off it:
// undefined when that load of the page is gone (it loaded again or closed since), and the answer
// goes nowhere.
function waitingPage(waiting, id) {
    const page = waiting.get(id);
    waiting.delete(id);
    return page !== undefined && pages.get(page.name) === page ? page : undefined;
}

// Node hands over the rejections nobody handled once the current task is done: an input that
// runs several pages waits for that after each, so each rejection is said as its own page's.
const settle = () => new Promise((resolve) => nextTask(resolve));

// A run takes the host (the harness keeps hosts between runs, so that jsdom loads once for
// many, whatever the extension): every page goes, and the host is as a new one started for the
// run's extension, seed and platform. A host that cannot be so says why, and the harness starts
// another: an earlier run's page changed what every page shares (dom.mjs, changedShared), or the
// extension cannot be read.
function reset(input) {
    // What earlier runs still waited for goes unanswered: no run waits for it.
    injections.clear();
    for (const name of [...pages.keys()]) dropPage(name);
    current = null;
    const changed = changedShared();
    if (changed !== null) { log('pages', 'error', `a page of an earlier run changed what every page shares (${changed}): this host serves no other run`); return; }
    if (typeof input.extension !== 'string') { log('pages', 'error', 'reset names no extension'); return; }
    try { readExtension(input.extension); } catch (error) { log('pages', 'error', `the extension in ${input.extension} cannot be read: ${error.message}`); return; }
    runFolder = folder;
    seed = String(input.seed ?? '0');
    platform = input.platform === 'macos' ? 'macos' : 'ios';
    for (const map of [localStores, sessionStores, asked, portPages, pagePortPeers, injections, permissionPages, tabsCallPages, pageAsks, safariSaidNothing]) map.clear();
    portEvents = [];
    pageMessages = [];
    pageReplies = [];
    nextMessage = 1;
    nextPermissionRequest = 1;
    nextTabsCall = 1;
    loads = 0;
    nextPort = 1;
    nextPageAsk = 1;
    safariTabs = [];
    popupWindow = 1;
    frontWindow = 1;
    focusedWindow = 1;
    safariActions.clear();
    safariAlarms.clear();
    safariMenus.clear();
}

async function handle(input) {
    switch (input.type) {
    case 'reset':
        reset(input);
        return [];
    case 'load': {
        takeInstalled(input);
        const name = `tab ${input.tab}`;
        dropPage(name);
        // A page of the extension's own (its options page, or one it opened) is its file, with
        // its own scripts; one that cannot be read is a plain page that says so, and runs none.
        const own = ownFile(input.url);
        let html = typeof input.html === 'string' ? input.html : undefined;
        if (own !== undefined) {
            try { html = read(own); } catch (error) { log(name, 'error', `Uncaught Error: ${own} cannot be read: ${error.message}`); html = undefined; }
        }
        const page = await load(name, input.tab, input.url, input.visible === true, input.appearance, html, input.nativeDark === true,
                                typeof input.storage === 'string' ? input.storage : null, own);
        return [page];
    }
    case 'close':
        dropPage(`tab ${input.tab}`);
        sessionStores.delete(`tab ${input.tab}`);
        return [];
    case 'show': {
        const page = tabPage(input.tab);
        if (page) await turn(page, 'show', 0, JSON.stringify(input));
        return page ? [page] : [];
    }
    case 'appearance': {
        const all = [...pages.values()];
        for (const page of all) {
            await turn(page, 'appearance', 0, JSON.stringify(input));
            await settle();
        }
        return all;
    }
    case 'answer': {
        // Safari's answer of nothing leaves a page that heard the message its chance to answer.
        if (input.answer === undefined && [...pageAsks.values()].some((asking) => asking.id === input.id)) {
            safariSaidNothing.add(input.id);
            return [];
        }
        const page = waitingPage(asked, input.id);
        if (page === undefined) return [];
        await turn(page, 'answer', input.id, JSON.stringify(input));
        return [page];
    }
    case 'nativeDark': {
        const page = tabPage(input.tab);
        if (page) await turn(page, 'nativeDark', 0, JSON.stringify(input));
        return page ? [page] : [];
    }
    case 'message': {
        const page = input.popup === true ? pages.get('popup') : tabPage(input.tab);
        if (page === undefined) { outputs.push({ type: 'answer', id: input.id, unreachable: true }); return []; }
        await turn(page, 'message', input.id, JSON.stringify(input));
        return [page];
    }
    case 'openPopup': {
        takeInstalled(input);
        // The page the extension set for the popup (action.setPopup), else its manifest's.
        // (As a path in the extension, or as runtime.getURL gives it.)
        const shown = typeof input.page === 'string' ? ownFile(input.page) ?? input.page.replace(/^\//, '') : popupFile;
        if (shown === undefined) return [];
        let html;
        try { html = read(shown); } catch (error) { log('popup', 'error', `Uncaught Error: ${shown} cannot be read: ${error.message}`); return []; }
        safariTabs = listedTabs(input.tabs);
        popupWindow = Number(input.windowId ?? 1);
        frontWindow = popupWindow;
        focusedWindow = popupWindow;
        const page = await load('popup', undefined, 'safari-web-extension://extension/' + shown, true, input.appearance, html, false,
                                typeof input.storage === 'string' ? input.storage : null, shown);
        return [page];
    }
    case 'windowFocus':
        // Another of Safari's windows has focus (-1: none): the extension's own pages over that
        // storage hear it (windows.onFocusChanged).
        return await hearOwn(input.storage, 'windowFocus', { windowId: input.windowId });
    case 'tabEvent':
        // A tab opened, loaded, came to the front of its window or closed: the extension's own
        // pages over that storage hear it (tabs.onCreated, onUpdated, onActivated, onRemoved).
        // (A load's commit replaces the tab's page: the page that loads does not hear its own,
        // nor does the page it replaces.)
        return await hearOwn(input.storage, 'tabEvent', { event: input.event, tabId: input.tabId, windowId: input.windowId },
                             (page) => input.event?.type === 'webNavigation' && input.event.stage === 'committed' && page.tab !== undefined
                                 && String(page.tab).split('/').pop() === String(input.event.tab));
    case 'alarms':
        // The alarms Safari holds changed (the background or a page made or cleared one, one fell due).
        safariAlarms.set(String(input.storage), JSON.stringify(input.alarms ?? {}));
        return [];
    case 'alarmFired': {
        // An alarm fell due: the extension's own pages over that storage hear it (alarms.onAlarm).
        return await hearOwn(input.storage, 'alarmFired', { name: input.name });
    }
    case 'menus':
        // The menu items Safari holds changed (the background or a page changed them, a restart dropped them).
        safariMenus.set(String(input.storage), JSON.stringify(input.items ?? []));
        return [];
    case 'menuClicked':
        // The user chose one of the extension's menu items: its own pages over that storage hear it (menus.onClicked).
        return await hearOwn(input.storage, 'menuClicked', { event: input.event, tabId: input.tabId });
    case 'commandPressed': {
        // The user pressed one of the extension's commands: its own pages over that storage hear
        // it (commands.onCommand), with the front window's active tab, if it has one.
        return await hearOwn(input.storage, 'commandPressed', { name: input.name, tab: input.tab === undefined ? undefined : unlisted(listedTabs([input.tab])[0]) });
    }
    case 'actionClicked': {
        // The user clicked the toolbar item where it has no popup: the extension's own pages over
        // that storage hear it (action.onClicked), with the tab as tabs.query gives it.
        return await hearOwn(input.storage, 'actionClicked', { tab: unlisted(listedTabs([input.tab])[0]) });
    }
    case 'action':
        // What the extension set on its toolbar item changed (the background or a page set it).
        safariActions.set(String(input.storage), JSON.stringify(input.action ?? {}));
        return [];
    case 'tabs':
        // Safari's tabs or windows changed while the popup or a page of the extension's own is open.
        safariTabs = listedTabs(input.tabs);
        if (Number.isSafeInteger(input.frontWindow)) frontWindow = input.frontWindow;
        if (Number.isSafeInteger(input.focusedWindow)) focusedWindow = input.focusedWindow;
        return [];
    case 'closePopup': {
        // Closed by the user, the popup hears that it goes (visibilitychange, then pagehide);
        // what it sends then still leaves, and its answer finds no page.
        const page = pages.get('popup');
        if (page !== undefined && input.hide === true) {
            await turn(page, 'hide', 0, '');
            await settle();
        }
        dropPage('popup');
        sessionStores.delete('popup');
        return [];
    }
    case 'query': {
        // A scenario's check reads a page (its elements that match a selector): no script of the
        // page runs, and the page reports nothing else.
        const page = input.popup === true ? pages.get('popup') : tabPage(input.tab);
        const found = page === undefined ? '' : await turn(page, 'query', 0, JSON.stringify(input));
        outputs.push({ type: 'queried', found: found === '' ? null : JSON.parse(found) });
        return [];
    }
    case 'timer': {
        // A timer of a load of a page that is gone since is dropped.
        const page = [...pages.values()].find((candidate) => candidate.key === input.page);
        if (page === undefined) return [];
        await turn(page, 'timer', input.timer, '');
        return [page];
    }
    case 'portOpened': {
        // The background's tabs.connect to a tab: its page's runtime.onConnect takes the port.
        const page = tabPage(input.tab);
        if (page === undefined) { outputs.push({ type: 'portDisconnect', port: input.port, unheard: true }); return []; }
        portPages.set(input.port, page);
        await turn(page, 'portOpened', input.port, JSON.stringify(input));
        return [page];
    }
    case 'portMessage': case 'portDisconnected': {
        // A port of a page that loaded again or closed since goes nowhere.
        const page = portPages.get(input.port);
        if (input.type === 'portDisconnected') portPages.delete(input.port);
        if (page === undefined || pages.get(page.name) !== page) return [];
        await turn(page, input.type, input.port, JSON.stringify(input));
        return [page];
    }
    case 'tabsAnswered': {
        // Safari did a page's call on its tabs.
        const page = waitingPage(tabsCallPages, input.id);
        if (page === undefined) return [];
        // The tab as tabs.query gives it, without the page host's own name for it.
        if (input.tab !== undefined) input.tab = unlisted(listedTabs([input.tab])[0]);
        await turn(page, 'tabsAnswered', input.id, JSON.stringify(input));
        return [page];
    }
    case 'permissionsAnswered': {
        // The user answered a page's prompt.
        const page = waitingPage(permissionPages, input.id);
        if (page === undefined) return [];
        await turn(page, 'permissionsAnswered', input.id, JSON.stringify(input));
        return [page];
    }
    case 'storageChanged':
        // The background changed storage: the pages over it hear it.
        return await hearStorageChange(String(input.storage), String(input.area), input.changes);
    case 'permissionsChanged': {
        // The extension's grants changed: its own pages over that storage hear it
        // (permissions.onAdded, onRemoved; content scripts have no permissions).
        return await hearOwn(input.storage, 'permissionsChanged', input);
    }
    case 'inject': {
        // WebKit's words for a tab with no page (`WebExtensionContext::scriptingExecuteScript`).
        const page = tabPage(input.tab);
        if (page === undefined) {
            outputs.push({ type: 'injected', request: input.request, error: input.method === 'executeScript' ? 'could not execute script on this tab' : 'could not inject stylesheet on this tab' });
            return [];
        }
        // A sheet added or removed is a change to the page's DOM: its observers hear it under the watchdog.
        if (input.method === 'executeScript') await executeScript(page, input); else await inTask(() => evaluate(page, () => restyle(page, input)));
        return [page];
    }
    case 'click': case 'choose': {
        // The popup's element, or one of a tab's page (the options page's).
        const page = input.tab === undefined ? pages.get('popup') : tabPage(input.tab);
        if (page === undefined) return [];
        const refused = await turn(page, input.type, 0, JSON.stringify(input));
        const where = input.tab === undefined ? 'popup' : `tab ${input.tab}`;
        const step = `${where} ${input.type} ${input.element}${input.type === 'choose' ? ' ' + input.value : ''}`;
        // A control out of sight is one the user cannot reach yet (the page has not shown it):
        // nothing happens, and the trace says so. Anything else is a step the page cannot do.
        if (refused === 'hidden') log(page.name, 'warn', `${step}: nothing happens, #${input.element} is hidden`);
        else if (refused !== '') log(page.name, 'error', `Not done: ${step}: ${refused}`);
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
    inputsHandled += 1;
    outputs = [];
    storageChanges = [];
    pageMessages = [];
    pageReplies = [];
    portEvents = [];
    const touched = await handle(frame.input ?? {});
    // Rejections nobody handled are reported before the input ends.
    await settle();
    // What the pages sent each other and what they changed, each heard in turn until neither is left.
    await settlePages(touched);
    for (const page of touched) if (pages.get(page.name) === page) await reportState(page);
    write({ outputs });
}