// What an extension's scripts use that the harness's runtime lacks, found by reading them
// (`harness check --extension`): each `browser.NAMESPACE.MEMBER` (or `chrome.`) their text names,
// and each of the web's common globals it calls, held against a realm made as the runtime makes
// it for that part of the extension (the background's, a content script's, the popup's, the
// options page's).
// Reading finds what running may not reach, and may name what a comment or a string holds: it is
// a list to look at, not a verdict.
//
// node --experimental-vm-modules --no-warnings lacks.mjs --extension FOLDER
// Out: one frame (section 3), {"background": {"api": [...], "globals": [...]}, "content": {...},
// "popup": {...}, "options": {...}} (a part the extension does not have is left out, and the pages' parts when
// jsdom, whose document their realm is made over, is not installed).
//
// (Run with NODE_PATH=/usr/share/nodejs and --disallow-code-generation-from-strings, as the page
// host is.)

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { backgroundScripts, option, popupOf, readIn, realmModule, url, write } from './runtime-common.mjs';
import { attachWindow, loadDOM, namesTheDOM, openDocument, pageContext, plainPage } from './dom.mjs';
import { optionsPageOf } from './realm-common.mjs';

// Why the pages' parts cannot be looked at (jsdom is not installed), or null.
const unavailable = loadDOM();

// The web's globals a script may reach for and a realm may lack.
export const webGlobals = [
    'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'structuredClone', 'AbortController', 'AbortSignal', 'atob', 'btoa',
    'navigator', 'localStorage', 'sessionStorage', 'indexedDB', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback',
    'history', 'location', 'crypto', 'Event', 'CustomEvent', 'EventTarget', 'fetch', 'XMLHttpRequest', 'WebSocket', 'Worker',
    'Blob', 'File', 'FileReader', 'FormData', 'Headers', 'Request', 'Response', 'MutationObserver', 'IntersectionObserver',
    'ResizeObserver', 'DOMParser', 'getComputedStyle', 'matchMedia', 'Image', 'Node', 'Element', 'HTMLElement', 'NodeFilter',
    'performance', 'queueMicrotask', 'BroadcastChannel', 'MessageChannel', 'caches', 'Notification', 'alert', 'confirm', 'prompt',
];

// What a script's text uses: the browser.* members it names and the web's globals it calls.
export function uses(text) {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
    const api = new Set();
    for (const [, namespace, member] of code.matchAll(/\b(?:browser|chrome)\s*\.\s*([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?/g)) {
        api.add(member === undefined ? namespace : namespace + '.' + member);
    }
    const globals = new Set();
    for (const name of webGlobals) {
        const used = new RegExp(`(^|[^\\w$.])(?:new\\s+${name}\\b|${name}\\s*[.(\\[])`, 'm');
        if (used.test(code)) globals.add(name);
    }
    return { api: [...api].sort(), globals: [...globals].sort() };
}

// Host functions that answer nothing, for a realm made only to be looked at; storage.session is
// open to content scripts (the extension may let them in), so that it is not counted lacking.
const quietHost = () => {
    const answers = { ownPages: false, messages: '{}', isProxy: false, now: 0, utcOffset: 0, uptime: 0, failure: '', threw: false, platform: 'ios',
                      tabs: '{"window":1,"tabs":[]}', seed: '0' };
    const kept = { 'session-access': '{"accessLevel":"TRUSTED_AND_UNTRUSTED_CONTEXTS"}' };
    const names = ['setTimer', 'cancelTimer', 'storage', 'sendNative', 'decide', 'showPopup', 'answerPopup', 'connectNative', 'answerPage',
                   'messageTab', 'messagePopup', 'portPost', 'portClose', 'connectTab', 'setAlarm', 'clearAlarm', 'log', 'fetch', 'importScripts', 'thrown',
                   'sendMessage', 'connect', 'portDisconnect', 'answer', 'webStorage', 'activeTab', 'tabNumber', 'tabName', 'actionSet', 'menusChanged', 'permissionsRemoved', 'action', 'safariState', 'keep', 'noDocument', 'runQueued', ...Object.keys(answers)];
    // A page's address is read as the runtime reads it.
    return { ...Object.fromEntries(names.map((name) => [name, () => (Object.hasOwn(answers, name) ? answers[name] : '')])), url,
             keep: (name) => kept[String(name)] ?? '' };
};

// A realm as the runtime makes it for `part` of the extension, with its install run (`sources`:
// the part's scripts' text).
function realmFor(part, manifest, sources) {
    const manifestText = JSON.stringify(manifest);
    if (part === 'background') {
        const sandbox = Object.create(null);
        const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
        const realm = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(quietHost(), manifestText);
        // A background page whose scripts name the DOM has its document (runtime.mjs).
        const ownNames = new Set(Reflect.ownKeys(sandbox).filter((key) => typeof key === 'string'));
        if (typeof manifest.background?.service_worker !== 'string' && unavailable === null && namesTheDOM(sources, ownNames)) {
            const window = openDocument(plainPage, 'safari-web-extension://extension/_generated_background_page.html', () => {});
            attachWindow(sandbox, window);
            realm.attach(window);
        }
        return (code) => vm.runInContext(code, context);
    }
    const own = part === 'popup' || part === 'options';
    const setup = { url: own ? `safari-web-extension://extension/${part}.html` : 'https://example.com/', visible: true, appearance: 'light', nativeDark: false,
                    plain: true, popup: part === 'popup', extensionPage: own, extensionID: 'extension', manifest: manifestText };
    const { context, attach } = pageContext('lacks');
    const window = openDocument(plainPage, setup.url, () => {});
    attach(window);
    realmModule(context, 'pages-realm.mjs', 'pages:').install(quietHost(), JSON.stringify(setup), window);
    return (code) => vm.runInContext(code, context);
}

// What of `used` the realm lacks.
function lacking(run, used) {
    const api = used.api.filter((chain) => {
        const [namespace, member] = chain.split('.');
        const has = run(`(() => { const n = browser[${JSON.stringify(namespace)}]; return n !== undefined && n !== null`
                        + (member === undefined ? '' : ` && ${JSON.stringify(member)} in n`) + '; })()');
        return has !== true;
    }).map((chain) => 'browser.' + chain);
    // (A global whose getter throws, such as an opaque origin's sessionStorage, is lacking too.)
    const globals = used.globals.filter((name) => {
        try { return run(`typeof globalThis[${JSON.stringify(name)}] === 'undefined'`); } catch { return true; }
    });
    return { api, globals };
}

// The scripts of each part of the extension, by the manifest (and, for the popup and the options
// page, their pages).
function parts(folder, manifest) {
    const found = {};
    let background = [];
    try { background = backgroundScripts(manifest, (file) => readIn(folder, file)); } catch {}
    if (background.length > 0) found.background = moduleGraph(folder, background);
    const content = (manifest.content_scripts ?? []).flatMap((entry) => entry.js ?? []);
    if (content.length > 0) found.content = content;
    for (const [part, page] of [['popup', popupOf(manifest)], ['options', optionsPageOf(manifest)]]) {
        if (typeof page !== 'string') continue;
        let html = '';
        try { html = readIn(folder, page); } catch {}
        const scripts = [...html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((match) => path.posix.join(path.posix.dirname(page), match[1]));
        found[part] = moduleGraph(folder, scripts);
    }
    return found;
}

// `files` and the files they import, relative to each other.
function moduleGraph(folder, files) {
    const seen = new Set();
    const visit = (file) => {
        const key = path.posix.normalize(String(file).replace(/^\//, ''));
        if (seen.has(key)) return;
        seen.add(key);
        let text = '';
        try { text = readIn(folder, key); } catch { return; }
        for (const [, from, bare] of text.matchAll(/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
            visit(path.posix.join(path.posix.dirname(key), from ?? bare));
        }
    };
    for (const file of files) visit(file);
    return [...seen];
}

export function lacks(folder) {
    const manifest = JSON.parse(readIn(folder, 'manifest.json'));
    const report = {};
    for (const [part, files] of Object.entries(parts(folder, manifest))) {
        if (part !== 'background' && unavailable !== null) continue;
        const used = { api: new Set(), globals: new Set() };
        const sources = [];
        for (const file of files) {
            let text;
            try { text = readIn(folder, file); } catch { continue; }
            sources.push(text);
            const found = uses(text);
            for (const chain of found.api) used.api.add(chain);
            for (const name of found.globals) used.globals.add(name);
        }
        report[part] = lacking(realmFor(part, manifest, sources), { api: [...used.api].sort(), globals: [...used.globals].sort() });
    }
    return report;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    write(lacks(path.resolve(option('extension', '.'))));
}
