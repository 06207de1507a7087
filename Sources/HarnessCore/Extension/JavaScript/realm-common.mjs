// What every script's realm is given, made in that realm (PROTOCOL.md, sections 14 and 15): the
// host functions called through the realm's own, time and randomness from the frames, the
// timers, the collector's stand-ins, the stacks, and the browser.* API's events and ports. The
// two realms' install functions (runtime-realm.mjs for a background, pages-realm.mjs for a page)
// import it; the runtimes compile it in each realm before any script runs (realmModule in
// runtime-common.mjs), so every object it makes is that realm's, and the built-ins it captures
// here are the realm's own, taken before a script could replace them. It imports nothing, and
// nothing here reaches node.

const apply = Reflect.apply, getOwn = Object.getOwnPropertyDescriptor, getProto = Object.getPrototypeOf, hasOwn = Object.hasOwn;
const exec = RegExp.prototype.exec, stringify = JSON.stringify, parseJSON = JSON.parse;
const StackError = RangeError;

// The other realm's functions, each called through one of this realm's: whatever they throw
// (none throws but for the stack's limit or the memory's: a RangeError of the other realm,
// whose Function makes code from strings) becomes this realm's error.
export function hostOf(hostFunctions) {
    const host = {};
    for (const name of Object.keys(hostFunctions)) {
        const work = hostFunctions[name];
        host[name] = (...args) => {
            try { return apply(work, undefined, args); } catch { throw new StackError('Maximum call stack size exceeded'); }
        };
    }
    return host;
}

// A global of the scripts' realm, as a browser's: writable and configurable, not enumerable.
export const define = (name, value) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });

// What a document's window (jsdom's, node's realm's: dom.mjs) is given of the realm that holds
// it: `names`, each this realm's global of that name, so that `document.defaultView` reaches no
// real clock and no request leaves. (A name the window holds fixed, such as `undefined`, stays
// its own.) Besides the realm's builtins, a window takes `windowGlobals`, and a frame's window
// (an iframe's, which jsdom makes a realm of its own) `frameGlobals`.
export const windowGlobals = ['performance', 'crypto', 'navigator', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask',
                              'localStorage', 'console', 'fetch', 'XMLHttpRequest'];
export const frameGlobals = ['Date', 'Math', 'Intl', 'performance', 'crypto'];
// A document's window as its realm's event target: the DOM's events and what takes them (a
// listener's `signal`) are the document's, and the realm's add/remove/dispatchEvent are the
// window's.
export function windowAsEventTarget(window) {
    for (const name of ['Event', 'CustomEvent', 'EventTarget', 'AbortController', 'AbortSignal', 'DOMException']) define(name, window[name]);
    for (const name of ['addEventListener', 'removeEventListener', 'dispatchEvent']) define(name, (...args) => apply(window[name], window, args));
}

export function giveWindow(window, names) {
    for (const name of names) {
        if (name === 'globalThis' || !(name in globalThis) || Object.getOwnPropertyDescriptor(window, name)?.configurable === false) continue;
        Object.defineProperty(window, name, { value: globalThis[name], writable: true, configurable: true });
    }
}

// A value as JSON text for the host, or this realm's TypeError (a function, a symbol).
export const jsonText = (value, what) => {
    const text = stringify(value === undefined ? null : value);
    if (typeof text !== 'string') throw new TypeError(what + ' must be JSON (not a function or a symbol)');
    return text;
};

// MARK: - Time and randomness from the frames

// Date, and Intl's formats, on the frames' clock (host.now()) and in the scenario's local time
// (host.utcOffset(), in minutes east of UTC). Nothing reaches the clock's own Date: Date's
// prototype names this one as its constructor, and Intl formats the frames' time when it is
// given none.
export function installDate(host) {
    // Local time is the scenario's: UTC plus the offset Safari's start gave (the process runs in
    // UTC). A date's local fields are the UTC fields of the moment shifted by the offset, and
    // local components and local date-time text are read back the same way.
    const RealDate = globalThis.Date;
    const proto = RealDate.prototype;
    const shift = () => host.utcOffset() * 60000;
    const utc = {};
    for (const name of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
        utc['get' + name] = proto['getUTC' + name];
        if (name !== 'Day') utc['set' + name] = proto['setUTC' + name];
    }
    const getTime = proto.getTime, setTime = proto.setTime;
    const shifted = (date) => new RealDate(getTime.call(date) + shift());
    for (const name of ['FullYear', 'Month', 'Date', 'Day', 'Hours', 'Minutes', 'Seconds', 'Milliseconds']) {
        Object.defineProperty(proto, 'get' + name, { value() { return utc['get' + name].call(shifted(this)); }, writable: true, configurable: true });
        if (name === 'Day') continue;
        Object.defineProperty(proto, 'set' + name, {
            value(...args) {
                const local = shifted(this);
                utc['set' + name].apply(local, args);
                return setTime.call(this, getTime.call(local) - shift());
            },
            writable: true, configurable: true,
        });
    }
    Object.defineProperty(proto, 'getTimezoneOffset', { value() { return -host.utcOffset(); }, writable: true, configurable: true });
    const zone = () => {
        const minutes = host.utcOffset(), size = Math.abs(minutes);
        return 'GMT' + (minutes < 0 ? '-' : '+') + String(Math.trunc(size / 60)).padStart(2, '0') + String(size % 60).padStart(2, '0');
    };
    const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'], months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const two = (n) => String(n).padStart(2, '0');
    const dateText = (date) => {
        const d = shifted(date);
        return days[utc.getDay.call(d)] + ' ' + months[utc.getMonth.call(d)] + ' ' + two(utc.getDate.call(d)) + ' ' + String(utc.getFullYear.call(d)).padStart(4, '0');
    };
    const timeText = (date) => {
        const d = shifted(date);
        // Only UTC has a name here: the scenario gives an offset, not a place.
        return two(utc.getHours.call(d)) + ':' + two(utc.getMinutes.call(d)) + ':' + two(utc.getSeconds.call(d)) + ' ' + zone()
            + (host.utcOffset() === 0 ? ' (Coordinated Universal Time)' : '');
    };
    const valid = (date) => !Number.isNaN(getTime.call(date));
    const textOf = (format) => function () { return valid(this) ? format(this) : 'Invalid Date'; };
    Object.defineProperty(proto, 'toDateString', { value: textOf(dateText), writable: true, configurable: true });
    Object.defineProperty(proto, 'toTimeString', { value: textOf((date) => timeText(date)), writable: true, configurable: true });
    Object.defineProperty(proto, 'toString', { value: textOf((date) => dateText(date) + ' ' + timeText(date)), writable: true, configurable: true });
    // Text with a date and a time but no zone is local time; anything else reads as it says.
    const localText = /^\s*\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*$/;
    const parse = (text) => {
        const value = RealDate.parse(text);
        return localText.test(String(text)) ? value - shift() : value;
    };
    const FrameDate = function Date(...args) {
        if (new.target === undefined) return new RealDate(host.now()).toString();
        // A subclass (class D extends Date) gets its own prototype.
        const make = (value) => Reflect.construct(RealDate, [value], new.target);
        if (args.length === 0) return make(host.now());
        if (args.length === 1) return make(typeof args[0] === 'string' ? parse(args[0]) : args[0]);
        return make(RealDate.UTC(...args) - shift());
    };
    FrameDate.prototype = RealDate.prototype;
    FrameDate.now = () => host.now();
    FrameDate.parse = (text) => parse(String(text));
    FrameDate.UTC = RealDate.UTC;
    Object.defineProperty(RealDate.prototype, 'constructor', { value: FrameDate, writable: true, configurable: true });
    define('Date', FrameDate);
    // Intl formats in the local zone where ICU has one for the offset (whole hours: Etc/GMT-1
    // is UTC+01:00); another offset formats in UTC.
    const Format = Intl.DateTimeFormat;
    const localZone = () => {
        const minutes = host.utcOffset();
        if (minutes === 0 || minutes % 60 !== 0 || minutes < -720 || minutes > 840) return undefined;
        return 'Etc/GMT' + (minutes > 0 ? '-' : '+') + Math.abs(minutes / 60);
    };
    const inLocalZone = (options) => {
        const zone = localZone();
        return zone === undefined || (options !== undefined && options !== null && options.timeZone !== undefined) ? options : { ...options, timeZone: zone };
    };
    const LocalFormat = function DateTimeFormat(locales, options) { return new Format(locales, inLocalZone(options)); };
    LocalFormat.prototype = Format.prototype;
    LocalFormat.supportedLocalesOf = Format.supportedLocalesOf;
    Object.defineProperty(Format.prototype, 'constructor', { value: LocalFormat, writable: true, configurable: true });
    Intl.DateTimeFormat = LocalFormat;
    for (const name of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
        const original = proto[name];
        Object.defineProperty(proto, name, { value(locales, options) { return original.call(this, locales, inLocalZone(options)); }, writable: true, configurable: true });
    }
    const format = getOwn(Format.prototype, 'format').get;
    Object.defineProperty(Format.prototype, 'format', {
        get() { const bound = apply(format, this, []); return (date) => bound(date === undefined ? host.now() : date); }, configurable: true,
    });
    const formatToParts = Format.prototype.formatToParts;
    Format.prototype.formatToParts = function (date) { return apply(formatToParts, this, [date === undefined ? host.now() : date]); };
}

// sfc32 over a 128-bit state mixed from `text` (the run's seed and what the realm is: the
// background and its first moment, a page and its load): the same text gives the same numbers.
export function seededRandom(text) {
    let h = 1779033703 ^ text.length;
    for (let i = 0; i < text.length; i++) { h = Math.imul(h ^ text.charCodeAt(i), 3432918353); h = (h << 13) | (h >>> 19); }
    const next = () => { h = Math.imul(h ^ (h >>> 16), 2246822507); h = Math.imul(h ^ (h >>> 13), 3266489909); return (h ^= h >>> 16) >>> 0; };
    let a = next(), b = next(), c = next(), d = next();
    return () => {
        a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
        let t = (a + b) | 0;
        a = b ^ (b >>> 9); b = (c + (c << 3)) | 0; c = (c << 21) | (c >>> 11); d = (d + 1) | 0; t = (t + d) | 0; c = (c + t) | 0;
        return (t >>> 0) / 4294967296;
    };
}

// Math.random from the seed the host gives (host.seed(), text), read when a script first asks
// for a number. Returns the source, for the realm's other random APIs.
export function installRandom(host) {
    let next = null;
    const random = () => (next ??= seededRandom(String(host.seed())))();
    Math.random = () => random();
    return random;
}

// Timers are the harness's to fire (section 14): host.setTimer and host.cancelTimer tell it, and
// a turn runs a timer that fell due with `due(number)`, which gives the timer to call (its
// callback and arguments) and sets an interval again. A delay is read as browsers read it
// (truncated; not a number, negative or over 2^31 - 1: 0), and an interval runs at most once a
// millisecond, so time moves while it runs.
export function installTimers(host) {
    const timers = new Map();
    let nextTimer = 1;
    const delay = (value) => {
        const wait = Math.trunc(Number(value));
        return Number.isFinite(wait) && wait > 0 && wait <= 2147483647 ? wait : 0;
    };
    const setTimer = (callback, wait, args, repeats) => {
        if (typeof callback !== 'function') throw new TypeError('setTimeout and setInterval take a function (a string is not evaluated)');
        const id = nextTimer++;
        const every = repeats ? Math.max(1, delay(wait)) : delay(wait);
        timers.set(id, { callback, args, every, repeats });
        host.setTimer(id, host.now() + every);
        return id;
    };
    define('setTimeout', (callback, wait = 0, ...args) => setTimer(callback, wait, args, false));
    define('setInterval', (callback, wait = 0, ...args) => setTimer(callback, wait, args, true));
    const clear = (id) => { if (timers.delete(id)) host.cancelTimer(id); };
    define('clearTimeout', clear);
    define('clearInterval', clear);
    // Work the runtime itself puts off (a page's DOM's own tasks) is numbered with the timers,
    // so the host tells them apart, but kept apart: a script's clearTimeout cannot reach it.
    const tasks = new Map();
    return {
        due(id) {
            const task = tasks.get(id);
            if (task !== undefined) { tasks.delete(id); return task; }
            const timer = timers.get(id);
            if (timer === undefined) return undefined;
            if (timer.repeats) host.setTimer(id, host.now() + timer.every); else timers.delete(id);
            return timer;
        },
        later(callback, wait) {
            const id = nextTimer++;
            tasks.set(id, { callback, args: [] });
            host.setTimer(id, host.now() + delay(wait));
            return id;
        },
        cancel(id) { if (tasks.delete(id)) host.cancelTimer(id); },
    };
}

// No run depends on the collector.
export function installCollector() {
    define('WeakRef', class WeakRef {
        #target;
        constructor(target) { this.#target = target; }
        deref() { return this.#target; }
    });
    define('FinalizationRegistry', class FinalizationRegistry {
        constructor(callback) { if (typeof callback !== 'function') throw new TypeError('a cleanup callback is required'); }
        register() {}
        unregister() { return false; }
    });
}

// An error's stack names the scripts' frames only, as a page's would: not the runtime's (its
// own modules and scripts are named `hidden`, as `runtime:turn`) or node's, whose paths are this
// machine's. Its first line is the error's own name and message, read without running any of
// the scripts' code (no getter, no trap), and scripts replace neither this nor the global Error
// node looks it up on: V8 formats a stack when it is first read, which may be in the runtime,
// outside the watchdog. Only built-ins no script can reach run here: the captured ones, and the
// frames' own methods (a call site's prototype is V8's, never handed to a script).
export function installStacks(host, hidden) {
    const ownText = (object, key) => {
        for (let current = object, depth = 0; current !== null && (typeof current === 'object' || typeof current === 'function') && depth < 64; depth++) {
            if (host.isProxy(current)) return undefined;
            const descriptor = getOwn(current, key);
            if (descriptor) return hasOwn(descriptor, 'value') && typeof descriptor.value === 'string' ? descriptor.value : undefined;
            current = getProto(current);
        }
        return undefined;
    };
    const hiddenFile = new RegExp('^(' + hidden + '|node:|file:|/)');
    const runtimeFrame = (frame) => {
        const file = frame.getFileName();
        return typeof file === 'string' && apply(exec, hiddenFile, [file]) !== null;
    };
    Object.defineProperty(Error, 'prepareStackTrace', {
        value(error, frames) {
            const name = ownText(error, 'name') ?? 'Error', message = ownText(error, 'message') ?? '';
            let text = message === '' ? name : name + ': ' + message;
            for (let index = 0; index < frames.length; index++) {
                if (!runtimeFrame(frames[index])) text += '\n    at ' + frames[index].toString();
            }
            return text;
        },
        writable: false, configurable: false, enumerable: false,
    });
    Object.defineProperty(globalThis, 'Error', { value: Error, writable: false, configurable: false, enumerable: false });
}

// MARK: - The browser.* API's events and ports

// An event object of the browser.* API over its list of listeners.
export const eventOf = (listeners) => ({
    addListener(callback) {
        if (typeof callback !== 'function') throw new TypeError('addListener takes a function');
        if (!listeners.includes(callback)) listeners.push(callback);
    },
    removeListener(callback) { const at = listeners.indexOf(callback); if (at >= 0) listeners.splice(at, 1); },
    hasListener(callback) { return listeners.includes(callback); },
    hasListeners() { return listeners.length > 0; },
});

// One end of a port in a script's realm: runtime.connect's in a page, the background's from
// runtime.onConnect. It has the given fields (name, sender), its events, postMessage and
// disconnect, which tell the host through post(text) and close(). The host's turns call
// heard(message) when the other end posts and closed(error) when it goes, runtime.lastError
// saying error meanwhile (setLastError), if there is one; each listener runs through
// listenerCall(listener, args).
export function portEnd(fields, post, close, { listenerCall, setLastError }) {
    let open = true;
    const messageListeners = [], disconnectListeners = [];
    const port = {
        ...fields,
        onMessage: eventOf(messageListeners),
        onDisconnect: eventOf(disconnectListeners),
        postMessage(message) {
            // WebKit's words (`WebExtensionAPIPort::postMessage`).
            if (!open) throw new Error('the port is disconnected');
            post(jsonText(message, 'a message'));
        },
        disconnect() {
            if (!open) return;
            open = false;
            close();
        },
    };
    return {
        port,
        heard(message) { for (const listener of [...messageListeners]) listenerCall(listener, [message, port]); },
        closed(error) {
            open = false;
            setLastError(error === undefined ? undefined : { message: error });
            for (const listener of [...disconnectListeners]) listenerCall(listener, [port]);
            setLastError(undefined);
        },
    };
}

// MARK: - Safari's namespaces

// The browser.* namespaces Safari gives a script, by its context and the manifest (WebKit,
// `WebExtensionAPINamespace::isPropertyAllowed` in WebExtensionAPINamespaceCocoa.mm): the
// background and the extension's pages have every namespace the manifest allows, a content
// script only runtime, i18n, extension and storage. `action` needs Manifest V3 and an `action`
// key, `browserAction` and `pageAction` Manifest V2 and their keys, `commands` a `commands` key,
// `storage` the storage or unlimitedStorage permission, `declarativeNetRequest` either of its
// permissions, and the rest marked dynamic their permission's name. `notifications` (test mode
// only), `devtools` (an inspector's page), `sidebarAction` and `sidePanel` (behind a setting),
// and what Safari never had (`downloads`, `bookmarks`, `history`, `identity`, ...) are absent,
// so that a script's feature check sees them absent.
export function safariNamespaces(manifest, context) {
    const permissions = new Set((Array.isArray(manifest.permissions) ? manifest.permissions : []).map(String));
    const has = (key) => manifest[key] !== null && typeof manifest[key] === 'object';
    const v3 = manifest.manifest_version === 3;
    const names = new Set(['runtime', 'i18n', 'extension']);
    if (permissions.has('storage') || permissions.has('unlimitedStorage')) names.add('storage');
    if (context === 'content') return names;
    for (const name of ['tabs', 'windows', 'permissions']) names.add(name);
    if (v3 && has('action')) names.add('action');
    if (!v3 && has('browser_action')) names.add('browserAction');
    if (!v3 && has('page_action')) names.add('pageAction');
    if (has('commands')) names.add('commands');
    if (permissions.has('declarativeNetRequest') || permissions.has('declarativeNetRequestWithHostAccess')) names.add('declarativeNetRequest');
    for (const name of ['alarms', 'cookies', 'menus', 'contextMenus', 'scripting', 'webNavigation', 'webRequest', 'nativeMessaging']) {
        if (permissions.has(name)) names.add(name);
    }
    // contextMenus and menus are one API under two names, granted by either permission.
    if (names.has('menus') || names.has('contextMenus')) { names.add('menus'); names.add('contextMenus'); }
    names.delete('nativeMessaging');
    return names;
}

// The extension's keyboard commands, as the manifest gives them (`commands.getAll`): each with its
// name, description and shortcut (the one for a Mac, else the default).
export function commandsOf(manifest) {
    return Object.entries(manifest.commands ?? {}).map(([name, command]) => ({
        name, description: String(command?.description ?? ''), shortcut: String(command?.suggested_key?.mac ?? command?.suggested_key?.default ?? '') }));
}

// The extension's options page: `options_ui.page`, else `options_page` (WebKit,
// `WebExtension::optionsPagePath`), as a path in the extension; undefined with none.
export function optionsPageOf(manifest) {
    const page = manifest?.options_ui?.page ?? manifest?.options_page;
    return typeof page === 'string' && page !== '' ? page.replace(/^\//, '') : undefined;
}

// Members of namespaces Safari gives that Safari itself lacks (WebKit's WebExtensionAPIRuntime
// has none of them; its WebExtensionAPITabs has executeScript, insertCSS and removeCSS for
// Manifest V2 alone, where the runtime gives them; its storage areas have setAccessLevel for
// storage.session alone, `WebExtensionAPIStorageArea::isPropertyAllowed`): absent, so that a feature check such as
// `browser.runtime.getBrowserInfo ?` sees them absent, where a member Safari has and the runtime
// lacks throws naming it.
const lacked = {
    runtime: new Set(['getBrowserInfo', 'getPackageDirectoryEntry', 'requestUpdateCheck', 'restart', 'restartAfterDelay']),
    tabs: new Set(['executeScript', 'insertCSS', 'removeCSS']),
    'storage.local': new Set(['setAccessLevel']),
    'storage.sync': new Set(['setAccessLevel']),
};
export const safariLacks = (namespace, member) => lacked[namespace]?.has(member) === true;

// MARK: - i18n

// i18n.getMessage and getUILanguage over the default locale's messages (`catalogueText`, the
// text of _locales/LOCALE/messages.json): placeholders ($NAME$) by their content, then $1 to $9
// by the substitutions, $$ as $; Safari's predefined @@ messages; "" for a name the locale
// does not have.
export function localizer(manifest, catalogueText, extensionID) {
    const uiLanguage = (typeof manifest.default_locale === 'string' ? manifest.default_locale : 'en').replace('_', '-');
    let catalogue = {};
    try { catalogue = JSON.parse(catalogueText); } catch {}
    const entries = new Map(Object.entries(catalogue ?? {}).map(([key, value]) => [key.toLowerCase(), value]));
    const predefined = { '@@extension_id': () => extensionID, '@@ui_locale': () => uiLanguage.replace('-', '_'), '@@bidi_dir': () => 'ltr',
        '@@bidi_reversed_dir': () => 'rtl', '@@bidi_start_edge': () => 'left', '@@bidi_end_edge': () => 'right' };
    const localized = (name, substitutions) => {
        if (hasOwn(predefined, name)) return predefined[name]();
        const entry = entries.get(name.toLowerCase());
        // (entries is a Map: a name like toString finds nothing inherited.)
        if (entry === null || typeof entry !== 'object' || typeof entry.message !== 'string') return '';
        const given = (substitutions === undefined ? [] : [substitutions].flat()).map(String);
        const placeholders = new Map(Object.entries(entry.placeholders ?? {}).map(([key, value]) => [key.toLowerCase(), String(value?.content ?? '')]));
        const numbered = (text) => text.replace(/\$(\$|[1-9])/g, (all, which) => which === '$' ? '$' : (given[Number(which) - 1] ?? ''));
        return numbered(entry.message.replace(/\$([A-Za-z0-9_@]+)\$/g, (all, key) => placeholders.has(key.toLowerCase()) ? placeholders.get(key.toLowerCase()) : all));
    };
    return { getMessage: (name, substitutions) => localized(String(name), substitutions), getUILanguage: () => uiLanguage };
}

// MARK: - Storage

// The constants a script reads on a storage area (the quotas storage-areas.mjs enforces).
function areaConstants(area) {
    if (area === 'sync') return { QUOTA_BYTES: 102400, QUOTA_BYTES_PER_ITEM: 8192, MAX_ITEMS: 512 };
    return { QUOTA_BYTES: area === 'local' ? 5242880 : 10485760 };
}

// A storage area's members, as a script calls them, over `operation(op, argument)`: the
// realm's own promise of the operation's value (`get`, `bytes`, `set`, `remove`, `clear`).
// The access levels storage.session takes (`setAccessLevel`): the extension's own contexts
// only (the default), or its content scripts too.
export const sessionAccessLevels = ['TRUSTED_CONTEXTS', 'TRUSTED_AND_UNTRUSTED_CONTEXTS'];

// `keep`: the profile's kept files (`keep(name, text)`), where storage.session's access level
// is kept for the session; given only where a script may set it (the extension's own contexts).
export function storageAreaMembers(name, operation, keep) {
    const access = name === 'session' && keep !== undefined ? {
        // Safari keeps it until it quits, with storage.session (WebKit, `storageSetAccessLevel`).
        setAccessLevel: (details) => {
            const level = details?.accessLevel;
            if (!sessionAccessLevels.includes(level)) {
                return Promise.reject(new Error('Invalid call to storage.session.setAccessLevel(). The \'accessLevel\' value is invalid, because it must be '
                                                + sessionAccessLevels.map((each) => '\'' + each + '\'').join(' or ') + '.'));
            }
            keep('session-access', stringify({ accessLevel: level }));
            return Promise.resolve(undefined);
        },
    } : {};
    return {
        ...access,
        ...areaConstants(name),
        get: (keys) => operation('get', keys ?? null),
        getBytesInUse: (keys) => operation('bytes', keys ?? null),
        set: (items) => {
            if (items === null || typeof items !== 'object') throw new TypeError('storage.' + name + '.set takes an object');
            return operation('set', items).then(() => undefined);
        },
        remove: (keys) => operation('remove', keys).then(() => undefined),
        clear: () => operation('clear').then(() => undefined),
    };
}

// A Web Storage object (localStorage, sessionStorage) over `ask(op, key, value)`, the host's
// answer as JSON text ('' or 'null' for nothing): values are strings, and a key is also a
// property.
export function webStorageArea(ask) {
    const read = (op, key, value) => { const text = ask(op, key, value); return text === '' ? null : parseJSON(text); };
    const methods = {
        getItem: (key) => read('get', String(key), ''),
        setItem: (key, value) => { read('set', String(key), String(value)); },
        removeItem: (key) => { read('remove', String(key), ''); },
        clear: () => { read('clear', '', ''); },
        key: (index) => read('keys', '', '')?.[Number(index)] ?? null,
    };
    return new Proxy(methods, {
        get(target, name) {
            if (typeof name === 'symbol') return undefined;
            if (name === 'length') return (read('keys', '', '') ?? []).length;
            if (hasOwn(target, name)) return target[name];
            return read('get', name, '') ?? undefined;
        },
        set(target, name, value) { if (typeof name === 'string') read('set', name, String(value)); return true; },
        deleteProperty(target, name) { if (typeof name === 'string') read('remove', name, ''); return true; },
        has(target, name) { return typeof name === 'string' && (hasOwn(target, name) || read('get', name, '') !== null); },
        ownKeys() { return read('keys', '', '') ?? []; },
        getOwnPropertyDescriptor(target, name) {
            const value = typeof name === 'string' ? read('get', name, '') : null;
            return value === null ? undefined : { value, writable: true, enumerable: true, configurable: true };
        },
    });
}

// MARK: - Tabs' addresses

// The address tabs.create and tabs.update open: `url` resolved against the extension's base, so
// that 'help.html' is the extension's own page (WebKit, `parseTabUpdateOptions`:
// `URL { baseURL, url }`). One that is not an address throws at the call, as WebKit's does
// ("'URL' is not a valid URL").
export function tabAddress(url, method) {
    const text = String(url);
    try {
        return new URL(text, 'safari-web-extension://extension/').href;
    } catch {
        throw new TypeError(`Invalid call to tabs.${method}(). The 'url' value is invalid, because '${text}' is not a valid URL.`);
    }
}

// MARK: - Match patterns

// A match pattern (`<all_urls>`, `*://*.example.com/*`) as a test of an address: content scripts'
// `matches` (pages.mjs) and `tabs.query`'s `url` (runtime-realm.mjs), in node's realm or a script's.
export function matchesPattern(pattern, url) {
    if (pattern === '<all_urls>') return /^(https?|file):/.test(url);
    const parts = /^(\*|https?|file):\/\/([^/]*)(\/.*)$/.exec(pattern);
    if (!parts) return false;
    let address;
    try { address = new URL(url); } catch { return false; }
    const [, scheme, host, pathPattern] = parts;
    if (scheme === '*' ? !['http:', 'https:'].includes(address.protocol) : address.protocol !== scheme + ':') return false;
    if (host !== '*') {
        if (host.startsWith('*.')) {
            const base = host.slice(2);
            if (address.hostname !== base && !address.hostname.endsWith('.' + base)) return false;
        } else if (address.hostname !== host) return false;
    }
    const wanted = new RegExp('^' + pathPattern.split('*').map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    return wanted.test(address.pathname + address.search);
}
