// The modules compiled inside each script's realm (realm-common.mjs, runtime-realm.mjs,
// pages-realm.mjs), loaded as the runtimes load them (realmModule) into a fresh context each:
// time, local time and random numbers come only from the host, the timers are the harness's,
// and nothing a script can reach belongs to node's realm.
//
// NODE_PATH=/usr/share/nodejs node --experimental-vm-modules --disallow-code-generation-from-strings --test Tests/JavaScript

import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { realmModule, url } from '../../Sources/HarnessCore/Extension/JavaScript/runtime-common.mjs';
import { attachWindow, changedShared, loadDOM, openDocument, pageContext, plainPage } from '../../Sources/HarnessCore/Extension/JavaScript/dom.mjs';

// A page's realm is installed over a document of its own (jsdom's: NODE_PATH=/usr/share/nodejs);
// without jsdom, the tests of pages say they skipped and why.
const unavailable = loadDOM();
const needsPages = { skip: unavailable ?? false };
const pageSetup = (setup) => JSON.stringify({ ...setup, plain: true });
// A context for `file`'s realm as the runtimes make it, and for a page's realm its document's
// window (over a plain document at the setup's address).
function contextFor(file, setupText) {
    if (file !== 'pages-realm.mjs') {
        return { context: vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } }) };
    }
    const { context, attach } = pageContext('test');
    const window = openDocument(plainPage, JSON.parse(setupText).url, () => {});
    attach(window);
    return { context, window };
}

const epoch = 1772355600000; // 2026-03-01T09:00:00Z, a Sunday

// A fresh realm as the runtimes make one, with realm-common.mjs compiled in it.
async function realm() {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const common = realmModule(context, 'realm-common.mjs', 'runtime:');
    return { context, common, run: (code) => vm.runInContext(code, context) };
}

// Host functions that record what the realm tells them, with the clock and offset given.
function recordingHost(clock = { now: epoch, utcOffset: 0, seed: '7/background/5' }) {
    const told = [];
    return {
        told,
        clock,
        functions: {
            now: () => clock.now,
            utcOffset: () => clock.utcOffset,
            seed: () => clock.seed,
            setTimer: (id, at) => { told.push(['setTimer', id, at]); },
            cancelTimer: (id) => { told.push(['cancelTimer', id]); },
            isProxy: () => false,
            fails: () => { throw new Error('the host failed'); },
        },
    };
}

test('the same seed text gives the same numbers, and another text others', async () => {
    const { common } = await realm();
    const first = common.seededRandom('7/background/5'), again = common.seededRandom('7/background/5'), other = common.seededRandom('8/background/5');
    const numbers = Array.from({ length: 5 }, () => first());
    assert.deepEqual(Array.from({ length: 5 }, () => again()), numbers);
    assert.notDeepEqual(Array.from({ length: 5 }, () => other()), numbers);
    for (const number of numbers) assert.ok(number >= 0 && number < 1, `${number} is in [0, 1)`);
    // Pinned: a run's numbers do not change from one build to the next.
    assert.deepEqual(numbers.slice(0, 2).map((n) => n.toFixed(10)), ['0.1927776490', '0.9300086470']);
});

test('Math.random draws from the host seed, read at the first draw', async () => {
    const { common, run } = await realm();
    const host = recordingHost();
    host.clock.seed = 'not yet';
    common.installRandom(common.hostOf(host.functions));
    host.clock.seed = '7/background/5';
    const expected = common.seededRandom('7/background/5');
    assert.equal(run('Math.random()'), expected());
    assert.equal(run('Math.random()'), expected());
});

test('Date reads the host clock in the local time of its offset', async () => {
    const { common, run } = await realm();
    const host = recordingHost();
    host.clock.utcOffset = 60;
    common.installDate(common.hostOf(host.functions));
    assert.equal(run('Date.now()'), epoch);
    assert.equal(run('new Date().getHours()'), 10);
    assert.equal(run('new Date().getTimezoneOffset()'), -60);
    assert.equal(run('String(new Date())'), 'Sun Mar 01 2026 10:00:00 GMT+0100');
    assert.equal(run('new Date(2026, 2, 1, 10, 30).toISOString()'), '2026-03-01T09:30:00.000Z');
    assert.equal(run("new Date('2026-03-01T10:00').toISOString()"), '2026-03-01T09:00:00.000Z');
    assert.equal(run("new Date('2026-03-01T10:00Z').toISOString()"), '2026-03-01T10:00:00.000Z');
    assert.equal(run("const later = new Date(); later.setHours(23, 30); later.toISOString()"), '2026-03-01T22:30:00.000Z');
    assert.equal(run("new Intl.DateTimeFormat('en-GB', { timeStyle: 'short' }).format()"), '10:00');
    host.clock.now = epoch + 60000;
    host.clock.utcOffset = 0;
    assert.equal(run('typeof Date()'), 'string');
    assert.equal(run('String(new Date())'), 'Sun Mar 01 2026 09:01:00 GMT+0000 (Coordinated Universal Time)');
    // The realm's Date is its own: its prototype names it, and node's Date is untouched.
    assert.equal(run('Date.prototype.constructor === Date'), true);
    assert.notEqual(run('Date'), Date);
    assert.notEqual(new Date(epoch).getTimezoneOffset(), -60);
});

test('timers are the harness\'s: each is told to the host with its delay read as browsers read it', async () => {
    const { common, run } = await realm();
    const host = recordingHost();
    const timers = common.installTimers(common.hostOf(host.functions));
    run(`globalThis.fired = [];
         setTimeout((a, b) => fired.push(['once', a, b]), 1.9, 'x', 'y');
         setTimeout(() => {}, -5);
         setTimeout(() => {}, 2 ** 31);
         setInterval(() => fired.push(['every']), 0);
         clearTimeout(2);
         clearTimeout(99);`);
    assert.deepEqual(host.told, [['setTimer', 1, epoch + 1], ['setTimer', 2, epoch], ['setTimer', 3, epoch], ['setTimer', 4, epoch + 1], ['cancelTimer', 2]]);
    host.told.length = 0;
    const once = timers.due(1);
    once.callback(...once.args);
    assert.equal(timers.due(1), undefined, 'a timeout runs once');
    const every = timers.due(4);
    every.callback(...every.args);
    assert.deepEqual(host.told, [['setTimer', 4, epoch + 1]], 'an interval is set again as it runs');
    assert.deepEqual(run('JSON.stringify(fired)'), '[["once","x","y"],["every"]]');
    assert.throws(() => run("setTimeout('fired.push(1)', 0)"), (error) => error.name === 'TypeError' && !(error instanceof TypeError),
                  'a string is not evaluated, and the error is the realm\'s');
});

test('a host function that throws becomes the realm\'s own error', async () => {
    const { common, context } = await realm();
    const host = common.hostOf(recordingHost().functions);
    const RealmRangeError = vm.runInContext('RangeError', context);
    assert.throws(() => host.fails(), (error) => error instanceof RealmRangeError);
});

test('an error\'s stack names the scripts\' frames, not the runtime\'s', async () => {
    const { common, context, run } = await realm();
    common.installStacks(common.hostOf(recordingHost().functions), 'runtime:');
    const stack = vm.runInContext('function inScript() { return new Error("boom").stack } inScript()', context, { filename: 'background.js' });
    assert.match(stack, /^Error: boom\n {4}at inScript \(background\.js:1:/);
    assert.doesNotMatch(stack, /runtime:|node:/);
    assert.equal(run('Object.getOwnPropertyDescriptor(Error, "prepareStackTrace").writable'), false, 'scripts cannot replace it');
});

test('events and ports are made in the realm and keep their listeners', async () => {
    const { common, context } = await realm();
    const listeners = [];
    const event = common.eventOf(listeners);
    const f = () => {};
    event.addListener(f);
    event.addListener(f);
    assert.equal(listeners.length, 1);
    assert.equal(Object.getPrototypeOf(event), vm.runInContext('Object.prototype', context));
    const posted = [], heard = [];
    let lastError;
    const end = common.portEnd({ name: 'p' }, (text) => posted.push(text), () => posted.push('closed'),
                               { listenerCall: (listener, args) => listener(...args), setLastError: (error) => { lastError = error; } });
    end.port.onMessage.addListener((message) => heard.push(message));
    end.port.onDisconnect.addListener(() => heard.push(lastError?.message));
    end.port.postMessage({ a: 1 });
    end.heard('hi');
    end.closed('gone');
    assert.deepEqual(posted, ['{"a":1}']);
    assert.deepEqual(heard, ['hi', 'gone']);
    assert.equal(lastError, undefined, 'lastError is set only while the listeners run');
    assert.throws(() => end.port.postMessage(1), /the port is disconnected/);
});

// Host functions for a whole realm's install: each answers nothing, but those `given`.
const quietHost = (given) => Object.fromEntries(names.map((name) => [name, given[name] ?? (() => '')]));
const names = ['now', 'utcOffset', 'uptime', 'seed', 'setTimer', 'cancelTimer', 'storage', 'sendNative', 'decide', 'showPopup', 'answerPopup',
    'connectNative', 'answerPage', 'messageTab', 'messagePopup', 'portPost', 'portClose', 'connectTab', 'setAlarm', 'clearAlarm', 'log', 'fetch', 'importScripts',
    'failure', 'threw', 'thrown', 'sendMessage', 'connect', 'portDisconnect', 'answer', 'tabs', 'ownPages', 'messages', 'isProxy', 'url', 'platform',
    'webStorage', 'tabNumber', 'tabName', 'activeTab', 'actionSet', 'menusChanged', 'permissionsRemoved', 'action', 'safariState', 'keep', 'tabsCall', 'tabWindow', 'activeIn', 'frontWindow', 'focusedWindow', 'openTabs', 'noDocument', 'runQueued'];

for (const [file, prefix, setup] of [
    ['runtime-realm.mjs', 'runtime:', JSON.stringify({ manifest_version: 3, name: 'x', version: '1', permissions: ['storage', 'alarms', 'nativeMessaging'] })],
    ['pages-realm.mjs', 'pages:', pageSetup({ url: 'https://a.example/', visible: true, appearance: 'light', popup: false,
                                              extensionID: 'x', manifest: JSON.stringify({ manifest_version: 3, name: 'x', version: '1' }) })],
]) {
    test(`nothing a script can reach from ${file} leads to node's realm`, file === 'pages-realm.mjs' ? needsPages : {}, async () => {
        const { context, window } = contextFor(file, setup);
        const { install } = realmModule(context, file, prefix);
        install(quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url }), setup, window);
        const run = (code) => vm.runInContext(code, context);
        for (const reach of ['browser.constructor.constructor', 'setTimeout.constructor', 'Date.constructor', 'chrome.runtime.getURL.constructor']) {
            assert.equal(run(`${reach} === Function`), true, `${reach} is the realm's Function`);
            assert.throws(() => run(`${reach}('return process')()`), (error) => error.name === 'EvalError', `${reach} makes no code from strings`);
        }
        // A page's document is jsdom's, whose functions are node's realm's: that realm makes no
        // code from strings (node runs with --disallow-code-generation-from-strings), and the
        // document's window has none of node's globals.
        if (file === 'pages-realm.mjs') {
            for (const reach of ['document.constructor.constructor', 'document.querySelector.constructor', 'HTMLElement.constructor',
                                 'document.defaultView.Function', 'new MutationObserver(() => {}).observe.constructor']) {
                assert.throws(() => run(`${reach}('return process')()`), (error) => error.name === 'EvalError', `${reach} makes no code from strings`);
            }
            assert.equal(run('typeof document.defaultView.process + typeof document.defaultView.require'), 'undefinedundefined');
            assert.equal(run('document.defaultView.Date.now()'), epoch);
        }
        assert.equal(run('typeof process'), 'undefined');
        assert.equal(run('typeof require'), 'undefined');
        assert.equal(run('Date.now()'), epoch);
    });
}

// What a page's objects lead to beyond its realm: node's built-in prototypes (Promise's and
// Buffer's among them), jsdom's implementation of each DOM object (behind a symbol-named
// property) and the selector engine's context's built-ins are every page's, so a
// change to them is seen (changedShared) and keeps the host from other runs; the selector
// engine's functions make no code from strings; jsdom's resource loader reads no file; the
// realm's global leads to its own prototype, not to the document's names every page reads.
test('what every page shares: a change to it is seen, and it makes no code and reads no file', needsPages, async () => {
    const setup = pageSetup({ url: 'https://a.example/', visible: true, appearance: 'light', popup: false, extensionID: 'x',
                              manifest: JSON.stringify({ manifest_version: 3, name: 'x', version: '1' }) });
    const { context, window } = contextFor('pages-realm.mjs', setup);
    realmModule(context, 'pages-realm.mjs', 'pages:').install(quietHost({ messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url }), setup, window);
    const run = (code) => vm.runInContext(code, context);
    assert.equal(changedShared(), null);
    assert.equal(run('Object.getPrototypeOf(document.querySelector) === Function.prototype'), false, 'a DOM method is node\'s realm\'s');
    const implementation = 'document[Object.getOwnPropertySymbols(document)[0]]';
    for (const [reach, name] of [['Object.getPrototypeOf(document.querySelector)', 'Function.prototype'],
                                 [`Object.getPrototypeOf(${implementation})`, 'DocumentImpl.prototype'],
                                 ['Object.getPrototypeOf(document.createElement("canvas")[Object.getOwnPropertySymbols(document)[0]])', 'HTMLCanvasElementImpl.prototype'],
                                 ['Object.getPrototypeOf(customElements.whenDefined("a-b"))', 'Promise.prototype'],
                                 [`Object.getPrototypeOf(new Blob(["x"])[Object.getOwnPropertySymbols(document)[0]]._buffer)`, 'Buffer.prototype'],
                                 [`(document.querySelector("body"), Object.getPrototypeOf(${implementation}._nwsapi))`, 'Object.prototype']]) {
        run(`${reach}.harnessWasHere = 1`);
        assert.equal(changedShared(), `${name}: harnessWasHere changed`, reach);
        run(`delete ${reach}.harnessWasHere`);
        assert.equal(changedShared(), null, `${reach} is as it was`);
    }
    run('document.querySelector("body")');
    assert.throws(() => run(`${implementation}._nwsapi.select.constructor('return 1')`), (error) => error.name === 'EvalError', 'the selector engine\'s Function');
    assert.equal(run('Object.getPrototypeOf(Object.getPrototypeOf(document.defaultView._resourceLoader)).fetch("file:///etc/hostname")'), null);
    assert.equal(run('Object.getPrototypeOf(Object.getPrototypeOf(globalThis)) === Object.prototype && !("document" in Object.getPrototypeOf(globalThis))'), true,
                 'the global\'s prototypes are the realm\'s, not the document\'s names');
    assert.equal(run('document.defaultView.Intl === Intl && document.defaultView.Object === Object'), true);
});

test('each realm module gives the same names through the runtimes\' loader as node\'s own import', async () => {
    for (const file of ['realm-common.mjs', 'runtime-realm.mjs', 'pages-realm.mjs']) {
        const native = await import(`../../Sources/HarnessCore/Extension/JavaScript/${file}`);
        const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
        const loaded = realmModule(context, file, 'runtime:');
        assert.deepEqual(Object.keys(loaded).sort(), Object.keys(native).sort(), file);
        for (const name of Object.keys(loaded)) assert.equal(typeof loaded[name], typeof native[name], `${file}: ${name}`);
    }
});

// The web's globals, made in the realm: a URL parsed by the host and read and changed in the
// realm, its search parameters kept in step, text as UTF-8, base64, and clones of plain values.
test('a realm has URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa and structuredClone', async () => {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const { install } = realmModule(context, 'runtime-realm.mjs', 'runtime:');
    install(quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url }),
            JSON.stringify({ manifest_version: 3, name: 'x', version: '1' }));
    const run = (code) => vm.runInContext(code, context);
    assert.equal(run(`new URL('/a/b?x=1#top', 'https://news.example.com/story').href`), 'https://news.example.com/a/b?x=1#top');
    assert.equal(run(`new URL('https://www.example.com:8080/p').hostname`), 'www.example.com');
    assert.equal(run(`(() => { const u = new URL('https://a.example/?q=1'); u.searchParams.append('r', 'a b'); u.pathname = '/x'; return u.href; })()`),
                 'https://a.example/x?q=1&r=a+b');
    assert.equal(run(`URL.canParse('not a url')`), false);
    assert.throws(() => run(`new URL('nope')`), (error) => error.message === '"nope" cannot be parsed as a URL.' && run('TypeError') === error.constructor);
    assert.equal(run(`new URL('https://a.example/').constructor === URL && new URL('https://a.example/') instanceof Object`), true);
    assert.equal(run(`new URLSearchParams({ b: '2', a: '1 & 2' }).toString()`), 'b=2&a=1+%26+2');
    assert.equal(run(`JSON.stringify([...new URLSearchParams('?a=1&a=2&b=%20x')].concat([new URLSearchParams('a=1&a=2').getAll('a')]))`),
                 '[["a","1"],["a","2"],["b"," x"],["1","2"]]');
    assert.equal(run(`Array.from(new TextEncoder().encode('é€😀')).join(',')`), '195,169,226,130,172,240,159,152,128');
    assert.equal(run(`new TextDecoder().decode(new TextEncoder().encode('héllo 😀'))`), 'héllo 😀');
    assert.equal(run(`new TextDecoder().decode(new Uint8Array([0xff, 0x61]))`), '\uFFFDa');
    assert.equal(run(`btoa('hello')`), 'aGVsbG8=');
    assert.equal(run(`atob('aGVsbG8=')`), 'hello');
    assert.throws(() => run(`btoa('é€')`), (error) => error.name === 'InvalidCharacterError');
    assert.equal(run(`(() => { const a = { d: new Date(5), m: new Map([[1, [2]]]) }; a.self = a; const c = structuredClone(a);
        return c !== a && c.self === c && c.d.getTime() === 5 && c.m.get(1)[0] === 2 && c.m.get(1) !== a.m.get(1); })()`), true);
    assert.throws(() => run(`structuredClone({ f() {} })`), (error) => error.name === 'DataCloneError');
    assert.equal(run(`URL.constructor === Function && typeof process`), 'undefined');
    // crypto draws from the seed: the same realm setup gives the same values.
    assert.match(run(`crypto.randomUUID()`), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(run(`crypto.getRandomValues(new Uint8Array(4)).length`), 4);
    // Events: listeners in order, once, handleEvent objects, preventDefault when cancelable.
    assert.equal(run(`(() => {
        const target = new EventTarget(), seen = [];
        target.addEventListener('ping', (event) => seen.push('a:' + event.detail.n));
        target.addEventListener('ping', { handleEvent: (event) => seen.push('b:' + (event.target === target)) }, { once: true });
        target.addEventListener('ping', (event) => event.preventDefault());
        const first = target.dispatchEvent(new CustomEvent('ping', { detail: { n: 1 }, cancelable: true }));
        target.dispatchEvent(new CustomEvent('ping', { detail: { n: 2 } }));
        return seen.join(',') + ' ' + first;
    })()`), 'a:1,b:true,a:2 false');
    // Aborting: the signal says so once, with an AbortError unless given a reason.
    assert.equal(run(`(() => {
        const controller = new AbortController(), seen = [];
        controller.signal.addEventListener('abort', () => seen.push(controller.signal.reason.name));
        controller.abort();
        controller.abort();
        let thrown = '';
        try { controller.signal.throwIfAborted(); } catch (error) { thrown = error.name; }
        return seen.join(',') + ' ' + controller.signal.aborted + ' ' + thrown + ' ' + AbortSignal.abort('why').reason;
    })()`), 'AbortError true AbortError why');
    assert.throws(() => run(`new AbortSignal()`), /Illegal constructor/);
    // A background's navigator says iOS until Safari's start says it runs on a Mac.
    assert.equal(run(`navigator.platform + ' ' + navigator.userAgent.includes('iPhone') + ' ' + navigator.language`), 'iPhone true en-US');
});

test('a page\'s navigator says the platform its page host was given', needsPages, async () => {
    for (const [platform, expected] of [['ios', 'iPhone 5'], ['macos', 'MacIntel 0']]) {
        const setup = pageSetup({ url: 'https://a.example/', visible: true, appearance: 'light', popup: false,
                                  extensionID: 'x', manifest: JSON.stringify({ manifest_version: 3, name: 'x', version: '1' }) });
        const { context, window } = contextFor('pages-realm.mjs', setup);
        const { install } = realmModule(context, 'pages-realm.mjs', 'pages:');
        install(quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => platform }),
                setup, window);
        assert.equal(vm.runInContext('navigator.platform + " " + navigator.maxTouchPoints', context), expected);
        assert.equal(vm.runInContext('location.hostname', context), 'a.example');
    }
});

// Safari's namespaces by context and manifest: what Safari gives and the runtime lacks throws
// naming it; what Safari does not give is absent, so a feature check sees it absent.
test('a namespace Safari lacks is absent, one it has and the runtime lacks throws, and i18n reads the locale', needsPages, async () => {
    const manifest = { manifest_version: 3, name: 'x', version: '1', default_locale: 'en', permissions: ['storage', 'contextMenus'], action: {} };
    const catalogue = JSON.stringify({ greeting: { message: 'Hello, $who$!', placeholders: { who: { content: '$1' } } } });
    const realmOf = (file, prefix, setup) => {
        const { context, window } = contextFor(file, setup);
        realmModule(context, file, prefix).install(quietHost({ ownPages: () => false, messages: () => catalogue, isProxy: () => false, now: () => epoch,
                                                              utcOffset: () => 0, url, platform: () => 'ios' }), setup, window);
        return (code) => vm.runInContext(code, context);
    };
    const page = (popup) => pageSetup({ url: popup ? 'safari-web-extension://x/popup.html' : 'https://a.example/', visible: true, appearance: 'light',
                                        popup, extensionPage: popup, extensionID: 'x', manifest: JSON.stringify(manifest) });
    const realms = {
        background: realmOf('runtime-realm.mjs', 'runtime:', JSON.stringify(manifest)),
        popup: realmOf('pages-realm.mjs', 'pages:', page(true)),
        content: realmOf('pages-realm.mjs', 'pages:', page(false)),
    };
    for (const [name, run] of Object.entries(realms)) {
        for (const lacked of ['sidebarAction', 'sidePanel', 'notifications', 'downloads', 'bookmarks', 'identity', 'browserAction', 'alarms']) {
            assert.equal(run(`typeof browser.${lacked} + ' ' + ('${lacked}' in browser) + ' ' + typeof chrome.${lacked}`), 'undefined false undefined', `${name}: ${lacked}`);
        }
        assert.equal(run(`browser.i18n.getMessage('greeting', 'you') + ' ' + browser.i18n.getMessage('absent') + '|' + browser.i18n.getUILanguage()`),
                     'Hello, you! |en', name);
    }
    for (const run of [realms.background, realms.popup]) {
        assert.equal(run(`typeof browser.contextMenus + ' ' + typeof browser.menus + ' ' + ('action' in browser)`), 'object object true');
        assert.throws(() => run('browser.windows.create({})'), /browser\.windows\.create is not provided/);
    }
    // The background and the extension's pages make menu items (Safari holds them).
    assert.equal(realms.background('browser.contextMenus.create({ id: "a", title: "A" })'), 'a');
    assert.equal(realms.popup('browser.contextMenus.create({ id: "a", title: "A" })'), 'a');
    // A content script has runtime, i18n, extension and storage only.
    assert.equal(realms.content(`typeof browser.tabs + ' ' + typeof browser.contextMenus + ' ' + typeof browser.action + ' ' + typeof browser.runtime`),
                 'undefined undefined undefined object');
    // Manifest V2's actions are V2's.
    const v2 = realmOf('runtime-realm.mjs', 'runtime:', JSON.stringify({ manifest_version: 2, name: 'x', version: '1', browser_action: {}, background: { scripts: [] } }));
    assert.equal(v2(`typeof browser.browserAction + ' ' + typeof browser.action + ' ' + typeof browser.pageAction`), 'object undefined undefined');
});

// The globals a new user's own small extension reached for and found missing, in each realm:
// none of them is undefined any more, and location.hostname is the page's.
// The new user's list, in each of Safari's four realms: a service worker has no window,
// document, localStorage or importScripts of a page, a background page no importScripts.
test('the web\'s globals a small extension reaches for are in a service worker, a background page, a content script and the popup', needsPages, async () => {
    const manifest = JSON.stringify({ manifest_version: 3, name: 'x', version: '1' });
    const stored = new Map();
    const host = quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                             noDocument: () => 'its scripts name no part of the DOM',
                             webStorage: (kind, op, key, value) => {
                                 if (op === 'set') stored.set(key, value);
                                 return op === 'get' ? JSON.stringify(stored.get(key) ?? null) : op === 'keys' ? JSON.stringify([...stored.keys()]) : 'null';
                             } });
    const realmOf = (file, prefix, setup, manifestText = manifest) => {
        const { context, window } = contextFor(file, setup);
        const installed = realmModule(context, file, prefix).install(host, file === 'runtime-realm.mjs' ? manifestText : setup, window);
        const run = (code) => vm.runInContext(code, context);
        run.turn = (kind) => { installed.post(kind, 0, ''); run('__runtimeTurn()'); };
        return run;
    };
    const page = (popup) => pageSetup({ url: popup ? 'safari-web-extension://x/popup.html' : 'https://news.example.com/story', visible: true,
                                        appearance: 'light', popup, extensionPage: popup, extensionID: 'x', manifest });
    const everywhere = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'structuredClone', 'AbortController', 'AbortSignal', 'atob', 'btoa',
                        'navigator', 'queueMicrotask', 'EventTarget', 'Event', 'CustomEvent', 'crypto', 'Blob', 'Headers', 'Request', 'Response', 'self'];
    const inPages = ['localStorage', 'sessionStorage', 'requestAnimationFrame', 'cancelAnimationFrame', 'history', 'location', 'document', 'window'];
    const worker = JSON.stringify({ manifest_version: 3, name: 'x', version: '1', background: { service_worker: 'background.js' } });
    const backgroundPage = JSON.stringify({ manifest_version: 2, name: 'x', version: '1', background: { scripts: ['background.js'], persistent: false } });
    const realms = [['service worker', realmOf('runtime-realm.mjs', 'runtime:', '', worker), [...everywhere, 'importScripts'], ['window', 'document', 'localStorage']],
                    ['background page', realmOf('runtime-realm.mjs', 'runtime:', '', backgroundPage), [...everywhere, 'window', 'localStorage'], ['importScripts']],
                    ['content script', realmOf('pages-realm.mjs', 'pages:', page(false)), [...everywhere, ...inPages], ['importScripts']],
                    ['popup', realmOf('pages-realm.mjs', 'pages:', page(true)), [...everywhere, ...inPages], ['importScripts']]];
    for (const [name, run, globals, absent] of realms) {
        const missing = globals.filter((global) => run(`typeof ${global}`) === 'undefined');
        assert.deepEqual(missing, [], `${name} lacks ${missing.join(', ')}`);
        const present = absent.filter((global) => run(`typeof ${global}`) !== 'undefined');
        assert.deepEqual(present, [], `${name} has ${present.join(', ')}, which Safari does not give it`);
    }
    assert.equal(realms[2][1]('location.hostname'), 'news.example.com');
    // A background page is its window: it keeps localStorage with the extension's storage, and
    // hears that it loaded; its document is not provided, and says so.
    const background = realms[1][1];
    background('window.heard = []; addEventListener("load", (event) => heard.push(event.type)); window.onload = () => heard.push("onload"); localStorage.seen = 1; sessionStorage.setItem("tab", "x")');
    background.turn('loaded');
    assert.equal(background('heard.join(" ")'), 'load onload');
    assert.equal(stored.get('seen'), '1');
    assert.equal(background('window === self && window === globalThis && localStorage.getItem("seen")'), '1');
    // Its sessionStorage is its own, kept in the page (not with the extension's storage).
    assert.equal(background('sessionStorage.getItem("tab") + sessionStorage.length + sessionStorage.key(0)'), 'x1tab');
    assert.equal(stored.has('tab'), false);
    assert.throws(() => background('document.body'), /document \(a background page's\) is not provided by the harness's runtime: its scripts name no part of the DOM/);

    // A background page whose scripts name the DOM is given its document (runtime.mjs): its
    // window's names are read from it, behind the realm's own, and its window is the document's
    // event target, which hears DOMContentLoaded through the document, then load.
    const sandbox = Object.create(null);
    const context = vm.createContext(sandbox, { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const installed = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(host, backgroundPage);
    const window = openDocument(plainPage, 'safari-web-extension://x/_generated_background_page.html', () => {});
    attachWindow(sandbox, window);
    installed.attach(window);
    const withDocument = (code) => vm.runInContext(code, context);
    const domNames = ['document', 'DOMParser', 'Node', 'HTMLElement', 'MutationObserver', 'XMLSerializer', 'location', 'getComputedStyle'];
    assert.deepEqual(domNames.filter((name) => withDocument(`typeof ${name}`) === 'undefined'), [], 'a background page with its document');
    assert.deepEqual(everywhere.filter((name) => withDocument(`typeof ${name}`) === 'undefined'), []);
    assert.equal(withDocument('typeof importScripts'), 'undefined');
    assert.equal(withDocument('location.hostname + location.pathname + " " + (document instanceof Node) + " " + (new Event("x") instanceof document.defaultView.Event)'),
                 'x/_generated_background_page.html true true');
    // What the document's window reaches is the realm's clock, not node's.
    assert.equal(withDocument('document.defaultView.Date === Date && document.defaultView.setTimeout === setTimeout'), true);
    withDocument('window.heard = [document.readyState]; document.addEventListener("DOMContentLoaded", () => heard.push("DOMContentLoaded " + document.readyState)); '
                 + 'addEventListener("load", () => heard.push("load")); window.onload = () => heard.push("onload")');
    installed.post('loaded', 0, '');
    withDocument('__runtimeTurn()');
    assert.equal(withDocument('heard.join(" ")'), 'loading DOMContentLoaded interactive load onload');
});

// Headers, Request and Response (and the background's Blob) hold a body whole: it is read
// once, as text, JSON, bytes or a Blob, with the content type it implies.
test('Headers, Request, Response and Blob keep a body and read it once', async () => {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                    fetch: (address) => address === 'https://api.example.com/v1' ? JSON.stringify({ status: 201, body: '{"ok":true}' }) : '' }),
        JSON.stringify({ manifest_version: 3, name: 'x', version: '1', background: { service_worker: 'b.js' } }));
    const run = (code) => vm.runInContext(code, context);
    run(`globalThis.results = [];
         const headers = new Headers({ 'X-One': ' a ', accept: 'text/html' });
         headers.append('x-one', 'b');
         results.push([...headers].map((pair) => pair.join('=')).join(' '));
         try { new Headers({ 'bad name': 1 }); } catch (error) { results.push(error.name); }
         const request = new Request('https://api.example.com/v1?q=1', { method: 'post', body: new URLSearchParams({ a: '1 2' }) });
         results.push(request.method + ' ' + request.url + ' ' + request.headers.get('content-type'));
         try { new Request('https://x.example/', { body: 'x' }); } catch (error) { results.push(error.message); }
         const blob = new Blob(['héllo ', new Uint8Array([33])], { type: 'Text/Plain' });
         results.push(blob.size + ' ' + blob.type);
         const response = new Response(blob, { status: 202, headers: [['x-a', '1']] });
         const copy = response.clone();
         Promise.all([request.text(), response.text(), copy.blob().then((b) => b.text()), blob.slice(1, 3).text(),
                      Response.json({ n: 1 }).json().then((v) => v.n), fetch('https://api.example.com/v1').then((r) => [r.status, r.ok, r.url, r.type, r instanceof Response].join(' ')),
                      fetch(new Request('https://api.example.com/v1')).then((r) => r.json()).then((v) => v.ok),
                      fetch('https://elsewhere.example/').catch((error) => error.name)])
           .then((values) => { results.push(...values.map(String)); return response.text(); })
           .catch((error) => results.push(error.message));
         try { new Response('x', { status: 99 }); } catch (error) { results.push(error.name); }`);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), [
        'accept=text/html x-one=a, b', 'TypeError',
        'POST https://api.example.com/v1?q=1 application/x-www-form-urlencoded;charset=UTF-8',
        'Request with GET/HEAD method cannot have body.',
        '8 text/plain', 'RangeError',
        'a=1+2', 'héllo !', 'héllo !', 'é', '1', '201 true https://api.example.com/v1 basic true', 'true', 'TypeError',
        'text(): the body has already been read',
    ]);
});

// In a page, a Blob is the document's: a body made of one is read only when asked for, and
// one that cannot be read says why.
test('a page\'s body of its document\'s Blob is read only when asked for, or says why it cannot be', needsPages, async () => {
    const setup = pageSetup({ url: 'https://a.example/', visible: true, appearance: 'light', popup: false, extensionID: 'x',
                              manifest: JSON.stringify({ manifest_version: 3, name: 'x', version: '1' }) });
    const { context, window } = contextFor('pages-realm.mjs', setup);
    realmModule(context, 'pages-realm.mjs', 'pages:').install(quietHost({ messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url }), setup, window);
    const run = (code) => vm.runInContext(code, context);
    let rejected = 0;
    const count = () => { rejected += 1; };
    process.on('unhandledRejection', count);
    try {
        run(`globalThis.results = [];
             const unread = new Response(new Blob(['never read']));
             const blob = new Blob(['x']);
             const read = typeof blob.arrayBuffer === 'function' ? 'readable' : 'document';
             new Response(blob).text().then((text) => results.push(read + ' ' + text), (error) => results.push(read + ' ' + error.message));`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
        process.off('unhandledRejection', count);
    }
    const [result] = JSON.parse(run('JSON.stringify(results)'));
    assert.ok(result === 'readable x' || result === "document a page's Blob is its document's (jsdom's), which has no arrayBuffer(): the harness's runtime cannot read it as a body", result);
    assert.equal(rejected, 0, 'a body never read rejects nothing');
});

// The toolbar item: each set goes to Safari (actionSet, a tab by its name, '' for every tab),
// and a getter answers from Safari's copy, a tab's value falling back to the default's, then to
// the manifest's; a tab Safari does not have is refused.
test('the action\'s state goes to Safari and its getters fall back from a tab to the default to the manifest', async () => {
    const told = [];
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const scripts = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                    tabNumber: (name) => ({ t1: 1, t2: 2 })[name] ?? 0, tabName: (id) => ({ 1: 't1', 2: 't2' })[id] ?? '',
                    actionSet: (tab, property, value) => { told.push([tab, property, JSON.parse(value)]); } }),
        JSON.stringify({ manifest_version: 2, name: 'x', version: '1', background: { scripts: ['b.js'], persistent: false },
                         browser_action: { default_title: 'Counter', default_popup: 'popup.html' } }));
    const run = (code) => vm.runInContext(code, context);
    scripts.post('started', 0, JSON.stringify({ appearance: 'light', tabs: { t1: 'https://a.example/', t2: 'https://b.example/' },
                                                 action: { default: { badgeText: '9' }, tabs: { t2: { title: 'Two' } } } }));
    run('__runtimeTurn()');
    run(`globalThis.results = [];
         (async () => {
           const action = browser.browserAction;
           for (const next of [() => action.getBadgeText({}), () => action.getTitle({ tabId: 2 }), () => action.getTitle({}),
                               () => action.setBadgeText({ text: '3', tabId: 1 }).then(() => action.getBadgeText({ tabId: 1 })),
                               () => action.getBadgeText({ tabId: 2 }), () => action.getPopup({}),
                               () => action.disable(2).then(() => action.isEnabled({ tabId: 2 })), () => action.isEnabled({ tabId: 1 }),
                               () => action.getBadgeBackgroundColor({}),
                               () => action.setBadgeText({ text: null, tabId: 1 }).then(() => action.getBadgeText({ tabId: 1 })),
                               () => action.setBadgeText({ text: 'x', tabId: 7 }).catch((error) => error.message),
                               () => typeof browser.action, () => typeof browser.pageAction]) {
             results.push(JSON.stringify(await next()));
           }
         })();`);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['"9"', '"Two"', '"Counter"', '"3"', '"9"', '"popup.html"', 'false', 'true', '[255,0,0,255]', '"9"',
        '"Invalid call to browserAction.setBadgeText(). Tab not found: 7."', '"undefined"', '"undefined"']);
    assert.deepEqual(told, [['t1', 'badgeText', '3'], ['t2', 'enabled', false], ['t1', 'badgeText', null]]);
});

// The context menu: each change sends Safari the whole list, an item's children go with it, a
// duplicate id or a missing parent is refused through runtime.lastError, and a choice reaches
// onClicked with the item, its check and the tab.
test('menus keep Safari\'s list and a choice reaches onClicked with the tab', async () => {
    const told = [];
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const scripts = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                    tabNumber: (name) => ({ t1: 1 })[name] ?? 0, tabName: (id) => ({ 1: 't1' })[id] ?? '',
                    // (Each item by its id, * when checked, ! when its title became "Changed".)
                    menusChanged: (text) => { told.push(JSON.parse(text).map((item) => item.id + (item.checked ? '*' : '') + (item.title === 'Changed' ? '!' : ''))); } }),
        JSON.stringify({ manifest_version: 3, name: 'x', version: '1', permissions: ['contextMenus'], background: { service_worker: 'b.js' } }));
    const run = (code) => vm.runInContext(code, context);
    const turn = (kind, value) => { scripts.post(kind, 0, JSON.stringify(value)); run('__runtimeTurn()'); };
    turn('started', { appearance: 'light', tabs: { t1: 'https://a.example/' }, menus: [{ id: 'tools', title: 'Tools', contexts: ['all'], type: 'normal', checked: false, enabled: true, visible: true }] });
    run(`globalThis.results = [];
         browser.menus.onClicked.addListener((info, tab) => results.push([info.menuItemId, info.parentMenuItemId, info.checked, info.wasChecked, info.pageUrl, tab.id].join(' ')));
         results.push(browser.contextMenus.create({ id: 'save', parentId: 'tools', title: 'Save', type: 'checkbox' }));
         results.push(browser.menus.create({ title: 'Numbered' }));
         browser.menus.create({ id: 'save' }, () => results.push(browser.runtime.lastError.message));
         browser.menus.create({ id: 'orphan', parentId: 'nowhere' }, () => results.push(browser.runtime.lastError.message));
         browser.menus.update('missing', {}).catch((error) => results.push(error.message));`);
    turn('event', { type: 'menuClicked', id: 'save', parentId: 'tools', tab: 't1', url: 'https://a.example/', checked: true, wasChecked: false });
    run(`browser.menus.remove('tools').then(() => results.push('removed'));`);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['save', 1,
        "Invalid call to menus.create(). A menu item with the identifier 'save' already exists.",
        'Invalid call to menus.create(). Parent menu item not found.', 'Invalid call to menus.update(). Menu item not found.',
        'save tools true false https://a.example/ 1', 'removed']);
    assert.deepEqual(told, [['tools', 'save'], ['tools', 'save', '1'], ['1']]);
    // A loop of parents, an id that is not a whole number and a refused update change nothing;
    // radio items beside a chosen one are unchecked; a new list numbers after its highest id.
    told.length = 0;
    turn('started', { appearance: 'light', tabs: { t1: 'https://a.example/' }, menus: [
        { id: 'a', title: 'A', contexts: ['page'], type: 'radio', checked: true, enabled: true, visible: true },
        { id: 'b', title: 'B', contexts: ['page'], type: 'radio', checked: false, enabled: true, visible: true },
        { id: 4, title: 'Four', contexts: ['page'], type: 'normal', checked: false, enabled: true, visible: true, parentId: 'a' }] });
    run(`globalThis.results = [];
         browser.menus.update('a', { parentId: 4 }).catch((error) => results.push(error.message));
         browser.menus.update('b', { parentId: 'b' }).catch((error) => results.push(error.message));
         browser.menus.update('b', { title: 'Changed', parentId: 'nowhere' }).catch((error) => results.push(error.message));
         browser.menus.create({ id: NaN }, () => results.push(browser.runtime.lastError.message));
         results.push(browser.menus.create({ title: 'Next' }));`);
    turn('event', { type: 'menuClicked', id: 'b', tab: 't1', url: 'https://a.example/', checked: true, wasChecked: false });
    run(`browser.menus.update(4, { title: 'Four' }).then(() => results.push('updated'));`);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ["Invalid call to menus.create(). 'id' is expected to be a string or a whole number.", 5,
        'Invalid call to menus.update(). A menu item cannot be under itself.', 'Invalid call to menus.update(). A menu item cannot be under itself.',
        'Invalid call to menus.update(). Parent menu item not found.', 'b  true false https://a.example/ 1', 'updated']);
    assert.deepEqual(told, [['a*', 'b', '4', '5'], ['a', 'b*', '4', '5']], 'a refused change sends nothing, and once B is chosen only B is checked');
});

// declarativeNetRequest keeps each kind of rule where Safari keeps it (the host's files), refuses
// a rule without an id, an action or a condition, and an id in use, and turns rulesets on and off.
test('declarativeNetRequest keeps its rules and rulesets, and matches nothing', async () => {
    const files = new Map();
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                    keep: (name, text) => { if (text === '') return files.get(name) ?? ''; files.set(name, text); return ''; } }),
        JSON.stringify({ manifest_version: 3, name: 'x', version: '1', permissions: ['declarativeNetRequest'], background: { service_worker: 'b.js' },
                         declarative_net_request: { rule_resources: [{ id: 'ads', enabled: true, path: 'ads.json' }, { id: 'trackers', enabled: false, path: 't.json' }] } }));
    const run = (code) => vm.runInContext(code, context);
    run(`globalThis.results = [];
         (async () => {
           const net = browser.declarativeNetRequest;
           const block = (id) => ({ id, priority: 1, action: { type: 'block' }, condition: { urlFilter: 'ads' } });
           await net.updateDynamicRules({ addRules: [block(1), block(2)] });
           await net.updateDynamicRules({ removeRuleIds: [1], addRules: [block(3)] });
           results.push((await net.getDynamicRules()).map((rule) => rule.id).join(','));
           results.push((await net.getDynamicRules({ ruleIds: [3] })).map((rule) => rule.id).join(','));
           await net.updateSessionRules({ addRules: [block(1)] });
           results.push((await net.getSessionRules()).length);
           for (const bad of [{ addRules: [block(2)] }, { addRules: [{ id: 0 }] }, { addRules: [{ id: 9, action: {} }] }]) {
             results.push(await net.updateDynamicRules(bad).catch((error) => error.message));
           }
           results.push((await net.getEnabledRulesets()).join(','));
           await net.updateEnabledRulesets({ enableRulesetIds: ['trackers'], disableRulesetIds: ['ads'] });
           results.push((await net.getEnabledRulesets()).join(','));
           results.push(await net.updateEnabledRulesets({ enableRulesetIds: ['nope'] }).catch((error) => error.message));
           results.push((await net.getMatchedRules()).rulesMatchedInfo.length, (await net.isRegexSupported({ regex: '(' })).isSupported);
         })();`);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['2,3', '3', 1,
        'Invalid call to declarativeNetRequest.updateDynamicRules(). Rule with id 2 is already in use.',
        "Invalid call to declarativeNetRequest.updateDynamicRules(). A rule's id is expected to be a whole number of at least 1.",
        "Invalid call to declarativeNetRequest.updateDynamicRules(). Rule 9: 'action.type' is expected to be a string.",
        'ads', 'trackers', 'Invalid call to declarativeNetRequest.updateEnabledRulesets(). Invalid ruleset id: nope.', 0, false]);
    assert.deepEqual([...files.keys()].sort(), ['net-request-dynamic', 'net-request-enabled', 'net-request-session']);
});

// webNavigation: each stage of a load reaches its own listeners with {url, tabId, frameId}, a
// listener with a URL filter only for an address that passes it.
test('webNavigation fires each stage to its listeners, through their URL filters', async () => {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const scripts = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                    tabNumber: (name) => ({ t1: 1 })[name] ?? 0 }),
        JSON.stringify({ manifest_version: 3, name: 'x', version: '1', permissions: ['webNavigation'], background: { service_worker: 'b.js' } }));
    const run = (code) => vm.runInContext(code, context);
    const turn = (kind, value) => { scripts.post(kind, 0, JSON.stringify(value)); run('__runtimeTurn()'); };
    turn('started', { appearance: 'light', tabs: {} });
    run(`globalThis.results = [];
         browser.webNavigation.onCommitted.addListener((details) => results.push('committed ' + JSON.stringify(details)));
         browser.webNavigation.onCompleted.addListener((details) => results.push('news ' + details.url), { url: [{ hostSuffix: 'news.example.com' }] });
         browser.webNavigation.onCompleted.addListener((details) => results.push('docs ' + details.url), { url: [{ hostEquals: 'docs.example.com', pathPrefix: '/guide' }] });`);
    scripts.post('listening', 0, ''); run('__runtimeTurn()');
    assert.equal(scripts.result(), 'navigationCommitted,navigationCompleted');
    for (const [stage, address] of [['beforeNavigate', 'https://news.example.com/a'], ['committed', 'https://news.example.com/a'], ['completed', 'https://news.example.com/a'],
                                    ['completed', 'https://docs.example.com/guide/x'], ['completed', 'https://docs.example.com/other']]) {
        turn('event', { type: 'webNavigation', tab: 't1', url: address, stage });
    }
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['committed {"url":"https://news.example.com/a","tabId":1,"frameId":0}',
        'news https://news.example.com/a', 'docs https://docs.example.com/guide/x']);
    assert.throws(() => run('globalThis.late = () => {}; browser.webNavigation.onCompleted.addListener(late, { hostSuffix: "x" })'), /filter takes \{url:/);
    assert.equal(run('browser.webNavigation.onCompleted.hasListener(late)'), false, 'a refused filter adds no listener');
});

// permissions.getAll and contains read what the manifest grants (and nothing the user granted:
// no file is kept here).
test('permissions reads what the manifest grants', async () => {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios' }),
        JSON.stringify({ manifest_version: 3, name: 'x', version: '1', permissions: ['storage', 'tabs', 'https://v2-style.example.net/*'], optional_permissions: ['bookmarks'],
                         host_permissions: ['*://*.example.com/*', 'https://docs.example.org/guide/*'], background: { service_worker: 'b.js' } }));
    const run = (code) => vm.runInContext(code, context);
    run(`globalThis.results = [];
         (async () => {
           const all = await browser.permissions.getAll();
           results.push(all.permissions.join(',') + ' ' + all.origins.join(','));
           for (const asked of [{ permissions: ['tabs'] }, { permissions: ['bookmarks'] }, { origins: ['https://news.example.com/*'] },
                                { origins: ['https://other.example.org/*'] }, { permissions: ['storage'], origins: ['*://*.example.com/*'] },
                                { origins: ['https://*.news.example.com/a/*'] }, { origins: ['https://docs.example.org/*'] },
                                { origins: ['https://docs.example.org/guide/intro'] }, { origins: ['https://v2-style.example.net/*'] }]) {
             results.push(await browser.permissions.contains(asked));
           }
           await browser.permissions.request({ permissions: ['bookmarks'] }).catch((error) => results.push(error.message));
           results.push(await browser.runtime.setUninstallURL('https://example.com/bye'));
         })();`);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['storage,tabs *://*.example.com/*,https://docs.example.org/guide/*', true, false, true, false, true,
        true, false, true, false, "Invalid call to permissions.request(). The 'permissions' value is invalid, because 'bookmarks' is not a valid permission.", null]);
});

// tabs.query takes every filter over the tabs Safari told the background of, url as match
// patterns; tabs.get gives a whole tabs.Tab or fails naming the id.
test('tabs.query filters Safari\'s tabs and tabs.get gives one whole', async () => {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const scripts = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios' }),
        JSON.stringify({ manifest_version: 3, name: 'x', version: '1' }));
    const run = (code) => vm.runInContext(code, context);
    const turn = (kind, value) => { scripts.post(kind, 0, JSON.stringify(value)); run('__runtimeTurn()'); };
    turn('started', { appearance: 'light', tabs: { t1: 'https://news.example.com/a?x=1', t2: 'https://docs.example.org/guide', t3: 'https://news.example.com/b' } });
    turn('event', { type: 'tabActivated', tab: 't3' });
    run(`globalThis.results = [];
         const ids = (tabs) => tabs.map((tab) => tab.id + '@' + tab.index).join(' ');
         Promise.all([
           browser.tabs.query({ url: '*://*.example.com/*' }).then(ids),
           browser.tabs.query({ url: ['https://docs.example.org/*'], currentWindow: true }).then(ids),
           browser.tabs.query({ active: true, windowId: -2, status: 'complete', pinned: false }).then(ids),
           browser.tabs.query({ lastFocusedWindow: false }).then(ids),
           browser.tabs.query({ audible: true }).then(ids),
           browser.tabs.query({ groupId: 1 }).catch((error) => error.message),
           browser.tabs.get('t2').then((tab) => [tab.url, tab.active, tab.status, tab.windowId].join(' ')),
           browser.tabs.get('t9').catch((error) => error.message),
         ]).then((all) => { globalThis.results = all; });`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['t1@0 t3@2', 't2@1', 't3@2', '', '', 'tabs.query does not take groupId in the harness\'s runtime',
                                      'https://docs.example.org/guide false complete 1', 'Invalid call to tabs.get(). Tab not found: t9.']);
});

// scripting asks Safari to run a script or add a style sheet in a tab's page, where the extension
// may enter (its hosts; activeTab the front tab), and gives Safari's answer; it refuses a call
// without one source, and keeps registered content scripts, persistent or for the session.
// Manifest V2's tabs.executeScript gives each run's result alone; V3 lacks it.
test('scripting runs scripts in tabs through Safari and keeps registered content scripts', async () => {
    const install = (manifest) => {
        const calls = [], files = new Map();
        const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
        const scripts = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
            quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios',
                        tabNumber: (name) => ({ t1: 1, t2: 2 })[name] ?? 0, tabName: (id) => ({ 1: 't1', 2: 't2' })[id] ?? '',
                        tabsCall: (request, text) => { calls.push([request, JSON.parse(text)]); },
                        keep: (name, text) => { if (text === '') return files.get(name) ?? ''; files.set(name, text); return ''; } }),
            JSON.stringify({ name: 'x', version: '1', background: { scripts: ['b.js'] }, ...manifest }));
        const run = (code) => vm.runInContext(code, context);
        const turn = (kind, value) => { scripts.post(kind, 0, JSON.stringify(value)); run('__runtimeTurn()'); };
        turn('started', { appearance: 'light', tabs: { t1: 'https://news.example.com/a', t2: 'https://docs.example.org/b' } });
        turn('event', { type: 'tabActivated', tab: 't2' });
        run('globalThis.results = []; globalThis.note = (value) => results.push(value); globalThis.why = (error) => results.push(error.message);');
        return { calls, files, run, turn, results: () => JSON.parse(run('JSON.stringify(results)')) };
    };
    const v3 = install({ manifest_version: 3, permissions: ['scripting'], host_permissions: ['https://news.example.com/*'] });
    v3.run(`const s = browser.scripting;
            s.executeScript({ target: { tabId: 1 }, func: (a) => a * 2, args: [21] }).then(note, why);
            s.insertCSS({ target: { tabId: 1 }, files: ['a.css'] }).then(note, why);
            s.executeScript({ target: { tabId: 1 }, files: ['c.js'] }).then(note, why);
            s.executeScript({ target: { tabId: 2 }, func: () => 1 }).then(note, why);
            s.executeScript({ target: { tabId: 1 } }).then(note, why);
            s.executeScript({ target: { tabId: 1 }, func: 'f' }).then(note, why);
            s.removeCSS({ target: {}, css: 'p {}' }).then(note, why);
            note(typeof browser.tabs.executeScript);`);
    assert.deepEqual(v3.calls, [[1, { method: 'executeScript', tab: 't1', func: '(a) => a * 2', args: [21] }], [2, { method: 'insertCSS', tab: 't1', files: ['a.css'] }],
                                [3, { method: 'executeScript', tab: 't1', files: ['c.js'] }]]);
    v3.turn('event', { type: 'tabsAnswered', request: 1, results: [{ frameId: 0, result: 42 }] });
    v3.turn('event', { type: 'tabsAnswered', request: 2, results: [] });
    v3.turn('event', { type: 'tabsAnswered', request: 3, error: 'could not execute script on this tab' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(v3.results(), ['undefined',
        'Invalid call to scripting.executeScript(). This extension does not have access to this tab.',
        'Invalid call to scripting.executeScript(). It is required to specify either \'func\' or \'files\', and not both.',
        'Invalid call to scripting.executeScript(). The \'func\' value is invalid, because a function is expected.',
        'Invalid call to scripting.removeCSS(). The \'target.tabId\' value is invalid, because a number is expected.',
        [{ frameId: 0, result: 42 }], null, 'Invalid call to scripting.executeScript(). Could not execute script on this tab.']);

    v3.run(`results.length = 0;
            (async () => {
              await s.registerContentScripts([{ id: 'mark', matches: ['https://news.example.com/*'], js: ['m.js'] },
                                              { id: 'tint', matches: ['*://*/*'], css: ['t.css'], persistAcrossSessions: false }]);
              await s.registerContentScripts([{ id: 'mark', matches: ['*://*/*'], js: ['m.js'] }]).catch(why);
              await s.registerContentScripts([{ id: 'bare', matches: ['*://*/*'] }]).catch(why);
              await s.registerContentScripts([{ id: '_x', matches: ['*://*/*'], js: ['m.js'] }]).catch(why);
              await s.updateContentScripts([{ id: 'mark', runAt: 'document_start' }]);
              await s.updateContentScripts([{ id: 'gone', js: ['g.js'] }]).catch(why);
              note((await s.getRegisteredContentScripts()).map((script) => script.id + ' ' + script.runAt + ' ' + script.persistAcrossSessions).join(', '));
              await s.unregisterContentScripts({ ids: ['mark', 'never'] }).catch(why);
              await s.unregisterContentScripts({ ids: ['mark'] });
              note((await s.getRegisteredContentScripts({ ids: ['mark', 'tint'] })).map((script) => script.id).join(', '));
            })();`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(v3.results(), ['Invalid call to scripting.registerContentScripts(). Duplicate ID \'mark\'.',
        'Invalid call to scripting.registerContentScripts(). Script with ID \'bare\' has neither \'js\' nor \'css\'.',
        'Invalid call to scripting.registerContentScripts(). The \'id\' value is invalid, because \'_x\' starts with \'_\'.',
        'Invalid call to scripting.updateContentScripts(). No existing script with ID \'gone\'.',
        'mark document_start true, tint document_idle false',
        'Invalid call to scripting.unregisterContentScripts(). No script with ID \'never\'.', 'tint']);
    assert.deepEqual(JSON.parse(v3.files.get('content-scripts')), []);
    assert.deepEqual(JSON.parse(v3.files.get('content-scripts-session')), [{ id: 'tint', matches: ['*://*/*'], css: ['t.css'], persistAcrossSessions: false }]);

    const v2 = install({ manifest_version: 2, permissions: ['activeTab'] });
    v2.run(`browser.tabs.executeScript(null, { code: 'document.title' }).then(note, why);
            browser.tabs.executeScript(1, { file: 'a.js' }).then(note, why);
            browser.tabs.insertCSS(2, { code: 'p {}', file: 'a.css' }).then(note, why);
            note(typeof browser.scripting);`);
    assert.deepEqual(v2.calls, [[1, { method: 'executeScript', tab: 't2', code: 'document.title' }]]);
    v2.turn('event', { type: 'tabsAnswered', request: 1, results: [{ frameId: 0, result: 'Docs' }] });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(v2.results(), ['undefined', 'Invalid call to tabs.insertCSS(). It is required to specify either \'code\' or \'file\', and not both.',
        'Invalid call to tabs.executeScript(). This extension does not have access to this tab.', ['Docs']]);
});

// A background's realm over `manifest`, its host quiet but for `given` (on iOS, with no pages of
// its own, at the epoch, unless given): `run` evaluates in it, `turn` hands it an input.
function background(manifest, given = {}) {
    const context = vm.createContext(Object.create(null), { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const scripts = realmModule(context, 'runtime-realm.mjs', 'runtime:').install(
        quietHost({ ownPages: () => false, messages: () => '{}', isProxy: () => false, now: () => epoch, utcOffset: () => 0, url, platform: () => 'ios', ...given }),
        JSON.stringify(manifest));
    const run = (code) => vm.runInContext(code, context);
    const turn = (kind, value) => { scripts.post(kind, 0, JSON.stringify(value)); run('__runtimeTurn()'); };
    return { run, turn };
}

// A host's kept files over the map `files` (`keep(name, '')` reads one).
const keeper = (files) => (name, text) => { if (text === '') return files.get(name) ?? ''; files.set(name, text); return ''; };

// runtime.openOptionsPage asks Safari for a new active tab at the options page (options_ui.page,
// else options_page) and gives nothing back; with neither, it is refused in WebKit's words.
test('runtime.openOptionsPage opens the manifest\'s options page in a tab, or is refused', async () => {
    const install = (manifest) => {
        const calls = [];
        const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', background: { service_worker: 'b.js' }, ...manifest },
                                         { tabsCall: (request, text) => { calls.push([request, JSON.parse(text)]); } });
        turn('started', { appearance: 'light', tabs: {} });
        run(`globalThis.results = [];
             browser.runtime.openOptionsPage().then((value) => results.push(String(value)), (error) => results.push(error.message));
             chrome.runtime.openOptionsPage(() => results.push('called back ' + String(chrome.runtime.lastError?.message)));`);
        return { calls, turn, results: () => JSON.parse(run('JSON.stringify(results)')) };
    };
    const ui = install({ options_ui: { page: '/settings.html', open_in_tab: false }, options_page: 'old.html' });
    assert.deepEqual(ui.calls, [[1, { method: 'create', url: 'safari-web-extension://extension/settings.html', active: true }],
                                [2, { method: 'create', url: 'safari-web-extension://extension/settings.html', active: true }]]);
    ui.turn('event', { type: 'tabsAnswered', request: 1, tab: 'x1', url: 'safari-web-extension://extension/settings.html' });
    ui.turn('event', { type: 'tabsAnswered', request: 2, tab: 'x2', url: 'safari-web-extension://extension/settings.html' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(ui.results(), ['undefined', 'called back undefined']);
    const v2 = install({ options_page: 'old.html' });
    assert.equal(v2.calls[0][1].url, 'safari-web-extension://extension/old.html');
    const none = install({});
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(none.calls, []);
    assert.deepEqual(none.results(), ['Invalid call to runtime.openOptionsPage(). No options page is specified in the manifest.',
                                      'called back Invalid call to runtime.openOptionsPage(). No options page is specified in the manifest.']);
});

// tabs.create and tabs.update resolve the address against the extension's base (WebKit's
// `parseTabUpdateOptions`): a path is the extension's own page; one that is no address throws.
test('tabs.create and update open a relative address as the extension\'s own page', () => {
    const calls = [];
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', background: { service_worker: 'b.js' } },
                                     { tabsCall: (request, text) => { calls.push([request, JSON.parse(text)]); } });
    turn('started', { appearance: 'light', tabs: { t1: 'https://a.example/' } });
    run(`browser.tabs.create({ url: 'help.html' });
         browser.tabs.create({ url: '/pages/about.html?x=1', active: false });
         browser.tabs.create({ url: 'https://b.example/path' });
         browser.tabs.create({});
         browser.tabs.update('t1', { url: 'help.html#top' });`);
    assert.deepEqual(calls.map(([, call]) => call.url), ['safari-web-extension://extension/help.html', 'safari-web-extension://extension/pages/about.html?x=1',
                                                         'https://b.example/path', 'about:blank', 'safari-web-extension://extension/help.html#top']);
    assert.equal(run(`(() => { try { browser.tabs.create({ url: 'http://[nope' }); return 'no error'; } catch (error) { return error.message; } })()`),
                 "Invalid call to tabs.create(). The 'url' value is invalid, because 'http://[nope' is not a valid URL.");
});

// Safari's windows, as the frames say them: each tab's window and index in it, each window's
// active tab, the frontmost window as the current and last focused one, and focus only while
// Safari is in front; windows.get, getCurrent, getLastFocused and getAll, with populate and
// windowTypes; the events name the tab's own window.
test('windows and each tab\'s window come from what Safari says of its windows', async () => {
    const said = { windows: { t1: 1, t2: 2, t3: 2 }, active: { 1: 't1', 2: 't3' }, front: 2, focused: 2 };
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', permissions: ['tabs'], background: { service_worker: 'b.js' } },
                                     { platform: () => 'macos', tabNumber: (name) => ({ t1: 1, t2: 2, t3: 3 })[name] ?? 0,
                                       tabName: (id) => ({ 1: 't1', 2: 't2', 3: 't3' })[id] ?? '', activeTab: () => said.active[said.front],
                                       tabWindow: (name) => said.windows[name] ?? 0, activeIn: (window) => said.active[window] ?? '',
                                       frontWindow: () => said.front, focusedWindow: () => said.focused });
    turn('started', { appearance: 'light', tabs: { t1: 'https://a.example/', t2: 'https://b.example/', t3: 'https://c.example/' } });
    const ask = async (code) => {
        run(`globalThis.results = []; (async () => { ${code} })().catch((error) => results.push(error.message));`);
        await new Promise((resolve) => setImmediate(resolve));
        return JSON.parse(run('JSON.stringify(results)'));
    };
    const brief = `const brief = (w) => w.id + (w.focused ? '*' : '') + (w.tabs ? '[' + w.tabs.map((t) => t.id + '@' + t.index + (t.active ? '!' : '')).join(' ') + ']' : '');`;
    assert.deepEqual(await ask(`${brief}
        results.push((await browser.windows.getAll()).map(brief).join(' '), (await browser.windows.getAll({ populate: true })).map(brief).join(' '));
        results.push(brief(await browser.windows.getCurrent()), brief(await browser.windows.getLastFocused({ populate: true })), brief(await browser.windows.get(1)));
        results.push(brief(await browser.windows.get(browser.windows.WINDOW_ID_CURRENT)));
        results.push((await browser.tabs.query({ currentWindow: true })).map((t) => t.id).join(','), (await browser.tabs.query({ active: true })).map((t) => t.id).join(','));
        results.push((await browser.tabs.query({ windowId: 1 })).map((t) => t.id).join(','), (await browser.windows.getAll({ windowTypes: ['popup'] })).length);
        await browser.windows.get(7);`),
        ['1 2*', '1[1@0!] 2*[2@0 3@1!]', '2*', '2*[2@0 3@1!]', '1', '2*', '2,3', '1,3', '1', 0, 'Invalid call to windows.get(). Window not found.']);
    // Another app in front: no window has focus, and the frontmost is still the last focused.
    said.focused = -1;
    run(`globalThis.events = []; browser.tabs.onActivated.addListener((info) => events.push(info.tabId + '@' + info.windowId));
         browser.windows.onFocusChanged.addListener((id) => events.push('focus ' + id));`);
    assert.deepEqual(await ask(`results.push((await browser.windows.getAll()).map((w) => w.id + ':' + w.focused).join(' '), (await browser.windows.getLastFocused()).id);`),
                     ['1:false 2:false', 2]);
    turn('event', { type: 'tabActivated', tab: 't2' });
    said.focused = 2;
    turn('event', { type: 'safariCameToForeground' });
    assert.deepEqual(JSON.parse(run('JSON.stringify(events)')), ['2@2', 'focus 2']);
});

// permissions.request asks Safari (a prompt the user answers) for the optional permissions and
// hosts not held yet, during a user gesture only (a toolbar click's listener, synchronously);
// what is held already is granted at once, and what the manifest does not name is refused.
// What the user granted is read from the kept file, and remove gives it back, never the
// manifest's own, and tells Safari what went (WebKit's WebExtensionAPIPermissions). A request for
// nothing goes to Safari too (it fires an empty onAdded), and onAdded and onRemoved hear what
// Safari says changed.
test('permissions.request prompts in a gesture for what the manifest makes optional, and remove gives it back', async () => {
    const calls = [], files = new Map(), removed = [];
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', background: { service_worker: 'b.js' }, action: {}, permissions: ['storage'],
                                       optional_permissions: ['tabs'], host_permissions: ['https://a.example/*'], optional_host_permissions: ['https://*.example.org/*'] },
                                     { tabNumber: (name) => ({ t1: 1 })[name] ?? 0, tabName: (id) => ({ 1: 't1' })[id] ?? '',
                                       tabsCall: (request, text) => { calls.push([request, JSON.parse(text)]); }, keep: keeper(files),
                                       permissionsRemoved: (text) => { removed.push(JSON.parse(text)); } });
    turn('started', { appearance: 'light', tabs: { t1: 'https://a.example/' } });
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    run(`globalThis.results = []; globalThis.note = (value) => results.push(value); globalThis.why = (error) => results.push(error.message);
         browser.permissions.request({ permissions: ['tabs'] }).then(note, why);
         browser.action.onClicked.addListener(() => {
           browser.permissions.request({ permissions: ['tabs', 'storage'], origins: ['https://docs.example.org/*', 'https://a.example/y/*'] }).then(note, why);
           browser.permissions.request({ permissions: ['storage'], origins: ['https://a.example/x/*'] }).then(note, why);
           browser.permissions.request({}).then(note, why);
           browser.permissions.request({ permissions: ['cookies'] }).then(note, why);
           browser.permissions.request({ origins: ['https://b.example/*'] }).then(note, why);
           Promise.resolve().then(() => browser.permissions.request({ permissions: ['tabs'] }).then(note, why));
         });`);
    turn('event', { type: 'actionClicked', tab: 't1', url: 'https://a.example/' });
    await settled();
    // Safari is asked only for what the extension does not hold yet.
    assert.deepEqual(calls, [[1, { method: 'requestPermissions', permissions: ['tabs'], origins: ['https://docs.example.org/*'] }],
                             [2, { method: 'requestPermissions', permissions: [], origins: [] }]]);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['Invalid call to permissions.request(). Must be called during a user gesture.', true,
        'Invalid call to permissions.request(). The \'permissions\' value is invalid, because only permissions specified in the manifest may be requested.',
        'Invalid call to permissions.request(). The \'origins\' value is invalid, because only permissions specified in the manifest may be requested.',
        'Invalid call to permissions.request(). Must be called during a user gesture.']);
    // The user granted it: Safari kept it, the listeners hear what was added, and the background hears yes.
    files.set('permissions', JSON.stringify({ permissions: ['tabs'], origins: ['https://docs.example.org/*'] }));
    run(`results.length = 0;
         browser.permissions.onAdded.addListener((change) => note('added ' + JSON.stringify(change)));
         browser.permissions.onRemoved.addListener((change) => note('removed ' + JSON.stringify(change)));`);
    turn('event', { type: 'permissionsChanged', change: 'added', permissions: [], origins: ['https://docs.example.org/*'] });
    turn('event', { type: 'permissionsChanged', change: 'added', permissions: ['tabs'], origins: [] });
    turn('event', { type: 'tabsAnswered', request: 1, granted: true });
    turn('event', { type: 'permissionsChanged', change: 'removed', permissions: [], origins: ['https://x.example.org/*'] });
    await settled();
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['added {"permissions":[],"origins":["https://docs.example.org/*"]}',
        'added {"permissions":["tabs"],"origins":[]}', true, 'removed {"permissions":[],"origins":["https://x.example.org/*"]}']);
    run(`results.length = 0;
         (async () => {
           note(await browser.permissions.contains({ permissions: ['tabs'], origins: ['https://docs.example.org/guide/*'] }));
           note((await browser.permissions.getAll()).origins.join(' '));
           await browser.permissions.remove({ permissions: ['storage'] }).catch(why);
           note(await browser.permissions.remove({ origins: ['https://*.docs.example.org/*'] }));
           note(await browser.permissions.contains({ origins: ['https://docs.example.org/*'] }));
           note(await browser.permissions.contains({ permissions: ['tabs'] }));
           note(await browser.permissions.remove({ origins: ['https://other.example.org/*'] }));
         })();`);
    await settled();
    // A granted pattern covering the one named goes with it; one never granted is not held.
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), [true, 'https://a.example/* https://docs.example.org/*',
        'Invalid call to permissions.remove(). The \'permissions\' value is invalid, because required permissions cannot be removed.', true, false, true, true]);
    assert.deepEqual(JSON.parse(files.get('permissions')), { permissions: ['tabs'], origins: [] });
    // Safari heard what went, once: a removal that took nothing tells it nothing.
    assert.deepEqual(removed, [{ permissions: [], origins: ['https://docs.example.org/*'] }]);
});

// The open tabs and their addresses are what Safari says with each input, not what the
// background heard: a tab it heard nothing of is there, one that went elsewhere is at its new
// address (scripting's access check reads it), and a closed one is gone.
test('the tabs are Safari\'s as each frame says them, whatever the background heard', async () => {
    const calls = [];
    const said = { tabs: { t1: 'https://news.example.com/a' } };
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', permissions: ['scripting', 'tabs'], host_permissions: ['https://news.example.com/*'],
                                       background: { service_worker: 'b.js' } },
                                     { tabNumber: (name) => ({ t1: 1, t2: 2, t3: 3 })[name] ?? 0, tabName: (id) => ({ 1: 't1', 2: 't2', 3: 't3' })[id] ?? '',
                                       openTabs: () => JSON.stringify(said.tabs), tabsCall: (request, text) => { calls.push([request, JSON.parse(text)]); } });
    turn('started', { appearance: 'light', tabs: { t1: 'https://news.example.com/a', t3: 'https://news.example.com/c' } });
    // Since: t1 went to the docs site, t2 opened on news, t3 closed; the background heard none of it.
    said.tabs = { t2: 'https://news.example.com/b', t1: 'https://docs.example.org/x' };
    run(`globalThis.results = []; globalThis.note = (value) => results.push(value); globalThis.why = (error) => results.push(error.message);
         browser.tabs.query({}).then((tabs) => note(tabs.map((tab) => tab.id + '@' + tab.index + ' ' + tab.url).join(', ')));
         browser.tabs.get(3).then(note, why);
         browser.scripting.executeScript({ target: { tabId: 1 }, func: () => 1 }).then(note, why);
         browser.scripting.executeScript({ target: { tabId: 2 }, func: () => 2 }).then(note, why);`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['1@0 https://docs.example.org/x, 2@1 https://news.example.com/b',
        'Invalid call to tabs.get(). Tab not found: 3.', 'Invalid call to scripting.executeScript(). This extension does not have access to this tab.']);
    assert.deepEqual(calls.map(([, call]) => call.tab), ['t2']);
});

// storage.session.setAccessLevel keeps who may use storage.session (Safari keeps it until it
// quits); a level it does not know is refused, and storage.local has no such call.
test('storage.session.setAccessLevel keeps the access level, and refuses another', async () => {
    const files = new Map();
    const { run } = background({ manifest_version: 3, name: 'x', version: '1', permissions: ['storage'], background: { service_worker: 'b.js' } }, { keep: keeper(files) });
    run(`globalThis.results = [];
         browser.storage.session.setAccessLevel({ accessLevel: 'EVERYONE' }).catch((error) => results.push(error.message));
         browser.storage.session.setAccessLevel({ accessLevel: 'TRUSTED_AND_UNTRUSTED_CONTEXTS' }).then((value) => results.push(String(value)));
         results.push(typeof browser.storage.local.setAccessLevel);`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['undefined',
        "Invalid call to storage.session.setAccessLevel(). The 'accessLevel' value is invalid, because it must be 'TRUSTED_CONTEXTS' or 'TRUSTED_AND_UNTRUSTED_CONTEXTS'.", 'undefined']);
    assert.deepEqual(JSON.parse(files.get('session-access')), { accessLevel: 'TRUSTED_AND_UNTRUSTED_CONTEXTS' });
});

// What the user granted before a background starts is its own: an optional API's namespace is
// there, and scripting may enter a host it was granted (read at each call: a grant made while
// it runs lets it in at once).
test('what the user granted opens its namespace at the next start and its hosts to scripting at once', async () => {
    const files = new Map([['permissions', JSON.stringify({ permissions: ['alarms'], origins: ['https://news.example.com/*'] })]]);
    const calls = [];
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', permissions: ['scripting'], optional_permissions: ['alarms'],
                                       optional_host_permissions: ['https://*.example.com/*'], background: { service_worker: 'b.js' } },
                                     { tabNumber: (name) => ({ t1: 1, t2: 2 })[name] ?? 0, tabName: (id) => ({ 1: 't1', 2: 't2' })[id] ?? '',
                                       tabsCall: (request, text) => { calls.push([request, JSON.parse(text)]); }, keep: keeper(files) });
    turn('started', { appearance: 'light', tabs: { t1: 'https://news.example.com/a', t2: 'https://docs.example.com/b' } });
    run(`globalThis.results = []; globalThis.note = (value) => results.push(value); globalThis.why = (error) => results.push(error.message);
         note(typeof browser.alarms);
         browser.scripting.executeScript({ target: { tabId: 1 }, func: () => 1 }).then(note, why);
         browser.scripting.executeScript({ target: { tabId: 2 }, func: () => 2 }).then(note, why);`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls.map(([, call]) => call.tab), ['t1']);
    files.set('permissions', JSON.stringify({ permissions: ['alarms'], origins: ['https://news.example.com/*', 'https://docs.example.com/*'] }));
    run(`browser.scripting.executeScript({ target: { tabId: 2 }, func: () => 2 }).then(note, why);`);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls.map(([, call]) => call.tab), ['t1', 't2']);
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['object', 'Invalid call to scripting.executeScript(). This extension does not have access to this tab.']);
});

// An extension page's message sent in its user's click is heard in that gesture (WebKit's
// resolvedUserGesture): its listener may ask for permissions at once; another message may not.
test('a page message sent in the user\'s gesture lets the background\'s listener ask for permissions', async () => {
    const calls = [];
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', background: { service_worker: 'b.js' }, optional_permissions: ['tabs'] },
                                     { ownPages: () => true, tabsCall: (request, text) => { calls.push(JSON.parse(text)); } });
    turn('started', { appearance: 'light', tabs: {} });
    run(`globalThis.results = [];
         browser.runtime.onMessage.addListener(() => { browser.permissions.request({ permissions: ['tabs'] }).catch((error) => results.push(error.message)); });`);
    turn('event', { type: 'pageMessage', id: 1, popup: true, message: 'ask' });
    turn('event', { type: 'pageMessage', id: 2, popup: true, message: 'ask', userGesture: true });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['Invalid call to permissions.request(). Must be called during a user gesture.']);
    assert.deepEqual(calls, [{ method: 'requestPermissions', permissions: ['tabs'], origins: [] }]);
});

// A message no page hears gives nothing, no error (WebKit's runtimeSendMessage and
// tabsSendMessage complete with nothing when no process listens); a tab that is not open fails.
test('a message no page hears gives nothing, and one to a tab that is not open fails', async () => {
    const sent = [];
    const { run, turn } = background({ manifest_version: 3, name: 'x', version: '1', permissions: ['tabs'], background: { service_worker: 'b.js' } },
                                     { ownPages: () => true, tabNumber: (name) => ({ t1: 1 })[name] ?? 0, tabName: (id) => ({ 1: 't1' })[id] ?? '',
                                       openTabs: () => JSON.stringify({ t1: 'https://a.example/' }), messageTab: (tab, id) => { sent.push(['tab', tab, id]); },
                                       messagePopup: (id) => { sent.push(['pages', id]); } });
    turn('started', { appearance: 'light', tabs: { t1: 'https://a.example/' } });
    run(`globalThis.results = []; globalThis.note = (value) => results.push(String(value)); globalThis.why = (error) => results.push(error.message);
         browser.tabs.sendMessage(1, 'hi').then(note, why);
         browser.runtime.sendMessage('hi').then(note, why);
         browser.tabs.sendMessage(7, 'hi').then(note, why);`);
    assert.deepEqual(sent.map(([kind]) => kind), ['tab', 'pages']);
    turn('event', { type: 'pageAnswered', id: sent[0][2], unreachable: true });
    turn('event', { type: 'pageAnswered', id: sent[1][1], unreachable: true });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(JSON.parse(run('JSON.stringify(results)')), ['Invalid call to tabs.sendMessage(). Tab not found.', 'undefined', 'undefined']);
});
