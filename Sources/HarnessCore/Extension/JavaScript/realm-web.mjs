// The web's common globals every script's realm is given (PROTOCOL.md, sections 14 and 15),
// made in that realm: URL and URLSearchParams, TextEncoder and TextDecoder, atob and btoa,
// structuredClone, crypto (from the run's seed), EventTarget, Event and CustomEvent,
// AbortController and AbortSignal. A URL is parsed by the host (`host.url`, node's WHATWG
// parser, strings in and out); everything else is plain JavaScript here. Nothing here reaches
// node.

import { define, jsonText } from './realm-common.mjs';

export function installWeb(host, random, platform) {
    // What these use, taken before any script can replace it.
    const parse = JSON.parse, fromCharCode = String.fromCharCode, fromCodePoint = String.fromCodePoint;
    const isArray = Array.isArray, isView = ArrayBuffer.isView, keys = Object.keys;
    const encodeURIComponent = globalThis.encodeURIComponent, decodeURIComponent = globalThis.decodeURIComponent;

    // MARK: URL

    // The host parses (`["parse", input, base?]`) and changes one part of a URL (`["set", href,
    // part, value]`), answering its parts as JSON, or '' for input that is not a URL.
    const parts = (request, input) => {
        const text = host.url(jsonText(request, 'a URL'));
        if (text === '') throw new TypeError('"' + String(input) + '" cannot be parsed as a URL.');
        return parse(text);
    };
    const owners = new WeakMap();
    class URL {
        #parts;
        #params = null;
        constructor(input, base) {
            this.#parts = parts(base === undefined ? ['parse', String(input)] : ['parse', String(input), String(base)], input);
        }
        static canParse(input, base) {
            try { parts(base === undefined ? ['parse', String(input)] : ['parse', String(input), String(base)], input); return true; } catch { return false; }
        }
        #set(part, value) {
            // A part that cannot take the value leaves the URL as it was, as browsers do.
            const text = host.url(jsonText(['set', this.#parts.href, part, String(value)], 'a URL'));
            if (text !== '') this.#parts = parse(text);
            if (this.#params !== null) owners.get(this.#params).reset(this.#parts.search);
        }
        get href() { return this.#parts.href; }
        set href(value) {
            this.#parts = parts(['parse', String(value)], value);
            if (this.#params !== null) owners.get(this.#params).reset(this.#parts.search);
        }
        get origin() { return this.#parts.origin; }
        get protocol() { return this.#parts.protocol; }
        set protocol(value) { this.#set('protocol', value); }
        get username() { return this.#parts.username; }
        set username(value) { this.#set('username', value); }
        get password() { return this.#parts.password; }
        set password(value) { this.#set('password', value); }
        get host() { return this.#parts.host; }
        set host(value) { this.#set('host', value); }
        get hostname() { return this.#parts.hostname; }
        set hostname(value) { this.#set('hostname', value); }
        get port() { return this.#parts.port; }
        set port(value) { this.#set('port', value); }
        get pathname() { return this.#parts.pathname; }
        set pathname(value) { this.#set('pathname', value); }
        get search() { return this.#parts.search; }
        set search(value) { this.#set('search', value); }
        get hash() { return this.#parts.hash; }
        set hash(value) { this.#set('hash', value); }
        get searchParams() {
            if (this.#params === null) {
                this.#params = new URLSearchParams(this.#parts.search);
                owners.get(this.#params).owner = (search) => this.#set('search', search);
            }
            return this.#params;
        }
        toString() { return this.#parts.href; }
        toJSON() { return this.#parts.href; }
    }
    define('URL', URL);

    // MARK: URLSearchParams (application/x-www-form-urlencoded)

    const encode = (text) => encodeURIComponent(text).replace(/%20/g, '+').replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    const decode = (text) => {
        const spaced = text.replace(/\+/g, ' ');
        try { return decodeURIComponent(spaced); } catch { return spaced; }
    };
    const pairsOf = (query) => {
        const list = [];
        for (const piece of String(query).replace(/^\?/, '').split('&')) {
            if (piece === '') continue;
            const at = piece.indexOf('=');
            list.push(at < 0 ? [decode(piece), ''] : [decode(piece.slice(0, at)), decode(piece.slice(at + 1))]);
        }
        return list;
    };
    class URLSearchParams {
        #list = [];
        constructor(init = '') {
            const state = { owner: null, reset: (search) => { this.#list = pairsOf(search); } };
            owners.set(this, state);
            if (typeof init === 'object' && init !== null) {
                if (typeof init[Symbol.iterator] === 'function') {
                    for (const pair of init) {
                        const entry = [...pair];
                        if (entry.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
                        this.#list.push([String(entry[0]), String(entry[1])]);
                    }
                } else {
                    for (const key of keys(init)) this.#list.push([key, String(init[key])]);
                }
            } else {
                this.#list = pairsOf(init);
            }
        }
        #changed() { owners.get(this).owner?.(this.toString()); }
        get size() { return this.#list.length; }
        append(name, value) { this.#list.push([String(name), String(value)]); this.#changed(); }
        delete(name, value) {
            this.#list = this.#list.filter(([key, held]) => key !== String(name) || (value !== undefined && held !== String(value)));
            this.#changed();
        }
        get(name) { return this.#list.find(([key]) => key === String(name))?.[1] ?? null; }
        getAll(name) { return this.#list.filter(([key]) => key === String(name)).map(([, value]) => value); }
        has(name, value) { return this.#list.some(([key, held]) => key === String(name) && (value === undefined || held === String(value))); }
        set(name, value) {
            const at = this.#list.findIndex(([key]) => key === String(name));
            if (at < 0) this.#list.push([String(name), String(value)]);
            else this.#list = [...this.#list.slice(0, at), [String(name), String(value)], ...this.#list.slice(at + 1).filter(([key]) => key !== String(name))];
            this.#changed();
        }
        sort() {
            this.#list = this.#list.map((pair, index) => [pair, index]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([pair]) => pair);
            this.#changed();
        }
        forEach(callback, thisArg) { for (const [key, value] of [...this.#list]) callback.call(thisArg, value, key, this); }
        *entries() { for (const pair of [...this.#list]) yield [...pair]; }
        *keys() { for (const [key] of [...this.#list]) yield key; }
        *values() { for (const [, value] of [...this.#list]) yield value; }
        [Symbol.iterator]() { return this.entries(); }
        toString() { return this.#list.map(([key, value]) => encode(key) + '=' + encode(value)).join('&'); }
    }
    define('URLSearchParams', URLSearchParams);

    // MARK: Text, as UTF-8

    class TextEncoder {
        get encoding() { return 'utf-8'; }
        encode(input = '') {
            const bytes = [];
            const text = String(input);
            for (let index = 0; index < text.length; index += 1) {
                let point = text.charCodeAt(index);
                if (point >= 0xD800 && point <= 0xDBFF && index + 1 < text.length) {
                    const low = text.charCodeAt(index + 1);
                    if (low >= 0xDC00 && low <= 0xDFFF) { point = 0x10000 + ((point - 0xD800) << 10) + (low - 0xDC00); index += 1; }
                }
                // A lone surrogate is written as U+FFFD, as the Encoding standard says.
                if (point >= 0xD800 && point <= 0xDFFF) point = 0xFFFD;
                if (point < 0x80) bytes.push(point);
                else if (point < 0x800) bytes.push(0xC0 | (point >> 6), 0x80 | (point & 63));
                else if (point < 0x10000) bytes.push(0xE0 | (point >> 12), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
                else bytes.push(0xF0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
            }
            return new Uint8Array(bytes);
        }
    }
    define('TextEncoder', TextEncoder);

    const bytesOf = (input) => {
        if (input === undefined) return new Uint8Array(0);
        if (input instanceof ArrayBuffer) return new Uint8Array(input);
        if (isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
        throw new TypeError('The provided value is not of type \'(ArrayBuffer or ArrayBufferView)\'');
    };
    class TextDecoder {
        #fatal;
        constructor(label = 'utf-8', options = {}) {
            if (!['utf-8', 'utf8', 'unicode-1-1-utf-8'].includes(String(label).trim().toLowerCase())) {
                throw new RangeError('The harness\'s TextDecoder reads utf-8 only, not "' + String(label) + '"');
            }
            this.#fatal = options?.fatal === true;
        }
        get encoding() { return 'utf-8'; }
        get fatal() { return this.#fatal; }
        decode(input) {
            const bytes = bytesOf(input);
            let text = '';
            const bad = () => {
                if (this.#fatal) throw new TypeError('The encoded data was not valid utf-8');
                return '\uFFFD';
            };
            for (let index = 0; index < bytes.length;) {
                const first = bytes[index];
                const length = first < 0x80 ? 1 : first >= 0xC2 && first < 0xE0 ? 2 : first >= 0xE0 && first < 0xF0 ? 3 : first >= 0xF0 && first < 0xF5 ? 4 : 0;
                if (length === 0) { text += bad(); index += 1; continue; }
                let point = length === 1 ? first : first & (0xFF >> (length + 1));
                let valid = index + length <= bytes.length;
                for (let next = 1; valid && next < length; next += 1) {
                    const byte = bytes[index + next];
                    if ((byte & 0xC0) !== 0x80) valid = false; else point = (point << 6) | (byte & 63);
                }
                if (!valid || (length === 3 && (point < 0x800 || (point >= 0xD800 && point <= 0xDFFF))) || (length === 4 && (point < 0x10000 || point > 0x10FFFF))) {
                    text += bad();
                    index += 1;
                    continue;
                }
                text += fromCodePoint(point);
                index += length;
            }
            // A byte-order mark at the start is not part of the text.
            return text.charCodeAt(0) === 0xFEFF ? text.slice(1) : text;
        }
    }
    define('TextDecoder', TextDecoder);

    // MARK: Base64

    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const invalid = (what) => {
        const error = new Error(what);
        error.name = 'InvalidCharacterError';
        return error;
    };
    define('btoa', (input) => {
        const text = String(input);
        let out = '';
        for (let index = 0; index < text.length; index += 3) {
            const codes = [0, 1, 2].map((offset) => text.charCodeAt(index + offset));
            if (codes.some((code) => code > 0xFF)) throw invalid('The string to be encoded contains characters outside of the Latin1 range.');
            const [a, b, c] = codes;
            out += alphabet[a >> 2] + alphabet[((a & 3) << 4) | ((b || 0) >> 4)]
                + (Number.isNaN(b) ? '=' : alphabet[((b & 15) << 2) | ((c || 0) >> 6)]) + (Number.isNaN(c) ? '=' : alphabet[c & 63]);
        }
        return out;
    });
    define('atob', (input) => {
        let text = String(input).replace(/[\t\n\f\r ]/g, '');
        if (text.length % 4 === 0) text = text.replace(/==?$/, '');
        if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) throw invalid('The string to be decoded is not correctly encoded.');
        let out = '', buffer = 0, bits = 0;
        for (const character of text) {
            buffer = (buffer << 6) | alphabet.indexOf(character);
            bits += 6;
            if (bits >= 8) { bits -= 8; out += fromCharCode((buffer >> bits) & 0xFF); }
        }
        return out;
    });

    // MARK: navigator, as Safari 18 on the run's platform (`platform()`: 'ios' or 'macos') says it

    const mac = () => platform() === 'macos';
    const navigator = {};
    const said = {
        userAgent: () => (mac()
            ? 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15'
            : 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1'),
        platform: () => (mac() ? 'MacIntel' : 'iPhone'),
        maxTouchPoints: () => (mac() ? 0 : 5),
        vendor: () => 'Apple Computer, Inc.',
        language: () => 'en-US',
        languages: () => ['en-US'],
        onLine: () => true,
        cookieEnabled: () => true,
        hardwareConcurrency: () => 8,
    };
    for (const name of keys(said)) Object.defineProperty(navigator, name, { get: said[name], enumerable: true });
    navigator.appVersion = undefined;
    Object.defineProperty(navigator, 'appVersion', { get: () => said.userAgent().slice('Mozilla/'.length), enumerable: true });
    define('navigator', navigator);

    // MARK: crypto, drawing from the run's seed (`random`, installRandom's)

    const getRandomValues = (array) => {
        if (!isView(array) || array instanceof Float32Array || array instanceof Float64Array) {
            throw new TypeError('crypto.getRandomValues takes an integer typed array');
        }
        const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
        for (let index = 0; index < bytes.length; index += 1) bytes[index] = Math.floor(random() * 256);
        return array;
    };
    define('crypto', {
        getRandomValues,
        randomUUID() {
            const bytes = getRandomValues(new Uint8Array(16));
            bytes[6] = bytes[6] & 0x0f | 0x40;
            bytes[8] = bytes[8] & 0x3f | 0x80;
            const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
            return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
        },
    });

    // MARK: Events, and aborting

    class Event {
        #type; #cancelable; #bubbles; #canceled = false;
        constructor(type, init = {}) {
            if (arguments.length === 0) throw new TypeError('Event needs a type');
            this.#type = String(type);
            this.#cancelable = init?.cancelable === true;
            this.#bubbles = init?.bubbles === true;
            this.target = null;
            this.currentTarget = null;
            this.timeStamp = 0;
        }
        get type() { return this.#type; }
        get bubbles() { return this.#bubbles; }
        get cancelable() { return this.#cancelable; }
        get defaultPrevented() { return this.#canceled; }
        preventDefault() { if (this.#cancelable) this.#canceled = true; }
        stopPropagation() {}
        stopImmediatePropagation() { this.immediateStopped = true; }
    }
    class CustomEvent extends Event {
        #detail;
        constructor(type, init = {}) {
            super(type, init);
            this.#detail = init?.detail ?? null;
        }
        get detail() { return this.#detail; }
    }
    class EventTarget {
        #listeners = new Map();
        addEventListener(type, callback, options) {
            if (callback === null || callback === undefined) return;
            const list = this.#listeners.get(String(type)) ?? [];
            if (list.some((entry) => entry.callback === callback)) return;
            list.push({ callback, once: typeof options === 'object' && options?.once === true });
            this.#listeners.set(String(type), list);
        }
        removeEventListener(type, callback) {
            const list = this.#listeners.get(String(type)) ?? [];
            this.#listeners.set(String(type), list.filter((entry) => entry.callback !== callback));
        }
        dispatchEvent(event) {
            if (!(event instanceof Event)) throw new TypeError('dispatchEvent takes an Event');
            event.target = this;
            event.currentTarget = this;
            const handler = this['on' + event.type];
            const entries = [...(this.#listeners.get(event.type) ?? [])];
            if (typeof handler === 'function') entries.push({ callback: handler, once: false });
            for (const entry of entries) {
                if (entry.once) this.removeEventListener(event.type, entry.callback);
                // A listener that throws is reported as the page's uncaught error would be, and the next runs.
                try {
                    if (typeof entry.callback === 'function') entry.callback.call(this, event);
                    else if (typeof entry.callback?.handleEvent === 'function') entry.callback.handleEvent(event);
                } catch (error) {
                    Promise.reject(error);
                }
                if (event.immediateStopped) break;
            }
            event.currentTarget = null;
            return !event.defaultPrevented;
        }
    }
    define('Event', Event);
    define('CustomEvent', CustomEvent);
    define('EventTarget', EventTarget);

    const abortError = (reason) => {
        if (reason !== undefined) return reason;
        const error = new Error('signal is aborted without reason');
        error.name = 'AbortError';
        return error;
    };
    const aborting = new WeakMap();
    class AbortSignal extends EventTarget {
        #aborted = false; #reason = undefined;
        constructor(key) {
            super();
            if (key !== aborting) throw new TypeError('Illegal constructor');
            aborting.set(this, (reason) => {
                if (this.#aborted) return;
                this.#aborted = true;
                this.#reason = abortError(reason);
                this.dispatchEvent(new Event('abort'));
            });
            this.onabort = null;
        }
        get aborted() { return this.#aborted; }
        get reason() { return this.#reason; }
        throwIfAborted() { if (this.#aborted) throw this.#reason; }
        static abort(reason) {
            const signal = new AbortSignal(aborting);
            aborting.get(signal)(reason);
            return signal;
        }
        // On the harness's clock, as every timer.
        static timeout(milliseconds) {
            const signal = new AbortSignal(aborting);
            globalThis.setTimeout(() => {
                const error = new Error('signal timed out');
                error.name = 'TimeoutError';
                aborting.get(signal)(error);
            }, milliseconds);
            return signal;
        }
    }
    class AbortController {
        #signal = new AbortSignal(aborting);
        get signal() { return this.#signal; }
        abort(reason) { aborting.get(this.#signal)(reason); }
    }
    define('AbortSignal', AbortSignal);
    define('AbortController', AbortController);

    // MARK: structuredClone, of the values a script passes around

    define('structuredClone', (value) => {
        const seen = new Map();
        const clone = (item) => {
            if (item === null || (typeof item !== 'object' && typeof item !== 'function' && typeof item !== 'symbol')) return item;
            if (typeof item === 'function' || typeof item === 'symbol') {
                const error = new Error(String(typeof item === 'symbol' ? 'Symbol' : item) + ' could not be cloned.');
                error.name = 'DataCloneError';
                throw error;
            }
            if (seen.has(item)) return seen.get(item);
            let copy;
            if (isArray(item)) { copy = []; seen.set(item, copy); for (const [index, element] of item.entries()) copy[index] = clone(element); return copy; }
            if (item instanceof Date) copy = new Date(item.getTime());
            else if (item instanceof RegExp) copy = new RegExp(item.source, item.flags);
            else if (item instanceof ArrayBuffer) copy = item.slice(0);
            else if (isView(item)) copy = new item.constructor(item);
            else if (item instanceof Map) { copy = new Map(); seen.set(item, copy); for (const [key, element] of item) copy.set(clone(key), clone(element)); return copy; }
            else if (item instanceof Set) { copy = new Set(); seen.set(item, copy); for (const element of item) copy.add(clone(element)); return copy; }
            else if (item instanceof Error) { copy = new Error(item.message); copy.name = item.name; }
            else {
                copy = {};
                seen.set(item, copy);
                for (const key of keys(item)) copy[key] = clone(item[key]);
                return copy;
            }
            seen.set(item, copy);
            return copy;
        };
        return clone(value);
    });
}
