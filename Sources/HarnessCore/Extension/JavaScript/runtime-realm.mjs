// What a background's scripts see, made in their own realm (PROTOCOL.md, section 14): the
// global object of a background page, browser.* and chrome.*, and the turn that runs each input's
// events. runtime.mjs compiles it, with realm-common.mjs, in each incarnation's realm and calls
// install there with the host functions it gives (each takes and gives strings and numbers only)
// and the manifest's text; install returns the realm's side of the turn (post, result, refusal).
// Nothing here reaches node, but a background page's document, when its scripts name the DOM
// (`attach`): its objects are jsdom's, made in node's realm (PROTOCOL.md, section 14).

import {
    commandsOf, define, eventOf, frameGlobals, giveWindow, hostOf, windowAsEventTarget, installCollector, installDate, installRandom, installStacks, installTimers, jsonText, localizer, optionsPageOf, portEnd, safariLacks, safariNamespaces, storageAreaMembers, webStorageArea, windowGlobals,
} from './realm-common.mjs';
import { actionNamespaces } from './realm-action.mjs';
import { alarmMembers } from './realm-alarms.mjs';
import { netRequestMembers } from './realm-dnr.mjs';
import { menuMembers } from './realm-menus.mjs';
import { navigationMembers } from './realm-navigation.mjs';
import { permissionMembers, permissionNames } from './realm-permissions.mjs';
import { scriptingMembers } from './realm-scripting.mjs';
import { connectArguments, tabsAndWindows } from './realm-tabs.mjs';
import { installFetchTypes } from './realm-fetch.mjs';
import { installWeb } from './realm-web.mjs';

export function install(hostFunctions, manifestText) {
    // This realm's own globals (its builtins), before anything is added: a background page's
    // document's window is given them (attach).
    const builtins = Object.getOwnPropertyNames(globalThis);
    const host = hostOf(hostFunctions);
    const manifest = JSON.parse(manifestText);
    // Its permissions as it starts: the manifest's, with what the user granted before.
    const permissions = new Set(permissionNames(manifest, (name, text) => host.keep(name, text)));
    const ownPages = host.ownPages() === true;
    const isWorker = typeof manifest.background?.service_worker === 'string';
    // What the runtime uses here, taken before any script can replace it.
    const stringify = JSON.stringify, apply = Reflect.apply;
    // A host function that may fail: its failure becomes this realm's error.
    const checked = (result) => {
        const failure = host.failure();
        if (failure) throw new TypeError(failure);
        return result;
    };

    // Time and randomness from the frames.
    installDate(host);
    define('performance', { now: () => host.uptime() });
    // The network answers only what the scenario says (its fetch lines), at once: a Response
    // with the line's status and body; any other address fails as an unreachable one does.
    define('fetch', (resource) => {
        const url = typeof resource === 'string' ? resource : String(resource?.url ?? resource);
        const text = host.fetch(url);
        if (text === '') return Promise.reject(new TypeError('Failed to fetch ' + url + ': the scenario gives no answer for it (fetch URL STATUS BODY)'));
        const { status, body } = JSON.parse(text);
        return Promise.resolve(fetchTypes.response(url, status, body));
    });
    define('XMLHttpRequest', function XMLHttpRequest() { throw new TypeError('XMLHttpRequest is not provided by the harness\'s runtime'); });

    // i18n from the default locale's messages.
    const i18n = localizer(manifest, host.messages(), manifest.browser_specific_settings?.safari?.id ?? 'extension');

    // Random numbers from the seed.
    // The web's globals, crypto's numbers from the seed too.
    // navigator's platform is the one Safari's start says: only a Mac takes the app's messages.
    installWeb(host, installRandom(host), () => (safari.appMessages ? 'macos' : 'ios'));
    const fetchTypes = installFetchTypes();

    installCollector();
    installStacks(host, 'runtime:');

    // The console.
    const text = (value) => {
        if (typeof value === 'string') return value;
        if (value instanceof Error) return value.name + ': ' + value.message;
        try { return stringify(value) ?? String(value); } catch { return String(value); }
    };
    define('console', Object.fromEntries(['log', 'info', 'debug', 'warn', 'error'].map((level) =>
        [level, (...values) => host.log(level === 'warn' || level === 'error' ? level : 'log', values.map(text).join(' '), '')])));

    const timers = installTimers(host);
    define('queueMicrotask', (callback) => { Promise.resolve().then(callback); });

    // browser.* (and chrome.*): events, the runtime's members, and a clear error for the rest.
    const events = new Map();
    const listenersOf = new WeakMap();
    const event = (listener) => {
        const listeners = [];
        const object = eventOf(listeners);
        listenersOf.set(object, listeners);
        if (listener) events.set(listener, listeners);
        return object;
    };
    const missing = (name) => () => { throw new Error(name + ' is not provided by the harness\'s runtime'); };
    const namespace = (name, members) => new Proxy(members, {
        get(target, member) {
            if (typeof member === 'symbol' || member in target) return target[member];
            if (member === 'then' || safariLacks(name, member)) return undefined;
            return missing('browser.' + name + '.' + member);
        },
    });
    // The callback form of an API that returns a promise: a last argument that is a function
    // gets the value, or nothing with runtime.lastError set while it runs.
    let lastError;
    const callbackForm = (work) => function (...args) {
        if (args.length === 0 || typeof args[args.length - 1] !== 'function') return apply(work, this, args);
        const callback = args.pop();
        apply(work, this, args).then((value) => { call(callback, [value]); }, (error) => {
            lastError = { message: error instanceof Error ? error.message : text(error) };
            try { call(callback, []); } finally { lastError = undefined; }
        });
        return undefined;
    };
    // runtime.sendNativeMessage([application,] message[, callback]): a promise of the handler's
    // reply, or of Safari's rejection as an error, in Safari's words (WebKit,
    // `WebExtensionContext::sendNativeMessage`, through `toErrorString`). The message is any JSON
    // value, the extension's own.
    const nativeFailures = {
        handlerEnded: 'The native extension was interrupted or crashed.',
        canceled: 'The native extension canceled the request or encountered an error.',
        tooManyRequests: 'There are too many active native message requests.',
    };
    const nativeFailure = (why) => new Error(`Invalid call to runtime.sendNativeMessage(). ${nativeFailures[why] ?? `The native extension failed (${why}).`}`);
    const replies = new Map();
    let nextRequest = 1;
    // The background's messages to its own pages (section 15), by number, waiting for their
    // answers: a message no page hears fails as Safari fails it.
    const pageAnswers = new Map();
    let nextMessageToPage = 1;
    const toPage = (send) => new Promise((resolve, reject) => {
        const id = nextMessageToPage++;
        checked(send(id));
        pageAnswers.set(id, { resolve, reject });
    });
    const native = permissions.has('nativeMessaging') ? {
        sendNativeMessage: callbackForm(function (first, second) {
            // With two arguments the first is the application's identifier (Safari sends every
            // message to the extension's own app); with one, it is the message.
            const message = arguments.length > 1 ? second : first;
            return new Promise((resolve, reject) => {
                const request = nextRequest++;
                checked(host.sendNative(request, jsonText(message ?? null, 'a native message')));
                replies.set(request, { resolve, reject });
            });
        }),
    } : {};
    // What Safari told the background when it started: the appearance, the open tabs (as
    // tabs.query gives them; a tab that asks is added, a closed one removed), the platform.
    const safari = { appearance: 'light', tabs: new Map(), active: undefined, appMessages: false, version: undefined };
    // Safari's tabs and windows (realm-tabs.mjs).
    const tabs = tabsAndWindows({ host, safari, callbackForm, event, text });
    const { tabId, tabNamed, activeName, windowOf, frontWindow, currentTabs, tabOf, tabsCall, tabsAnswered } = tabs;
    const originOf = (url) => { try { return new URL(url).origin; } catch { return undefined; } };
    // runtime.connectNative(): the port the app's messages arrive on (macOS), as
    // {"type": "documentChanged"}. Each message the background posts on it is a native request
    // of its own, whose reply arrives on the port's onMessage, and whose failure disconnects the
    // port (WebKit, `runtimeConnectNative`: with an app extension, "sending single native
    // messages for each port message").
    const ports = [];
    if (permissions.has('nativeMessaging')) {
        native.connectNative = (application) => {
            host.connectNative();
            const end = portEnd({ name: typeof application === 'string' ? application : '' }, (text) => {
                const request = nextRequest++;
                checked(host.sendNative(request, text));
                replies.set(request, {
                    resolve: (reply) => { if (ports.includes(end)) end.heard(reply); },
                    reject: () => {
                        if (!ports.includes(end)) return;
                        ports.splice(ports.indexOf(end), 1);
                        end.closed();
                    },
                });
            }, () => { const at = ports.indexOf(end); if (at >= 0) ports.splice(at, 1); }, { listenerCall: call, setLastError: (error) => { lastError = error; } });
            ports.push(end);
            return end.port;
        };
    }
    const unreachable = (what) => Promise.reject(new Error('Could not establish connection. Receiving end does not exist. (The harness\'s '
        + what + ', PROTOCOL.md section 14.)'));
    // runtime.onStartup and onInstalled wake nothing: Safari loads the background for them.
    const onStartup = event(null), onInstalled = event(null);
    let tabsMembers;
    const api = {
        runtime: namespace('runtime', {
            ...native,
            id: manifest.browser_specific_settings?.safari?.id ?? 'extension',
            onMessage: event('message'),
            onConnect: event('connect'),
            onStartup,
            onInstalled,
            // The manifest as Safari installed it: an update may give the same files another version.
            getManifest: () => {
                const installed = JSON.parse(manifestText);
                if (safari.version !== undefined) installed.version = safari.version;
                return installed;
            },
            getURL: (file) => 'safari-web-extension://extension/' + String(file).replace(/^\//, ''),
            get lastError() { return lastError; },
            getPlatformInfo: callbackForm(() => Promise.resolve({ os: safari.appMessages ? 'mac' : 'ios', arch: 'arm' })),
            // Safari opens the manifest's options page in a new active tab of the front window
            // (WebKit, `WebExtensionContext::runtimeOpenOptionsPage`); with none, it refuses.
            openOptionsPage: callbackForm(() => {
                const page = optionsPageOf(manifest);
                if (page === undefined) return Promise.reject(new Error('Invalid call to runtime.openOptionsPage(). No options page is specified in the manifest.'));
                return tabsCall({ method: 'create', url: 'safari-web-extension://extension/' + page, active: true }).then(() => undefined);
            }),
            // Safari takes the address and does nothing with it (WebKit's
            // `WebExtensionAPIRuntime::setUninstallURL` only calls back).
            setUninstallURL: callbackForm(() => Promise.resolve(undefined)),
            // The background's message to its pages: every page of the extension's own (the
            // popup, and each tab that shows one of its pages) where they run; else the
            // design's popup's view.
            sendMessage: callbackForm((body) => {
                if (ownPages) return toPage((id) => host.messagePopup(id, jsonText(body, 'a message')));
                // The view names its tab as the wire does.
                const view = body?.view !== null && typeof body?.view === 'object' && body.view.tab !== undefined ? { ...body.view, tab: tabNamed(body.view.tab) } : body?.view;
                if (body?.type === 'showPopup') checked(host.showPopup(jsonText(view ?? null, 'the popup\'s view')));
                else if (body?.type === 'popupAnswer') checked(host.answerPopup(body.message, jsonText(body, 'a popup answer')));
                else return unreachable('popup takes only {type: "showPopup", view} and {type: "popupAnswer", message, saved, scope} from the background');
                return Promise.resolve(undefined);
            }),
        }),
        tabs: namespace('tabs', tabsMembers = {
            ...tabs.members,
            // A decision the background gives a tab unasked (section 8.2's sendDecision), or,
            // where the extension's own pages run, any message, which the tab answers.
            sendMessage: callbackForm((tab, body) => {
                if (ownPages) {
                    // WebKit's `tabsSendMessage`: a tab that is not open is an error.
                    if (!currentTabs().has(tabNamed(tab))) return Promise.reject(new Error('Invalid call to tabs.sendMessage(). Tab not found.'));
                    return toPage((id) => host.messageTab(tabNamed(tab), id, jsonText(body, 'a message')));
                }
                if (body?.type !== 'decision') return unreachable('content script takes only {type: "decision", decision} from the background');
                checked(host.decide(tabNamed(tab), jsonText(body.decision ?? null, 'a decision')));
                return Promise.resolve(undefined);
            }),
            connect: (...args) => connectTab(...args),
        }),
        windows: namespace('windows', tabs.windows),
        i18n: namespace('i18n', i18n),
    };
    // The namespaces Safari gives this background (realm-common.mjs).
    const present = safariNamespaces({ ...manifest, permissions: [...permissions] }, 'background');
    // The toolbar item (action, or V2's browserAction and pageAction), where the manifest has
    // one: Safari keeps what the background sets (realm-action.mjs).
    const toolbar = actionNamespaces(present, { manifest, tabNamed, knowsTab: (name) => currentTabs().has(name), callbackForm, event,
                                                host: { actionSet: (tab, property, value) => checked(host.actionSet(tab, property, value)) } });
    for (const [space, members] of Object.entries(toolbar.spaces)) api[space] = namespace(space, members);
    // The context menu (menus, or contextMenus), with either permission: Safari keeps the items
    // the background makes (realm-menus.mjs).
    const menus = ['menus', 'contextMenus'].some((name) => present.has(name))
        ? menuMembers({ host: { menusChanged: (text) => checked(host.menusChanged(text)) }, callbackForm, event, setLastError: (error) => { lastError = error; } })
        : null;
    if (menus !== null) {
        api.menus = namespace('menus', menus.members);
        api.contextMenus = api.menus;
    }
    // What Safari keeps for the extension beside its storage (runtime.mjs, `keep`).
    const kept = { keep: (name, text) => checked(host.keep(name, text)) };
    // What the manifest grants, and the user since (realm-permissions.mjs).
    const permissionApi = permissionMembers({ manifest, callbackForm, inGesture: () => gesture, tabsCall, keep: (name, text) => host.keep(name, text),
                                              gaveBack: (names, origins) => checked(host.permissionsRemoved(jsonText({ permissions: names, origins }, 'what went'))),
                                              onAdded: event('permissionsAdded'), onRemoved: event('permissionsRemoved') });
    api.permissions = namespace('permissions', permissionApi.members);
    // Scripts and style sheets for tabs' pages, and registered content scripts
    // (realm-scripting.mjs): the scripting namespace, and V2's forms on tabs.
    const scripting = scriptingMembers({ manifest, host: kept, callbackForm, tabsCall, tabNamed, tabURL: (name) => currentTabs().get(name), activeName,
                                         held: permissionApi.held });
    if (present.has('scripting')) api.scripting = namespace('scripting', scripting.members);
    if (manifest.manifest_version === 2) Object.assign(tabsMembers, scripting.tabs);
    // Network rules, kept as Safari keeps them (realm-dnr.mjs): no request is ever matched.
    if (present.has('declarativeNetRequest')) {
        api.declarativeNetRequest = namespace('declarativeNetRequest',
                                              netRequestMembers({ manifest, callbackForm, host: kept }));
    }
    // A tab's page load, stage by stage (realm-navigation.mjs).
    const navigation = present.has('webNavigation') ? navigationMembers({ event, call: (listener, args) => call(listener, args), tabId }) : null;
    if (navigation !== null) api.webNavigation = namespace('webNavigation', navigation.members);
    // Keyboard commands, as the manifest gives them (the shortcut for a Mac, else the default).
    if (present.has('commands')) api.commands = namespace('commands', { onCommand: event('command'), getAll: callbackForm(() => Promise.resolve(commandsOf(manifest))) });
    // alarms, as Safari keeps them (realm-alarms.mjs): an incarnation learns the alarms Safari
    // holds from its start, and takes Safari's whole list again whenever Safari changes it on its
    // own (alarmsChanged: a raise, a periodic alarm no listener heard, a device's sleep, one of
    // its pages' alarms).
    const alarms = alarmMembers({ now: () => host.now(), setAlarm: (at, name, period) => host.setAlarm(at, name, period), clearAlarm: (name) => host.clearAlarm(name),
                                  onAlarm: event('alarm') });
    const holdAlarms = alarms.hold;
    if (permissions.has('alarms')) api.alarms = namespace('alarms', alarms.members);
    // matchMedia('(prefers-color-scheme: dark)') follows the system appearance; its change
    // listeners hear appearanceChanged.
    const mediaLists = [];
    define('matchMedia', (query) => {
        const media = String(query).trim();
        const dark = /^\(\s*prefers-color-scheme\s*:\s*dark\s*\)$/.test(media), light = /^\(\s*prefers-color-scheme\s*:\s*light\s*\)$/.test(media);
        const listeners = [];
        const list = {
            media,
            get matches() { return (dark && safari.appearance === 'dark') || (light && safari.appearance === 'light'); },
            onchange: null,
            addEventListener(type, callback) { if (type === 'change' && typeof callback === 'function' && !listeners.includes(callback)) listeners.push(callback); },
            removeEventListener(type, callback) { const at = listeners.indexOf(callback); if (at >= 0) listeners.splice(at, 1); },
            addListener(callback) { list.addEventListener('change', callback); },
            removeListener(callback) { list.removeEventListener('change', callback); },
        };
        if (dark || light) mediaLists.push({ list, listeners });
        return list;
    });
    const appearanceChanged = (appearance) => {
        const before = new Map(mediaLists.map(({ list }) => [list, list.matches]));
        safari.appearance = appearance;
        for (const { list, listeners } of mediaLists) {
            if (before.get(list) === list.matches) continue;
            const change = { type: 'change', media: list.media, matches: list.matches };
            for (const callback of [typeof list.onchange === 'function' ? list.onchange : null, ...listeners]) if (callback) call(callback, [change]);
        }
    };
    // storage.local, storage.session and storage.sync: each call a promise that the operation's
    // completion settles (section 10). onChanged is a listener Safari keeps (it wakes the
    // background): it hears each change this background makes as it completes, and each a page
    // makes (`storageChanged`).
    const pending = new Map();
    const onChanged = event('storageChanged');
    const area = (name) => {
        const operation = (op, argument) => new Promise((resolve, reject) => {
            const token = checked(host.storage(name, op, jsonText(argument === undefined ? null : argument, 'what storage.' + name + ' is given')));
            pending.set(token, { resolve, reject, name });
        });
        return namespace('storage.' + name, storageAreaMembers(name, operation, (file, text) => host.keep(file, text)));
    };
    if (permissions.has('storage') || permissions.has('unlimitedStorage')) {
        api.storage = namespace('storage', { local: area('local'), session: area('session'), sync: area('sync'), onChanged });
    }
    const completed = (token, outcome) => {
        const waiting = pending.get(token);
        if (waiting === undefined) return;
        pending.delete(token);
        if (outcome.error !== undefined) { waiting.reject(new Error(outcome.error)); return; }
        if (outcome.changes !== undefined && Object.keys(outcome.changes).length > 0) {
            for (const listener of [...listenersOf.get(onChanged)]) call(listener, [outcome.changes, waiting.name]);
        }
        waiting.resolve(outcome.value);
    };
    // A namespace Safari gives this background and the runtime does not provide throws, naming
    // what was called; one Safari does not give it is absent (a feature check sees it so).
    const browser = new Proxy(api, {
        get(target, name) {
            if (typeof name === 'symbol' || name in target) return target[name];
            if (name === 'then' || !present.has(name)) return undefined;
            return namespace(name, {});
        },
        has(target, name) { return name in target || present.has(name); },
    });
    define('browser', browser);
    define('chrome', browser);
    // A service worker's global is its `self`, with importScripts (from the worker script's own
    // folder); a background page's (V2's, or V3's `scripts` or `page`) is its `window` too, an
    // event target that hears DOMContentLoaded and load once its scripts ran, with the
    // extension origin's localStorage, which its popup shares. A worker has no window, document
    // or localStorage, and a page no importScripts, as in Safari.
    define('self', globalThis);
    // (Its listeners are kept by an event target of this realm's, whose `onload` is the window's.)
    const WindowEvent = Event, targetMethods = EventTarget.prototype;
    const windowEvents = isWorker ? null : new (class extends EventTarget { get onload() { return globalThis.onload; } })();
    if (isWorker) {
        define('importScripts', (...files) => {
            const problem = checked(host.importScripts(files.map(String)));
            // A script it ran threw: its value goes on.
            if (host.threw()) throw host.thrown();
            if (problem) throw new TypeError(problem);
        });
    } else {
        define('window', globalThis);
        for (const name of ['addEventListener', 'removeEventListener', 'dispatchEvent']) {
            define(name, (...args) => apply(targetMethods[name], windowEvents, args));
        }
        define('localStorage', webStorageArea((op, key, value) => checked(host.webStorage('local', op, key, value))));
        // Its sessionStorage is the page's own, in memory: it goes with the page when Safari
        // unloads it.
        const session = new Map();
        define('sessionStorage', webStorageArea((op, key, value) => {
            switch (op) {
            case 'get': return session.has(key) ? stringify(session.get(key)) : 'null';
            case 'keys': return stringify([...session.keys()]);
            case 'set': session.set(key, value); return 'null';
            case 'remove': session.delete(key); return 'null';
            case 'clear': session.clear(); return 'null';
            default: return 'null';
            }
        }));
        // Until the page's document is attached (`attach`, below): why it has none.
        Object.defineProperty(globalThis, 'document', {
            get() { throw new Error('document (a background page\'s) is not provided by the harness\'s runtime: ' + host.noDocument()); },
            configurable: true,
        });
    }

    // A background page's document, when its scripts name the DOM (runtime.mjs): jsdom's, as the
    // extension's pages have theirs (pages-realm.mjs), over the page's HTML (Safari's generated
    // page for `scripts`). Its window's names (Node, HTMLElement, DOMParser, MutationObserver,
    // location, ...) are read from it behind this realm's own (dom.mjs, attachWindow), and this
    // realm's window is the document's event target: its events and what takes them (a
    // listener's `signal`) are the document's, as load and DOMContentLoaded are.
    let page = null, readyState = 'loading', observed = false;
    const fireOn = (target, type, bubbles = false) => target.dispatchEvent(new page.Event(type, { bubbles }));
    const attach = (window) => {
        page = window;
        const document = window.document;
        windowAsEventTarget(window);
        define('document', document);
        // The document is `loading` while the page's scripts run, as Safari parses its page.
        Object.defineProperty(document, 'readyState', { get: () => readyState, configurable: true });
        // An observer's records come on node's queue: the runtime runs them in the turn that made
        // them (__runtimeSettle), and again while an observer's callback ran.
        const Observer = window.MutationObserver;
        const MutationObserver = function MutationObserver(callback) {
            if (new.target === undefined) throw new TypeError("Failed to construct 'MutationObserver': Please use the 'new' operator");
            if (typeof callback !== 'function') throw new TypeError("Failed to construct 'MutationObserver': parameter 1 is not of type 'Function'");
            return new Observer(function (records, observer) { observed = true; return apply(callback, this, [records, observer]); });
        };
        MutationObserver.prototype = Observer.prototype;
        define('MutationObserver', MutationObserver);
        giveWindow(window, [...builtins, ...windowGlobals]);
    };
    Object.defineProperty(globalThis, '__runtimeSettle', {
        value() { observed = false; host.runQueued(); return observed; },
        writable: false, configurable: false, enumerable: false,
    });

    // A turn's work: the other realm names it with a word and a number (post), the turn does it
    // under the watchdog (__runtimeTurn, which no script can replace), and its answer is a string
    // (result). Nothing here but assignments runs outside a turn.
    let work = null, answer = '';
    const describe = (error) => error instanceof Error ? error.name + ': ' + error.message : text(error);
    Object.defineProperty(globalThis, '__runtimeTurn', {
        value() {
            const next = work;
            work = null;
            answer = '';
            if (next === null) return;
            // What the extension set on its toolbar item is Safari's, as each input's frame says it
            // (one of its pages may have set it since): taken in the frame's first turn (the host
            // gives it once), so that what the background sets in the frame's later turns stays.
            const action = host.action();
            if (action !== '') toolbar.hold(JSON.parse(action));
            if (next.kind === 'event') {
                deliver(JSON.parse(next.text));
                return;
            }
            if (next.kind === 'storage') {
                completed(next.id, JSON.parse(next.text));
                return;
            }
            if (next.kind === 'reply') {
                const input = JSON.parse(next.text);
                const waiting = replies.get(input.request);
                if (waiting === undefined) return;
                replies.delete(input.request);
                if (input.rejected !== undefined) waiting.reject(nativeFailure(String(input.rejected))); else waiting.resolve(input.reply);
                return;
            }
            if (next.kind === 'loaded') {
                // A background page's scripts ran: its window hears DOMContentLoaded (its
                // document's, when it has one, bubbling to the window), then load.
                if (page === null) {
                    for (const type of ['DOMContentLoaded', 'load']) apply(targetMethods.dispatchEvent, windowEvents, [new WindowEvent(type)]);
                    return;
                }
                readyState = 'interactive';
                fireOn(page.document, 'readystatechange');
                fireOn(page.document, 'DOMContentLoaded', true);
                readyState = 'complete';
                fireOn(page.document, 'readystatechange');
                fireOn(page, 'load');
                return;
            }
            if (next.kind === 'lifecycle') {
                // Once the background loaded: Safari launched, the extension was installed, or a
                // new version was.
                const { reason, previousVersion } = JSON.parse(next.text);
                if (reason === 'startup') for (const listener of [...listenersOf.get(onStartup)]) call(listener, []);
                // An update names the version it replaced (WebKit's `m_previousVersion`).
                const installed = reason === 'update' ? { reason: 'update', previousVersion: String(previousVersion ?? '') } : { reason: 'install' };
                if (reason !== 'startup') for (const listener of [...listenersOf.get(onInstalled)]) call(listener, [installed]);
                return;
            }
            if (next.kind === 'started') {
                const input = JSON.parse(next.text);
                safari.appearance = input.appearance === 'dark' ? 'dark' : 'light';
                safari.tabs = new Map(Object.entries(input.tabs ?? {}));
                safari.appMessages = input.appMessages === true;
                if (typeof input.version === 'string') safari.version = input.version;
                holdAlarms(input.alarms);
                toolbar.hold(input.action);
                menus?.hold(input.menus);
                return;
            }
            if (next.kind === 'listening') {
                // The events the background listens for now, each once, in order.
                answer = [...events].filter(([, listeners]) => listeners.length > 0).map(([name]) => name).sort().join(',');
                return;
            }
            const timer = timers.due(next.id);
            if (timer !== undefined) call(timer.callback, timer.args);
        },
        writable: false, configurable: false, enumerable: false,
    });
    // Section 8.2's inputs as the browser.* events a background page gets. Each listener runs
    // in turn; one that throws is logged and the next still runs.
    const call = (listener, args) => {
        try { return listener(...args); } catch (error) {
            host.log('error', 'Uncaught ' + describe(error), error instanceof Error ? String(error.stack) : '');
            return undefined;
        }
    };
    const fire = (name, ...args) => { for (const listener of [...(events.get(name) ?? [])]) call(listener, args); };
    // The user's gesture, while its event's listeners run (WebKit's `UserGestureIndicator` for
    // action.onClicked, commands.onCommand and menus.onClicked): what they call synchronously
    // may ask for permissions.
    let gesture = false;
    const fireGesture = (name, ...args) => {
        gesture = true;
        try { fire(name, ...args); } finally { gesture = false; }
    };
    // A page's message to runtime.onMessage. From a tab, the first answer (sendResponse, at
    // once or later, or a listener's promise) is the decision that tab shows; from no tab, an
    // answer goes nowhere.
    // From the popup, the first answer to a change (a message numbered other than 0) is that
    // change's popupAnswer: {saved, scope}.
    const popupPage = manifest.action?.default_popup ?? manifest.browser_action?.default_popup ?? manifest.page_action?.default_popup;
    const popupURL = typeof popupPage !== 'string' ? undefined : api.runtime.getURL(popupPage);
    const message = (body, tab, url, popupMessage) => {
        const sender = tab !== undefined ? { id: api.runtime.id, url, tab: { id: tabId(tab), url } }
            : popupMessage !== undefined && popupURL !== undefined ? { id: api.runtime.id, url: popupURL } : { id: api.runtime.id };
        let answered = false;
        const sendResponse = (response) => {
            if (answered) return;
            answered = true;
            if (tab !== undefined) checked(host.decide(tab, jsonText(response ?? null, 'an answer')));
            else if (popupMessage) checked(host.answerPopup(popupMessage, jsonText(response ?? null, 'an answer')));
        };
        // Safari drops a listener's rejection, unreported: that listener gives no answer.
        for (const listener of [...(events.get('message') ?? [])]) {
            const result = call(listener, [body, sender, sendResponse]);
            if (result !== null && typeof result === 'object' && typeof result.then === 'function') result.then(sendResponse, () => {});
        }
    };
    // Who a page's message or port is from, as runtime.onMessage and onConnect name it: the
    // popup, or a tab's content script with its tab.
    const pageSender = (input) => input.popup === true ? (popupURL === undefined ? { id: api.runtime.id } : { id: api.runtime.id, url: popupURL })
        : { id: api.runtime.id, url: input.url, origin: originOf(input.url), frameId: 0, tab: tabOf(input.tab) };
    // A message from one of the extension's own pages (section 15): the first answer
    // (sendResponse, or a listener's promise) goes back to it. A listener keeps the page waiting
    // by returning true or a promise; when none does and none answered, the page gets nothing at
    // once. Safari drops a listener's rejection, unreported: that listener gives no answer, and
    // the page waits on until WebKit's reply holder goes (`ReplyCallbackAggregator`, kept by
    // sendResponse until the collector takes it): at the latest when the background unloads,
    // which is when the harness answers it with nothing.
    const pageMessage = (input) => {
        if (input.tab !== undefined) safari.tabs.set(input.tab, input.url);
        if (typeof input.active === 'string') safari.active = input.active;
        const sender = pageSender(input);
        let answered = false, handled = false;
        const sendResponse = (response) => {
            if (answered) return;
            answered = true;
            checked(host.answerPage(input.id, response === undefined ? undefined : jsonText(response, 'an answer')));
        };
        // An extension page's message sent in the user's gesture is heard in it (WebKit's
        // `resolvedUserGesture`): what the listeners call at once may ask for permissions.
        gesture = input.userGesture === true;
        try {
            for (const listener of [...(events.get('message') ?? [])]) {
                const result = call(listener, [input.message, sender, sendResponse]);
                if (result === true) handled = true;
                else if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
                    handled = true;
                    result.then(sendResponse, () => {});
                }
            }
        } finally { gesture = false; }
        if (!answered && !handled) {
            answered = true;
            host.answerPage(input.id, undefined);
        }
    };
    // The ports the extension's own pages opened (runtime.connect), by number: each is the
    // background's end, given to runtime.onConnect's listeners. A page's message on it fires
    // its onMessage; its page's end closing (the page disconnected it or went away) fires its
    // onDisconnect.
    const portOptions = { listenerCall: call, setLastError: (error) => { lastError = error; } };
    const pagePorts = new Map();
    const pagePort = (input) => {
        const number = input.port;
        const end = portEnd({ name: typeof input.name === 'string' ? input.name : '', sender: pageSender(input) },
                            (text) => host.portPost(number, text), () => { pagePorts.delete(number); host.portClose(number); }, portOptions);
        pagePorts.set(number, end);
        return end.port;
    };
    // tabs.connect: a port the background opens to a tab's page, numbered here from -1 down (a
    // page's ports are numbered from 1 up), and kept with the pages' ports. The page's
    // runtime.onConnect takes it; a tab that is not open, or a page with no listener, closes it
    // at once with why (WebKit, `WebExtensionAPITabs::connect`: the port's error, then its
    // disconnect).
    let nextTabPort = -1;
    const connectTab = (...args) => {
        const { tab, name } = connectArguments(args);
        const number = nextTabPort--;
        const end = portEnd({ name }, (text) => host.portPost(number, text), () => { pagePorts.delete(number); host.portClose(number); }, portOptions);
        pagePorts.set(number, end);
        host.connectTab(number, tabNamed(tab), name);
        return end.port;
    };
    const deliver = (input) => {
        switch (input.type) {
        case 'pageMessage': pageMessage(input); return;
        case 'portOpened': fire('connect', pagePort(input)); return;
        case 'portMessage': pagePorts.get(input.port)?.heard(input.message); return;
        case 'portClosed': {
            const end = pagePorts.get(input.port);
            pagePorts.delete(input.port);
            end?.closed(typeof input.error === 'string' ? input.error : undefined);
            return;
        }
        case 'pageAnswered': {
            const waiting = pageAnswers.get(input.id);
            pageAnswers.delete(input.id);
            if (waiting === undefined) return;
            // A message no page heard gives nothing, no error, as WebKit's `runtimeSendMessage`
            // and `tabsSendMessage` complete with nothing when no process listens.
            waiting.resolve(input.unreachable === true ? undefined : input.answer);
            return;
        }
        case 'tabRequestedDecision':
            // The decision message (section 14): the page's content script asks for its decision.
            safari.tabs.set(input.tab, input.url);
            message({ type: 'getDecision', url: input.url, nativeDark: input.nativeDark === true }, input.tab, input.url);
            return;
        case 'tabNativeDarkChanged':
            message({ type: 'nativeDarkChanged', nativeDark: input.nativeDark === true }, input.tab, safari.tabs.get(input.tab));
            return;
        case 'appearanceChanged':
            appearanceChanged(input.appearance);
            message({ type: 'appearanceChanged', appearance: input.appearance }, undefined, undefined);
            return;
        case 'popupOpened': case 'popupChoseScope': case 'popupEdited': case 'popupForgotSite': case 'popupPaused': case 'popupClosed':
            // The popup's messages are section 8.2's inputs as written, its tab as scripts know it.
            message(typeof input.tab === 'string' ? { ...input, tab: tabId(input.tab) } : input, undefined, undefined,
                    Number.isSafeInteger(input.message) ? input.message : 0);
            return;
        case 'tabsAnswered': tabsAnswered(input); return;
        case 'tabCreated':
            safari.tabs.set(input.tab, input.url);
            fire('tabCreated', { ...tabOf(input.tab), status: 'loading' });
            return;
        case 'tabUpdated': {
            // (tabId, changeInfo, tab): loading, with the address when it is a new one, then complete.
            safari.tabs.set(input.tab, input.url);
            const status = input.status === 'loading' ? 'loading' : 'complete';
            const change = status === 'loading' && input.urlChanged === true ? { status, url: input.url } : { status };
            fire('tabUpdated', tabId(input.tab), change, { ...tabOf(input.tab), status });
            return;
        }
        case 'tabActivated': safari.active = input.tab; fire('tabActivated', { tabId: tabId(input.tab), windowId: windowOf(input.tab) }); return;
        case 'webNavigation':
            safari.tabs.set(input.tab, String(input.url));
            navigation?.fire(input, (made) => listenersOf.get(made));
            return;
        case 'actionClicked':
            // The user clicked the toolbar item where it has no popup: (the tab, {modifiers}).
            safari.tabs.set(input.tab, String(input.url ?? ''));
            fireGesture('actionClicked', tabOf(input.tab), { modifiers: [], button: 0 });
            return;
        case 'commandPressed':
            // The user pressed the command's keys: (name, the front window's active tab).
            if (typeof input.tab === 'string') safari.tabs.set(input.tab, String(input.url ?? ''));
            fireGesture('command', String(input.name), typeof input.tab === 'string' ? tabOf(input.tab) : undefined);
            return;
        case 'menuClicked':
            // The user chose one of its menu items on a tab's page: (info, tab).
            safari.tabs.set(input.tab, input.url);
            if (menus !== null) fireGesture('menuClicked', ...menus.clicked(input, tabOf(input.tab)));
            return;
        case 'tabClosed':
            safari.tabs.delete(input.tab);
            if (safari.active === input.tab) safari.active = undefined;
            fire('tabRemoved', tabId(input.tab), { windowId: windowOf(input.tab), isWindowClosing: false });
            return;
        case 'safariCameToForeground': fire('windowFocus', frontWindow()); return;
        // No Safari window has focus (macOS: another app is in front): windows.WINDOW_ID_NONE.
        case 'safariWentToBackground': fire('windowFocus', -1); return;
        case 'appMessageArrived':
            // A team's app sends {name, userInfo}; the design's app only says its document changed.
            // Each port hears a copy of its own.
            for (const end of [...ports]) end.heard(input.message !== undefined ? JSON.parse(JSON.stringify(input.message)) : { type: 'documentChanged' });
            return;
        case 'storageChanged': fire('storageChanged', input.changes, String(input.area)); return;
        // What was granted or taken back: ({permissions, origins}).
        case 'permissionsChanged':
            fire(input.change === 'added' ? 'permissionsAdded' : 'permissionsRemoved', { permissions: [...input.permissions].map(String), origins: [...input.origins].map(String) });
            return;
        case 'alarmsChanged': holdAlarms(input.alarms); return;
        // One of the extension's pages changed the menu items Safari holds: the copy follows.
        case 'menusChanged': menus?.hold(input.items); return;
        case 'alarmFired': fire('alarm', alarms.fired(typeof input.name === 'string' ? input.name : '')); return;
        }
    };

    return {
        post(kind, id, text) { work = { kind, id, text }; },
        result() { return answer; },
        // A background page's document (its window), given before its scripts run.
        attach,
        // jsdom's own later work (runtime.mjs, keepTime) runs as the page's timers do, numbered
        // apart from them (realm-common.mjs, installTimers); a frame's window (an iframe's) reads
        // this realm's clock and random numbers.
        later(callback, delay) { return timers.later(callback, delay); },
        cancel(timer) { timers.cancel(timer); },
        adopt(frame) { giveWindow(frame, frameGlobals); },
        refusal(what) { return new TypeError(what + ' is not provided by the harness\'s runtime'); },
    };
}
