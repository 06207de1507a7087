// What a page's scripts see, made in the page's own realm (PROTOCOL.md, section 15): the page's
// document (jsdom's, dom.mjs) and its window's interfaces, the window's globals, browser.* and
// chrome.* for a content script or the popup, and the turn that runs each input. pages.mjs
// compiles it, with realm-common.mjs, in each page's realm and calls install there with the host
// functions it gives (each takes and gives strings and numbers only), the page's setup as JSON
// text and the document's window; install returns the realm's side of the turn (post, result,
// refusal). What a script reaches is this realm's and the document's, and through jsdom's
// objects node's realm (PROTOCOL.md section 15 says what that leaves open).

import {
    commandsOf, define, eventOf, frameGlobals, giveWindow, hostOf, windowAsEventTarget, installCollector, installDate, installRandom, installStacks, installTimers, jsonText, localizer, optionsPageOf, portEnd, safariLacks, safariNamespaces, tabAddress,
    sessionAccessLevels, storageAreaMembers, webStorageArea, windowGlobals,
} from './realm-common.mjs';
import { actionNamespaces } from './realm-action.mjs';
import { alarmMembers } from './realm-alarms.mjs';
import { menuMembers } from './realm-menus.mjs';
import { installFetchTypes } from './realm-fetch.mjs';
import { netRequestMembers } from './realm-dnr.mjs';
import { permissionMembers, permissionNames } from './realm-permissions.mjs';
import { scriptingMembers } from './realm-scripting.mjs';
import { connectArguments, windowMembers } from './realm-tabs.mjs';
import { navigationMembers } from './realm-navigation.mjs';
import { installWeb } from './realm-web.mjs';

export function install(hostFunctions, setupText, page) {
    const stringify = JSON.stringify, parse = JSON.parse, keys = Object.keys, apply = Reflect.apply, hasOwn = Object.hasOwn, ownKeysOf = Reflect.ownKeys;
    const setup = parse(setupText);
    // This realm's own globals (its builtins), before anything is added: the document's window
    // is given them at the end.
    const builtins = Object.getOwnPropertyNames(globalThis);
    const host = hostOf(hostFunctions);
    installStacks(host, 'pages:');
    // A thrown value in words: an error's name and message, else the value as text.
    const thrownText = (error) => (error instanceof Error ? error.name + ': ' + error.message : String(error));
    const report = (error) => host.log('error', 'Uncaught ' + thrownText(error), error instanceof Error ? String(error.stack) : '');
    const call = (listener, self, args) => { try { return apply(listener, self, args); } catch (error) { report(error); return undefined; } };
    const missing = (name) => () => { throw new Error(name + ' is not provided in pages by the harness\'s runtime'); };

    // Time and randomness from the frames.
    installDate(host);
    installCollector();
    installWeb(host, installRandom(host), () => host.platform());
    installFetchTypes();
    const timers = installTimers(host);
    define('queueMicrotask', (callback) => { Promise.resolve().then(callback); });
    const offline = (name) => 'a scenario cannot stub the network: ' + name + ' is not provided by the harness\'s runtime';
    define('fetch', () => Promise.reject(new TypeError(offline('fetch'))));
    for (const name of ['XMLHttpRequest', 'WebSocket']) define(name, class { constructor() { throw new TypeError(offline(name)); } });

    // MARK: - The page's DOM: its document's, jsdom's (dom.mjs)

    // The document's window: its interfaces (Node, HTMLElement, Event, TreeWalker, ...), its
    // functions and its other members are this realm's globals, read from it each time (behind
    // this realm's own, through its sandbox's prototype: dom.mjs, pageContext), but for what this realm makes
    // itself (time, timers, randomness, storage, the console, navigator and the web's globals
    // jsdom does not have). This realm's global is its `window` and `self`, as a content
    // script's isolated world has its own; `document.defaultView` is the document's window,
    // whose clock, timers and randomness are this realm's too.
    const document = page.document;
    // The DOM's own events and what takes them (a listener's `signal`) are the document's.
    windowAsEventTarget(page);
    define('window', globalThis);
    define('self', globalThis);
    define('top', globalThis);
    define('parent', globalThis);
    define('frames', globalThis);
    define('document', document);

    // Animation frames run on the harness's timers.
    const setFrameTimer = globalThis.setTimeout;
    let visibility = setup.visible ? 'visible' : 'hidden';
    // requestAnimationFrame: the callbacks asked for run together at the next frame, 16 ms of
    // virtual time on (the harness's timers), while the page is visible; a hidden page runs
    // none until it is shown. Each gets the time since the page loaded.
    const loadedAt = Number(host.now());
    const frameCallbacks = new Map();
    let nextFrame = 1, frameTimer = false;
    const runFrame = () => {
        frameTimer = false;
        if (visibility !== 'visible') return;
        const due = [...frameCallbacks.values()];
        frameCallbacks.clear();
        for (const callback of due) call(callback, undefined, [Number(host.now()) - loadedAt]);
    };
    const armFrame = () => {
        if (frameTimer || frameCallbacks.size === 0 || visibility !== 'visible') return;
        frameTimer = true;
        setFrameTimer(runFrame, 16);
    };
    const requestAnimationFrame = (callback) => {
        if (typeof callback !== 'function') throw new TypeError('requestAnimationFrame takes a function');
        const id = nextFrame++;
        frameCallbacks.set(id, callback);
        armFrame();
        return id;
    };
    define('requestAnimationFrame', requestAnimationFrame);
    define('cancelAnimationFrame', (id) => { frameCallbacks.delete(id); });
    define('performance', { now: () => Number(host.now()) - loadedAt, timeOrigin: loadedAt, mark() {}, measure() {}, getEntriesByName: () => [], getEntriesByType: () => [] });

    // MutationObserver is jsdom's: its records come on node's queue, with this realm's
    // microtasks, which the page host runs in the turn that made them (dom.mjs, runQueued).

    // jsdom has no layout: an IntersectionObserver reports each element it observes once, as
    // intersecting, at the next frame; a ResizeObserver reports a 0 × 0 box, at the next frame.
    const layoutObserver = (entry) => class {
        #callback; #observed = new Set(); #pending = [];
        constructor(callback) {
            if (typeof callback !== 'function') throw new TypeError('the observer takes a function');
            this.#callback = callback;
        }
        observe(target) {
            if (this.#observed.has(target)) return;
            this.#observed.add(target);
            this.#pending.push(target);
            requestAnimationFrame(() => {
                const records = this.#pending.splice(0).filter((node) => this.#observed.has(node)).map((node) => entry(node));
                if (records.length > 0) call(this.#callback, this, [records, this]);
            });
        }
        unobserve(target) { this.#observed.delete(target); }
        disconnect() { this.#observed.clear(); this.#pending = []; }
        takeRecords() { return this.#pending.splice(0).map((node) => entry(node)); }
    };
    const box = () => ({ x: 0, y: 0, width: 0, height: 0, top: 0, left: 0, bottom: 0, right: 0 });
    define('IntersectionObserver', layoutObserver((target) => ({
        target, isIntersecting: true, intersectionRatio: 1, time: Number(host.now()) - loadedAt, boundingClientRect: box(), intersectionRect: box(), rootBounds: null,
    })));
    define('ResizeObserver', layoutObserver((target) => ({
        target, contentRect: box(), borderBoxSize: [{ inlineSize: 0, blockSize: 0 }], contentBoxSize: [{ inlineSize: 0, blockSize: 0 }],
        devicePixelContentBoxSize: [{ inlineSize: 0, blockSize: 0 }],
    })));

    // A plain page (no HTML of its own) says whether it is natively dark as such pages do:
    // <meta name="color-scheme" content="dark">, and a dark background on its body.
    let nativeDark = setup.nativeDark === true;
    let colorScheme = null;
    if (setup.plain) {
        colorScheme = document.createElement('meta');
        colorScheme.setAttribute('name', 'color-scheme');
        colorScheme.setAttribute('content', nativeDark ? 'dark' : 'light dark');
        document.head.appendChild(colorScheme);
    }
    define('getComputedStyle', (node, pseudo) => {
        const computed = page.getComputedStyle(node, pseudo);
        if (setup.plain && node === document.body) {
            if (computed.getPropertyValue('background-color') === '') computed.setProperty('background-color', nativeDark ? 'rgb(18, 18, 18)' : 'rgb(255, 255, 255)');
            if (computed.getPropertyValue('color') === '') computed.setProperty('color', nativeDark ? 'rgb(230, 230, 230)' : 'rgb(0, 0, 0)');
        }
        return computed;
    });
    // The document's loading, as the page host runs it: `loading` while the scripts that run as
    // it is parsed run, then DOMContentLoaded (the document's, bubbling to the window), then the
    // window's load.
    let readyState = 'loading';
    Object.defineProperty(document, 'readyState', { get: () => readyState, configurable: true });
    // Whether the page is seen is Safari's to say (`show`, `hide`).
    Object.defineProperty(document, 'visibilityState', { get: () => visibility, configurable: true });
    Object.defineProperty(document, 'hidden', { get: () => visibility !== 'visible', configurable: true });
    // The style elements the page had before its scripts ran: the page's state names only those
    // they added.
    const ownStyles = new Set(document.querySelectorAll('style'));

    // history: one entry; pushState and replaceState keep the state they are given, and the
    // address stays as it is (a scenario moves a tab with tab navigate); going back or forward
    // does nothing.
    let historyState = null, historyLength = 1;
    define('history', {
        get length() { return historyLength; },
        get state() { return historyState; },
        scrollRestoration: 'auto',
        pushState(state) { historyState = state === undefined ? null : structuredClone(state); historyLength += 1; },
        replaceState(state) { historyState = state === undefined ? null : structuredClone(state); },
        back() {}, forward() {}, go() {},
    });

    // localStorage (per origin, for the whole run: it outlives a reload; the extension's own
    // origin's is kept with its storage, shared with a background page) and sessionStorage (per
    // tab, until the tab closes), kept by the page host.
    const webStorage = (kind) => webStorageArea((op, key, value) => host.webStorage(kind, op, key, value));
    define('localStorage', webStorage('local'));
    define('sessionStorage', webStorage('session'));

    // prefers-color-scheme follows the system's appearance.
    let appearance = setup.appearance;
    const queries = [];
    define('matchMedia', (query) => {
        const text = String(query);
        const scheme = /prefers-color-scheme:\s*(dark|light)/.exec(text)?.[1];
        const list = new page.EventTarget();
        Object.defineProperties(list, {
            media: { value: text, enumerable: true },
            matches: { get: () => scheme !== undefined && scheme === appearance, enumerable: true },
            onchange: { value: null, writable: true, enumerable: true },
            addListener: { value: (callback) => list.addEventListener('change', callback) },
            removeListener: { value: (callback) => list.removeEventListener('change', callback) },
        });
        if (scheme !== undefined) queries.push({ list, scheme });
        return list;
    });

    // The console.
    const console = {};
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
        console[level] = (...args) => host.log(level, args.map((value) => typeof value === 'string' ? value : (() => {
            try { return stringify(value) ?? String(value); } catch { return String(value); }
        })()).join(' '), '');
    }
    define('console', console);

    // browser.runtime for a page: messages to the background and from it.
    const messageListeners = [];
    const answers = new Map();
    let lastError;
    const runtime = {
        id: setup.extensionID,
        getURL: (file) => 'safari-web-extension://extension/' + String(file).replace(/^\//, ''),
        getManifest: () => parse(setup.manifest),
        // The platform the page host was given, as the background's says it.
        getPlatformInfo(callback) {
            const info = Promise.resolve({ os: host.platform() === 'macos' ? 'mac' : 'ios', arch: 'arm' });
            if (typeof callback !== 'function') return info;
            info.then((value) => call(callback, undefined, [value]));
            return undefined;
        },
        get lastError() { return lastError; },
        onMessage: {
            addListener: (callback) => { if (typeof callback === 'function' && !messageListeners.includes(callback)) messageListeners.push(callback); },
            removeListener: (callback) => { const at = messageListeners.indexOf(callback); if (at >= 0) messageListeners.splice(at, 1); },
            hasListener: (callback) => messageListeners.includes(callback),
        },
        sendMessage(...args) {
            const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
            const message = args.length > 1 && typeof args[0] === 'string' ? args[1] : args[0];
            // An extension page's message in the user's gesture carries it (WebKit: a content
            // script's does not).
            const id = host.sendMessage(jsonText(message, 'a message'), gesture && setup.extensionPage ? 1 : 0);
            const promise = new Promise((resolve) => { answers.set(id, resolve); });
            if (callback === undefined) return promise;
            promise.then((value) => call(callback, undefined, [value]));
            return undefined;
        },
    };
    // runtime.connect: a port to the background, numbered by the page host. The background's
    // messages on it fire its onMessage; its end closing (the background disconnected it or
    // died, or no runtime.onConnect listener took it) fires its onDisconnect, with
    // runtime.lastError saying why when it never connected.
    const ports = new Map();
    const portOptions = { listenerCall: (listener, args) => call(listener, undefined, args), setLastError: (error) => { lastError = error; } };
    // runtime.onConnect: the ports the background opens to this page's tab (tabs.connect),
    // numbered by Safari below 0, and those an extension page opens to it, numbered by the page
    // host (with their sender). Its listeners take each; a page with none leaves it unheard,
    // which closes the other end with why.
    const connectListeners = [];
    runtime.onConnect = eventOf(connectListeners);
    const portOpened = (number, input) => {
        if (connectListeners.length === 0) { host.portDisconnect(number, true); return; }
        const sender = input.sender !== null && typeof input.sender === 'object' ? input.sender : { id: setup.extensionID };
        const end = portEnd({ name: typeof input.name === 'string' ? input.name : '', sender },
                            (text) => host.portPost(number, text), () => { ports.delete(number); host.portDisconnect(number); }, portOptions);
        ports.set(number, end);
        for (const listener of [...connectListeners]) call(listener, undefined, [end.port]);
    };
    runtime.connect = (...args) => {
        const info = args.find((argument) => argument !== null && typeof argument === 'object') ?? {};
        const name = info.name === undefined ? '' : String(info.name);
        const number = host.connect(name);
        const end = portEnd({ name }, (text) => host.portPost(number, text), () => { ports.delete(number); host.portDisconnect(number); }, portOptions);
        ports.set(number, end);
        return end.port;
    };
    const manifest = parse(setup.manifest);
    // Its permissions as it loads: the manifest's, with what the user granted before.
    const present = safariNamespaces({ ...manifest, permissions: permissionNames(manifest, (name, text) => host.keep(name, text)) }, setup.extensionPage ? 'page' : 'content');
    const i18n = localizer(manifest, host.messages(), setup.extensionID);
    // browser.tabs in an extension page: tabs.query, over the tabs as Safari last handed them
    // over; one window's tabs are numbered in name order.
    // Content scripts have no tabs API.
    const namespaces = { runtime, i18n };
    // storage, over the profile's extension storage as the background's: local and sync in
    // every page, session in the extension's own pages, and in content scripts only while the
    // extension lets them (`storage.session.setAccessLevel`, kept until Safari quits; WebKit's
    // `isSessionStorageAllowedInContentScripts`): until then it is absent there, and their
    // onChanged hears no change of it. onChanged hears every other change made in the profile,
    // by a page or the background.
    const changeListeners = [];
    const sessionOpen = () => {
        if (setup.extensionPage) return true;
        try { return parse(host.keep('session-access', '') || '{}').accessLevel === sessionAccessLevels[1]; } catch { return false; }
    };
    if (present.has('storage')) {
        const area = (name) => {
            const operation = (op, argument) => {
                const text = jsonText(argument === undefined ? null : argument, 'what storage.' + name + ' is given');
                return new Promise((resolve, reject) => {
                    const outcome = parse(host.storage(name, op, text));
                    if (typeof outcome.error === 'string') reject(new Error(outcome.error)); else resolve(outcome.value);
                });
            };
            return storageAreaMembers(name, operation, setup.extensionPage ? (file, text) => host.keep(file, text) : undefined);
        };
        namespaces.storage = { local: area('local'), sync: area('sync'), onChanged: eventOf(changeListeners) };
        const session = area('session');
        Object.defineProperty(namespaces.storage, 'session', { get: () => (sessionOpen() ? session : undefined), enumerable: true, configurable: true });
    }
    // An API's callback form: a last argument that is a function gets the value, or nothing
    // with runtime.lastError set while it runs.
    const withCallback = (work) => function (...args) {
        if (args.length === 0 || typeof args[args.length - 1] !== 'function') return apply(work, this, args);
        const callback = args.pop();
        apply(work, this, args).then((value) => { call(callback, undefined, [value]); }, (error) => {
            lastError = { message: error instanceof Error ? error.message : String(error) };
            try { call(callback, undefined, []); } finally { lastError = undefined; }
        });
        return undefined;
    };
    // The page's calls on Safari's tabs, by the page host's number, waiting for Safari's answer.
    const tabsCalls = new Map();
    const tabsCall = (request) => {
        const id = host.tabsCall(jsonText(request, 'a tabs call'));
        // (A script or a style sheet for a tab is refused as Safari refuses it: scripting says the call.)
        const injection = ['executeScript', 'insertCSS', 'removeCSS'].includes(request.method);
        if (id < 0) return Promise.reject(new Error(injection ? 'tab not found' : `Invalid call to tabs.${request.method}(). Tab not found.`));
        return new Promise((resolve, reject) => { tabsCalls.set(id, { resolve, reject }); });
    };
    // The active tab of the page's window, as tabs.query gives it.
    // A tab as an extension page's calls give it whole: at its index among its window's tabs,
    // as Safari last handed them over.
    // windows.onFocusChanged in an extension page: the window Safari says has focus (-1: none).
    const focusListeners = [];
    const wholeTab = (tab, tabs) => ({ ...tab, index: Math.max(0, tabs.filter((other) => other.windowId === tab.windowId).findIndex((other) => other.id === tab.id)),
                                       highlighted: tab.active, status: 'complete', pinned: false, incognito: false });
    const activeHere = () => {
        const { window, tabs } = parse(host.tabs());
        return tabs.find((tab) => tab.windowId === window && tab.active)?.id;
    };
    if (setup.extensionPage) {
        // runtime.openOptionsPage: Safari opens the manifest's options page in a new tab (WebKit,
        // `WebExtensionContext::runtimeOpenOptionsPage`); with none, the call is refused.
        const options = optionsPageOf(manifest);
        runtime.openOptionsPage = withCallback(() => (options === undefined
            ? Promise.reject(new Error('Invalid call to runtime.openOptionsPage(). No options page is specified in the manifest.'))
            : Promise.resolve(host.openOptionsPage()).then(() => undefined)));
        const known = ['active', 'url', 'currentWindow', 'lastFocusedWindow', 'windowId'];
        const query = (info = {}) => {
            const unknown = keys(info ?? {}).filter((key) => !known.includes(key));
            if (unknown.length > 0) return Promise.reject(new Error('tabs.query does not take ' + unknown.join(', ') + ' in the harness\'s runtime'));
            // The page's window (the popup's, or its tab's) is the current one; Safari's front one the last focused.
            const { window, front, tabs: all } = parse(host.tabs());
            const tabs = all.map((tab) => ({ ...tab, index: all.filter((other) => other.windowId === tab.windowId).indexOf(tab) }));
            return Promise.resolve(tabs.filter((tab) => (info.active === undefined || tab.active === Boolean(info.active))
                && (info.url === undefined || tab.url === info.url)
                && (info.windowId === undefined || tab.windowId === info.windowId)
                && (info.currentWindow === undefined || (tab.windowId === window) === Boolean(info.currentWindow))
                && (info.lastFocusedWindow === undefined || (tab.windowId === (front ?? window)) === Boolean(info.lastFocusedWindow))));
        };
        // windows.*: Safari's windows as Safari last handed them over; the page's own window (the
        // popup's, or its tab's) is its current one (realm-tabs.mjs, windowMembers).
        const windowsSaid = () => parse(host.tabs());
        namespaces.windows = windowMembers({
            form: withCallback,
            current: () => windowsSaid().window,
            front: () => windowsSaid().front ?? windowsSaid().window,
            focused: () => windowsSaid().focused ?? windowsSaid().window,
            ids: () => { const { window, front, tabs } = windowsSaid(); return [...new Set([front ?? window, ...tabs.map((tab) => tab.windowId)])].sort((a, b) => a - b); },
            tabsIn: (id) => { const { tabs } = windowsSaid(); return tabs.filter((tab) => tab.windowId === id).map((tab) => wholeTab(tab, tabs)); },
        });
        namespaces.windows.onFocusChanged = eventOf(focusListeners);
        namespaces.tabs = {
            query(...args) {
                const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
                const promise = query(args[0]);
                if (callback === undefined) return promise;
                promise.then((tabs) => call(callback, undefined, [tabs]), (error) => { lastError = error; call(callback, undefined, [undefined]); lastError = undefined; });
                return undefined;
            },
            // What Safari does to its tabs for the page, as the user would (the background's
            // calls, section 14): each promise settles with Safari's answer (`tabsAnswered`), a
            // tab as tabs.query gives it.
            create: withCallback((properties = {}) => tabsCall({ method: 'create', url: properties?.url === undefined ? 'about:blank' : tabAddress(properties.url, 'create'),
                                                             active: properties?.active !== false })),
            update: withCallback((first, second) => {
                const [id, properties] = typeof first === 'object' && first !== null ? [undefined, first] : [first, second ?? {}];
                const target = id ?? activeHere();
                if (target === undefined) return Promise.reject(new Error('Invalid call to tabs.update(). No tab is active.'));
                const call = { method: 'update', tab: target };
                if (properties?.url !== undefined) call.url = tabAddress(properties.url, 'update');
                if (properties?.active !== undefined) call.active = properties.active === true;
                return tabsCall(call);
            }),
            reload: withCallback((id) => {
                const target = id === undefined || typeof id === 'object' ? activeHere() : id;
                if (target === undefined) return Promise.reject(new Error('Invalid call to tabs.reload(). No tab is active.'));
                return tabsCall({ method: 'reload', tab: target }).then(() => undefined);
            }),
            remove: withCallback((ids) => tabsCall({ method: 'remove', tabs: [ids].flat() }).then(() => undefined)),
            // A tab Safari handed over, whole; the page's own tab (none for the popup, which is
            // in no tab: WebKit's `tabsGetCurrent`).
            get: withCallback((id) => {
                const { tabs } = windowsSaid();
                const found = tabs.find((tab) => tab.id === id);
                return found === undefined ? Promise.reject(new Error(`Invalid call to tabs.get(). Tab not found: ${String(id)}.`)) : Promise.resolve(wholeTab(found, tabs));
            }),
            getCurrent: withCallback(() => {
                const { tabs, current } = windowsSaid();
                const found = current === undefined ? undefined : tabs.find((tab) => tab.id === current);
                return Promise.resolve(found === undefined ? undefined : wholeTab(found, tabs));
            }),
            // A port to a tab's page (its content scripts, or the extension's page it shows),
            // whose runtime.onConnect takes it; none listening, or a tab that is not open, closes
            // it at once, saying so.
            connect: (...args) => {
                const { tab, name } = connectArguments(args);
                const number = host.connectTab(String(tab), name);
                const end = portEnd({ name }, (text) => host.portPost(number, text), () => { ports.delete(number); host.portDisconnect(number); }, portOptions);
                ports.set(number, end);
                return end.port;
            },
            // A message to a tab's content scripts (WebKit's `tabsSendMessage`): their first
            // answer, or nothing when none listens; a tab that is not open fails.
            sendMessage: withCallback((tab, message) => {
                const id = host.messageTab(String(tab), jsonText(message, 'a message'));
                return id < 0 ? Promise.reject(new Error('Invalid call to tabs.sendMessage(). Tab not found.')) : new Promise((resolve) => { answers.set(id, resolve); });
            }),
        };
    }
    // permissions in an extension page, as the background's: what a click or a pick of the
    // user's calls synchronously may ask Safari to prompt (WebKit's user gesture), and the
    // user's answer comes back as a turn of the page.
    let gesture = false;
    // A tab's events in an extension page, as the background hears them (Safari's input
    // tabEvent): onCreated and onUpdated with the whole tab, onActivated and onRemoved with its id
    // and window.
    const tabListeners = { tabCreated: [], tabUpdated: [], tabActivated: [], tabClosed: [] };
    if (setup.extensionPage) {
        Object.assign(namespaces.tabs, { onCreated: eventOf(tabListeners.tabCreated), onUpdated: eventOf(tabListeners.tabUpdated),
                                         onActivated: eventOf(tabListeners.tabActivated), onRemoved: eventOf(tabListeners.tabClosed) });
    }
    // webNavigation in an extension page: a tab's load, stage by stage, as the background hears it.
    const navigationLists = new Map();
    const navigation = setup.extensionPage && present.has('webNavigation') ? navigationMembers({
        event: () => { const list = []; const made = eventOf(list); navigationLists.set(made, list); return made; },
        call: (listener, args) => call(listener, undefined, args), tabId: (tab) => tab,
    }) : null;
    if (navigation !== null) namespaces.webNavigation = navigation.members;
    const tabEvent = ({ event, tabId, windowId }) => {
        if (event.type === 'webNavigation') { navigation?.fire({ ...event, tab: tabId }, (made) => navigationLists.get(made)); return; }
        const listeners = tabListeners[event.type];
        if (listeners === undefined) return;
        const { tabs } = parse(host.tabs());
        const listed = tabs.find((tab) => tab.id === tabId);
        const whole = () => ({ ...(listed === undefined ? { id: tabId, url: String(event.url ?? ''), windowId, active: false } : wholeTab(listed, tabs)),
                               ...(event.status === undefined ? {} : { status: event.status }) });
        const args = event.type === 'tabCreated' ? [{ ...whole(), status: 'loading' }]
            : event.type === 'tabUpdated' ? [tabId, event.status === 'loading' && event.urlChanged === true ? { status: 'loading', url: event.url } : { status: event.status }, whole()]
            : event.type === 'tabActivated' ? [{ tabId, windowId }]
            : [tabId, { windowId, isWindowClosing: false }];
        for (const listener of [...listeners]) call(listener, undefined, args);
    };
    const permissionAnswers = new Map();
    const permissionListeners = { added: [], removed: [] };
    const commandListeners = [];
    if (setup.extensionPage && present.has('permissions')) {
        const ask = (request) => new Promise((resolve) => { permissionAnswers.set(host.requestPermissions(jsonText(request, 'a permission request')), resolve); });
        const permissionApi = permissionMembers({
            manifest, callbackForm: withCallback, inGesture: () => gesture, tabsCall: ask, keep: (name, text) => host.keep(name, text),
            gaveBack: (names, origins) => host.permissionsRemoved(jsonText({ permissions: names, origins }, 'what went')),
            onAdded: eventOf(permissionListeners.added), onRemoved: eventOf(permissionListeners.removed),
        });
        namespaces.permissions = permissionApi.members;
        // Scripts and style sheets for tabs' pages, and registered content scripts, as the
        // background's (realm-scripting.mjs): Safari hands each injection to the tab's page and
        // answers the page (`tabsAnswered` with the runs' results). The page names tabs by their
        // numbers; `activeTab` opens its window's active tab.
        const scripting = scriptingMembers({
            manifest, host: { keep: (name, text) => host.keep(name, text) }, callbackForm: withCallback, tabsCall, tabNamed: (id) => id,
            tabURL: (id) => parse(host.tabs()).tabs.find((tab) => tab.id === id)?.url, activeName: activeHere, held: permissionApi.held,
        });
        if (present.has('scripting')) namespaces.scripting = scripting.members;
        // Network rules, kept as Safari keeps them, as the background's (realm-dnr.mjs).
        if (present.has('declarativeNetRequest')) namespaces.declarativeNetRequest = netRequestMembers({ manifest, callbackForm: withCallback, host: { keep: (name, text) => host.keep(name, text) } });
        // Keyboard commands: the manifest's, and the user's press of one (commands.onCommand, as
        // the background hears it).
        if (present.has('commands')) namespaces.commands = { onCommand: eventOf(commandListeners), getAll: withCallback(() => Promise.resolve(commandsOf(manifest))) };
        if (manifest.manifest_version === 2) Object.assign(namespaces.tabs, scripting.tabs);
    }
    // The toolbar item in an extension page (action, or V2's browserAction and pageAction), as
    // the background has it (realm-action.mjs): what it sets goes to Safari, what it reads is
    // Safari's, taken again in each input the page has a turn in, and its onClicked hears the user's click
    // where the item has no popup, in the click's gesture.
    const clickListeners = [];
    const toolbar = actionNamespaces(setup.extensionPage ? present : new Set(), {
        manifest, tabNamed: (tabId) => host.tabName(String(tabId)), knowsTab: (name) => name !== '', callbackForm: withCallback,
        event: () => eventOf(clickListeners), host: { actionSet: (tab, property, text) => host.actionSet(tab, property, text) },
    });
    for (const [space, members] of Object.entries(toolbar.spaces)) namespaces[space] = members;
    // alarms in an extension page, as the background's (realm-alarms.mjs): Safari holds them, and
    // the page reads what Safari last handed over, taken again in each input.
    const alarmListeners = [];
    const alarms = setup.extensionPage && present.has('alarms')
        ? alarmMembers({ now: () => Number(host.now()), setAlarm: (at, name, period) => host.setAlarm(at, name, period), clearAlarm: (name) => host.clearAlarm(name),
                         onAlarm: eventOf(alarmListeners) })
        : null;
    if (alarms !== null) namespaces.alarms = alarms.members;
    // menus (and contextMenus) in an extension page, as the background's (realm-menus.mjs): Safari
    // holds the items, and makes each change the page sends it in its list; the page reads what
    // Safari last handed over, taken again in each input.
    const menuClickListeners = [];
    const menus = setup.extensionPage && (present.has('menus') || present.has('contextMenus'))
        ? menuMembers({ host: { menusChanged: (text, change) => host.menusChanged(text, change) }, callbackForm: withCallback,
                        event: () => eventOf(menuClickListeners), setLastError: (error) => { lastError = error; } })
        : null;
    if (menus !== null) { namespaces.menus = menus.members; namespaces.contextMenus = menus.members; }
    // Safari's toolbar item, alarms and menu items, taken once in each input (the host gives them once).
    const holdSafariState = () => {
        if (!setup.extensionPage) return;
        const text = host.safariState();
        if (text === '') return;
        const { action, alarms: held, menus: items } = parse(text);
        toolbar.hold(action);
        alarms?.hold(held);
        menus?.hold(items);
    };
    holdSafariState();
    // The user's gesture: its events' listeners run inside it.
    const inGesture = (work) => {
        gesture = true;
        try { work(); } finally { gesture = false; }
    };
    const browser = new Proxy(namespaces, {
        get(target, name) {
            if (typeof name === 'symbol') return target[name];
            if (name === 'then') return undefined;
            if (name in target) {
                // A namespace's member the runtime does not provide throws, naming it.
                return new Proxy(target[name], {
                    get(members, member) {
                        if (typeof member === 'symbol' || member in members) return members[member];
                        return member === 'then' || safariLacks(name, member) ? undefined : missing('browser.' + name + '.' + member);
                    },
                    // storage.session, in a content script the extension does not let in, is absent.
                    has(members, member) { return member in members && !(name === 'storage' && member === 'session' && members.session === undefined); },
                    ownKeys(members) { return ownKeysOf(members).filter((key) => !(name === 'storage' && key === 'session' && members.session === undefined)); },
                });
            }
            // A namespace Safari gives this page and the runtime does not provide throws, naming
            // what was called; one Safari does not give it is absent (a feature check sees it so).
            if (!present.has(name)) return undefined;
            return new Proxy({}, { get(_, member) { return typeof member === 'symbol' || member === 'then' ? undefined : missing('browser.' + name + '.' + member); } });
        },
        has(target, name) { return name in target || present.has(name); },
    });
    define('browser', browser);
    define('chrome', browser);

    // Whether the user cannot reach an element: it or an element around it is hidden (the
    // hidden attribute, or display: none).
    const outOfSight = (node) => {
        for (let at = node; at && at.nodeType === 1; at = at.parentNode) if (at.hidden || page.getComputedStyle(at).display === 'none') return true;
        return false;
    };
    const byId = (id) => document.getElementById(String(id));
    // What a script's error says (WebKit gives an injected script's error as text).
    const errorText = (error) => {
        try { return thrownText(error) || 'a thrown value'; } catch { return 'a thrown value'; }
    };
    const styleNames = (declaration) => Array.from({ length: declaration.length }, (_, index) => declaration.item(index)).sort();
    const fire = (target, type, bubbles = false) => target.dispatchEvent(new page.Event(type, { bubbles }));

    // What jsdom queued (mutation records) runs from here, under the watchdog (pages.mjs).
    Object.defineProperty(globalThis, '__pageSettle', { value() { host.runQueued(); }, writable: false, configurable: false, enumerable: false });

    // A turn: the other realm names its work, it runs here under the watchdog.
    let work = null, result = '';
    // A message for the page's runtime.onMessage: the first answer goes back through `reply`
    // (text, '' for nothing; `unreachable`: no listener); a listener keeps the sender waiting by
    // returning true or a promise; else it gets nothing at once. A page that listens for no
    // message does not hear it. Safari drops a listener's rejection, unreported: the sender
    // waits on until WebKit's reply holder goes, at the latest with the page (then Safari
    // answers it with nothing).
    const hear = (message, sender, reply) => {
        if (messageListeners.length === 0) { reply('', true); return; }
        let answered = false, handled = false;
        const sendResponse = (response) => {
            if (answered) return;
            answered = true;
            reply(response === undefined ? '' : jsonText(response, 'an answer'), false);
        };
        for (const listener of [...messageListeners]) {
            const returned = call(listener, undefined, [message, sender, sendResponse]);
            if (returned === true) handled = true;
            else if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') {
                handled = true;
                returned.then(sendResponse, () => {});
            }
        }
        if (!answered && !handled) {
            answered = true;
            reply('', false);
        }
    };
    Object.defineProperty(globalThis, '__pageTurn', {
        value() {
            const next = work;
            work = null;
            result = '';
            if (next === null) return;
            const input = next.text === '' ? undefined : parse(next.text);
            holdSafariState();
            switch (next.kind) {
            case 'answer': {
                const resolve = answers.get(next.id);
                answers.delete(next.id);
                if (resolve !== undefined) resolve(input?.answer);
                return;
            }
            case 'nativeDark':
                nativeDark = input.nativeDark === true;
                colorScheme?.setAttribute('content', nativeDark ? 'dark' : 'light dark');
                return;
            case 'message':
                // The background's message: its answer goes to Safari.
                hear(input.message, { id: setup.extensionID }, (text, unreachable) => host.answer(next.id, text, unreachable));
                return;
            case 'pageMessage':
                // Another page's message: its answer goes to that page, through the page host.
                hear(input.message, input.sender?.tab === undefined ? input.sender : { ...input.sender, tab: wholeTab(input.sender.tab, parse(host.tabs()).tabs) },
                     (text) => host.answerPage(next.id, text));
                return;
            case 'timer': {
                const timer = timers.due(next.id);
                if (timer !== undefined) call(timer.callback, undefined, timer.args);
                return;
            }
            case 'show':
                visibility = input.visible ? 'visible' : 'hidden';
                fire(document, 'visibilitychange', true);
                armFrame();
                return;
            case 'appearance':
                if (input.appearance === appearance) return;
                appearance = input.appearance;
                for (const { list, scheme } of [...queries]) {
                    const change = new page.Event('change');
                    Object.defineProperties(change, { matches: { value: scheme === appearance }, media: { value: list.media } });
                    list.dispatchEvent(change);
                    if (typeof list.onchange === 'function') call(list.onchange, list, [change]);
                }
                return;
            case 'ready':
                readyState = 'interactive';
                fire(document, 'readystatechange');
                // DOMContentLoaded is the document's, and bubbles to the window.
                fire(document, 'DOMContentLoaded', true);
                readyState = 'complete';
                fire(document, 'readystatechange');
                fire(page, 'load');
                fire(page, 'pageshow');
                return;
            case 'click': {
                const target = byId(input.element);
                if (target === null) { result = 'the page has no element with that id'; return; }
                if (outOfSight(target)) { result = 'hidden'; return; }
                inGesture(() => target.click());
                return;
            }
            case 'choose': {
                // The user picks an option of a select: it is chosen, and the select says so
                // (input, then change), as a browser's does.
                const target = byId(input.element);
                if (target === null) { result = 'the page has no element with that id'; return; }
                if (outOfSight(target)) { result = 'hidden'; return; }
                if (target.tagName !== 'SELECT') { result = 'the element is a ' + target.tagName.toLowerCase() + ', not a select'; return; }
                const options = [...target.options];
                const option = options.find((candidate) => candidate.value === input.value);
                if (option === undefined) { result = 'the select has no option of that value (it has ' + (options.map((candidate) => '"' + candidate.value + '"').join(', ') || 'none') + ')'; return; }
                option.selected = true;
                inGesture(() => {
                    fire(target, 'input', true);
                    fire(target, 'change', true);
                });
                return;
            }
            case 'tabsAnswered': {
                // Safari did the page's call on its tabs: the tab, as tabs.query gives it.
                const waiting = tabsCalls.get(next.id);
                tabsCalls.delete(next.id);
                if (waiting === undefined) return;
                if (typeof input.error === 'string') { waiting.reject(new Error(input.error)); return; }
                // A script's runs, each with its result or its error.
                if (input.results !== undefined) { waiting.resolve(input.results); return; }
                if (input.tab === undefined) { waiting.resolve(undefined); return; }
                waiting.resolve(wholeTab(input.tab, parse(host.tabs()).tabs));
                return;
            }
            case 'permissionsAnswered': {
                // The user answered the prompt this page asked for.
                const resolve = permissionAnswers.get(next.id);
                permissionAnswers.delete(next.id);
                resolve?.(input.granted === true);
                return;
            }
            case 'tabEvent':
                tabEvent(input);
                return;
            case 'windowFocus':
                for (const listener of [...focusListeners]) call(listener, undefined, [Number(input.windowId)]);
                return;
            case 'menuClicked': {
                if (menus === null) return;
                const { tabs } = parse(host.tabs());
                const listed = tabs.find((tab) => tab.id === input.tabId);
                const [info, tab] = menus.clicked(input.event, listed === undefined ? undefined : wholeTab(listed, tabs));
                // (Safari's copy follows the click: a checkbox or a radio item checked.)
                inGesture(() => { for (const listener of [...menuClickListeners]) call(listener, undefined, [info, tab]); });
                return;
            }
            case 'alarmFired': {
                const alarm = alarms?.fired(String(input.name));
                if (alarm !== undefined) for (const listener of [...alarmListeners]) call(listener, undefined, [alarm]);
                return;
            }
            case 'commandPressed': {
                const tab = input.tab === undefined ? undefined : wholeTab(input.tab, parse(host.tabs()).tabs);
                inGesture(() => { for (const listener of [...commandListeners]) call(listener, undefined, [String(input.name), tab]); });
                return;
            }
            case 'actionClicked': {
                const tab = wholeTab(input.tab, parse(host.tabs()).tabs);
                inGesture(() => { for (const listener of [...clickListeners]) call(listener, undefined, [tab, { modifiers: [], button: 0 }]); });
                return;
            }
            case 'permissionsChanged': {
                // What was granted or taken back: ({permissions, origins}).
                const change = { permissions: [...input.permissions].map(String), origins: [...input.origins].map(String) };
                for (const listener of [...permissionListeners[input.change === 'added' ? 'added' : 'removed']]) call(listener, undefined, [change]);
                return;
            }
            case 'portMessage':
                ports.get(next.id)?.heard(input.message);
                return;
            case 'portOpened':
                portOpened(next.id, input);
                return;
            case 'storageChanged':
                if (input.area === 'session' && !sessionOpen()) return;
                for (const listener of [...changeListeners]) call(listener, undefined, [input.changes, String(input.area)]);
                return;
            case 'portDisconnected': {
                const end = ports.get(next.id);
                ports.delete(next.id);
                end?.closed(typeof input.error === 'string' ? input.error : undefined);
                return;
            }
            case 'hide':
                visibility = 'hidden';
                fire(document, 'visibilitychange', true);
                fire(page, 'pagehide');
                return;
            case 'injected': {
                // One run of the background's script gave `next.value`: its result goes back as
                // JSON (what JSON cannot carry is an error, as WebKit refuses a result of a type
                // it cannot send), a function's promise once it settles.
                const request = next.id;
                const answer = (value) => {
                    let text;
                    try { text = value === undefined ? '' : jsonText(value, 'the script\'s result'); } catch (error) { host.injected(request, '', errorText(error)); return; }
                    host.injected(request, text, null);
                };
                const value = next.value;
                let thenable;
                try { thenable = input?.awaits === true && value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function'; } catch (error) {
                    host.injected(request, '', errorText(error));
                    return;
                }
                if (thenable) {
                    result = 'waits';
                    Promise.resolve(value).then(answer, (error) => host.injected(request, '', errorText(error)));
                } else answer(value);
                return;
            }
            case 'query': {
                // `expect ... page "SELECTOR" ...`: how many elements match, from the root
                // element itself down, and what the first is.
                let found;
                try { found = [...document.querySelectorAll(input.selector)]; } catch (error) { result = stringify({ error: String(error.message) }); return; }
                const first = found[0];
                const style = {}, attributes = {};
                if (first !== undefined) {
                    for (const name of styleNames(first.style)) style[name] = String(first.style.getPropertyValue(name));
                    for (const name of first.getAttributeNames()) attributes[name] = first.getAttribute(name);
                }
                result = stringify({
                    count: found.length,
                    first: first === undefined ? null : {
                        html: first.outerHTML, text: String(first.textContent), classes: first.classList.toString().split(' ').filter(Boolean), style, attributes,
                    },
                });
                return;
            }
            case 'state': {
                // What a scenario can check: the root element's style (its properties named as
                // style's members are), classes, data and attributes, and the text of the style
                // elements scripts added.
                const root = document.documentElement;
                const attributes = {};
                for (const name of ['lang', 'dir', 'id', 'hidden']) if (root.getAttribute(name) !== null) attributes[name] = root.getAttribute(name);
                const styleText = [...document.querySelectorAll('style')].filter((element) => !ownStyles.has(element)).map((element) => String(element.textContent));
                const style = {};
                const member = (name) => name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
                for (const name of styleNames(root.style)) style[member(name)] = String(root.style.getPropertyValue(name));
                const data = {};
                for (const name of keys(root.dataset).sort()) data[name] = String(root.dataset[name]);
                result = stringify({ style, classes: [...root.classList], data, attributes, styles: styleText });
                return;
            }
            }
        },
        writable: false, configurable: false, enumerable: false,
    });
    // The document's window has this realm's builtins (`Date`, `Intl`, `Object`, ...), time,
    // timers, randomness, storage and network, so that `document.defaultView` reaches no real
    // clock and no request leaves.
    giveWindow(page, [...builtins, ...windowGlobals, 'requestAnimationFrame', 'cancelAnimationFrame', 'sessionStorage', 'matchMedia', 'history', 'WebSocket']);
    // jsdom's own later work (pages.mjs, keepTime) runs as the page's timers do, numbered
    // apart from them (realm-common.mjs, installTimers).
    return {
        post(kind, id, text, value) { work = { kind, id, text, value }; },
        // Style sheets Safari added (the content scripts' and the background's): the page's
        // state leaves them out, as it leaves out the page's own.
        sheets(elements) { for (const element of elements) ownStyles.add(element); },
        result() { return result; },
        later(callback, delay) { return timers.later(callback, delay); },
        cancel(timer) { timers.cancel(timer); },
        // A frame's window (an iframe's, which jsdom makes a realm of its own) reads this realm's
        // clock and random numbers too.
        adopt(frame) { giveWindow(frame, frameGlobals); },
        // What a module's import() rejects with, made in the page's realm.
        refusal(what) { return new Error(what + ' is not provided in pages by the harness\'s runtime'); },
    };
}
