// The Fetch standard's types every script's realm is given (PROTOCOL.md, sections 14 and 15),
// made in that realm: Headers, Request and Response, and Blob where the realm has none (a
// page's is its document's, jsdom's). A body is held whole, as bytes: nothing streams, since
// the harness loads no network (`fetch` answers only what the scenario says). Nothing here
// reaches node.

import { define } from './realm-common.mjs';

export function installFetchTypes() {
    // What these use, taken before any script can replace it.
    const isView = ArrayBuffer.isView, parse = JSON.parse, stringify = JSON.stringify;
    const encoder = new TextEncoder(), decoder = new TextDecoder();
    const concat = (chunks) => {
        const whole = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
        let at = 0;
        for (const chunk of chunks) { whole.set(chunk, at); at += chunk.length; }
        return whole;
    };

    // MARK: Blob (the background's: a page has its document's)

    const blobBytes = new WeakMap();
    class Blob {
        #type;
        constructor(parts = [], options = {}) {
            if (typeof parts !== 'object' || parts === null || typeof parts[Symbol.iterator] !== 'function') {
                throw new TypeError('Blob takes a sequence of parts');
            }
            const chunks = [];
            for (const part of parts) {
                if (blobBytes.has(part)) chunks.push(blobBytes.get(part));
                else if (part instanceof ArrayBuffer) chunks.push(new Uint8Array(part.slice(0)));
                else if (isView(part)) chunks.push(new Uint8Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.byteLength)));
                else chunks.push(encoder.encode(String(part)));
            }
            blobBytes.set(this, concat(chunks));
            const type = String(options?.type ?? '');
            this.#type = /^[\x20-\x7E]*$/.test(type) ? type.toLowerCase() : '';
        }
        get size() { return blobBytes.get(this).length; }
        get type() { return this.#type; }
        slice(start = 0, end = undefined, type = '') {
            const bytes = blobBytes.get(this);
            const piece = new Blob([], { type });
            blobBytes.set(piece, bytes.slice(start, end));
            return piece;
        }
        text() { return Promise.resolve(decoder.decode(blobBytes.get(this))); }
        arrayBuffer() { return Promise.resolve(blobBytes.get(this).slice().buffer); }
        bytes() { return Promise.resolve(blobBytes.get(this).slice()); }
        get [Symbol.toStringTag]() { return 'Blob'; }
    }
    if (typeof globalThis.Blob !== 'function') define('Blob', Blob);
    // A page's Blob is its document's (jsdom's), which a body reads through its arrayBuffer()
    // where it has one.
    const BlobType = globalThis.Blob;

    // MARK: Headers

    const headerName = (name) => {
        const text = String(name);
        if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(text)) throw new TypeError(`Invalid header name: "${text}"`);
        return text.toLowerCase();
    };
    const headerValue = (value) => String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    class Headers {
        #list = new Map();
        constructor(init = undefined) {
            if (init === undefined || init === null) return;
            if (init instanceof Headers) { for (const [name, value] of init) this.append(name, value); return; }
            if (typeof init[Symbol.iterator] === 'function') {
                for (const pair of init) {
                    const entry = [...pair];
                    if (entry.length !== 2) throw new TypeError('Each header pair must be an iterable [name, value] tuple');
                    this.append(entry[0], entry[1]);
                }
                return;
            }
            for (const name of Object.keys(init)) this.append(name, init[name]);
        }
        append(name, value) {
            const key = headerName(name), text = headerValue(value);
            this.#list.set(key, this.#list.has(key) ? this.#list.get(key) + ', ' + text : text);
        }
        set(name, value) { this.#list.set(headerName(name), headerValue(value)); }
        get(name) { return this.#list.get(headerName(name)) ?? null; }
        has(name) { return this.#list.has(headerName(name)); }
        delete(name) { this.#list.delete(headerName(name)); }
        forEach(callback, thisArg) { for (const [name, value] of this) callback.call(thisArg, value, name, this); }
        *entries() { for (const name of [...this.#list.keys()].sort()) yield [name, this.#list.get(name)]; }
        *keys() { for (const [name] of this.entries()) yield name; }
        *values() { for (const [, value] of this.entries()) yield value; }
        [Symbol.iterator]() { return this.entries(); }
        get [Symbol.toStringTag]() { return 'Headers'; }
    }
    define('Headers', Headers);

    // MARK: Bodies, held whole

    // A body's content type, and what it holds: its bytes, taken as it is made, or a Blob,
    // read when the body is.
    const contentType = (body) => {
        if (body === undefined || body === null || body instanceof ArrayBuffer || isView(body)) return null;
        if (body instanceof BlobType) return body.type === '' ? null : body.type;
        if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
        return 'text/plain;charset=UTF-8';
    };
    const sourceOf = (body) => {
        if (body === undefined || body === null) return { bytes: null };
        if (body instanceof ArrayBuffer) return { bytes: new Uint8Array(body.slice(0)) };
        if (isView(body)) return { bytes: new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)) };
        if (body instanceof BlobType) return { blob: body };
        return { bytes: encoder.encode(String(body)) };
    };
    const bytesOf = async (source) => {
        if (source.blob === undefined) return source.bytes;
        if (typeof source.blob.arrayBuffer !== 'function') {
            throw new TypeError('a page\'s Blob is its document\'s (jsdom\'s), which has no arrayBuffer(): the harness\'s runtime cannot read it as a body');
        }
        return new Uint8Array(await source.blob.arrayBuffer());
    };
    // What Request and Response share: the body read once, as text, JSON, bytes or a Blob.
    const bodies = new WeakMap();
    const consume = async (owner, what) => {
        const held = bodies.get(owner);
        if (held.used) throw new TypeError(`${what}: the body has already been read`);
        held.used = true;
        return (await bytesOf(held.source)) ?? new Uint8Array(0);
    };
    const bodyMembers = (Owner) => {
        Object.defineProperties(Owner.prototype, {
            bodyUsed: { get() { return bodies.get(this).used; }, configurable: true },
            body: { get() { return null; }, configurable: true },
            text: { value() { return consume(this, 'text()').then((bytes) => decoder.decode(bytes)); }, writable: true, configurable: true },
            json: { value() { return consume(this, 'json()').then((bytes) => parse(decoder.decode(bytes))); }, writable: true, configurable: true },
            arrayBuffer: { value() { return consume(this, 'arrayBuffer()').then((bytes) => bytes.slice().buffer); }, writable: true, configurable: true },
            bytes: { value() { return consume(this, 'bytes()').then((bytes) => bytes.slice()); }, writable: true, configurable: true },
            blob: {
                value() { const type = this.headers.get('content-type') ?? ''; return consume(this, 'blob()').then((bytes) => new BlobType([bytes], { type })); },
                writable: true, configurable: true,
            },
        });
    };
    const withBody = (owner, body, headers) => {
        bodies.set(owner, { source: sourceOf(body), used: false });
        const type = contentType(body);
        if (type !== null && !headers.has('content-type')) headers.set('content-type', type);
    };
    const cloneBody = (from, to) => {
        const held = bodies.get(from);
        if (held.used) throw new TypeError('clone(): the body has already been read');
        bodies.set(to, { source: held.source, used: false });
    };

    // MARK: Request

    const methods = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'];
    class Request {
        #url; #method; #headers; #signal; #init;
        constructor(input, init = {}) {
            const from = input instanceof Request ? input : null;
            this.#url = from !== null ? from.url : new URL(String(input), globalThis.location?.href).href;
            const method = String(init?.method ?? from?.method ?? 'GET');
            this.#method = methods.includes(method.toUpperCase()) ? method.toUpperCase() : method;
            this.#headers = new Headers(init?.headers ?? from?.headers);
            this.#signal = init?.signal ?? from?.signal ?? new AbortController().signal;
            this.#init = { cache: init?.cache ?? 'default', credentials: init?.credentials ?? 'same-origin', mode: init?.mode ?? 'cors',
                           redirect: init?.redirect ?? 'follow', referrer: init?.referrer ?? 'about:client' };
            const body = init?.body;
            if (body !== undefined && body !== null && (this.#method === 'GET' || this.#method === 'HEAD')) {
                throw new TypeError('Request with GET/HEAD method cannot have body.');
            }
            if (from !== null && (body === undefined || body === null)) cloneBody(from, this);
            else withBody(this, body, this.#headers);
        }
        get url() { return this.#url; }
        get method() { return this.#method; }
        get headers() { return this.#headers; }
        get signal() { return this.#signal; }
        get cache() { return this.#init.cache; }
        get credentials() { return this.#init.credentials; }
        get mode() { return this.#init.mode; }
        get redirect() { return this.#init.redirect; }
        get referrer() { return this.#init.referrer; }
        clone() { return new Request(this); }
        get [Symbol.toStringTag]() { return 'Request'; }
    }
    bodyMembers(Request);
    define('Request', Request);

    // MARK: Response

    // A response the runtime made (fetch's) gives its address and type; one a script makes has none.
    const made = new WeakMap();
    class Response {
        #status; #statusText; #headers;
        constructor(body = null, init = {}) {
            const status = init?.status === undefined ? 200 : Number(init.status);
            if (!Number.isInteger(status) || status < 200 || status > 599) {
                throw new RangeError(`Failed to construct 'Response': The status provided (${init?.status}) is outside the range [200, 599].`);
            }
            if (body !== null && body !== undefined && [204, 205, 304].includes(status)) {
                throw new TypeError(`Failed to construct 'Response': Response with null body status cannot have body`);
            }
            this.#status = status;
            this.#statusText = String(init?.statusText ?? '');
            this.#headers = new Headers(init?.headers);
            withBody(this, body, this.#headers);
        }
        static json(data, init = {}) {
            const text = stringify(data);
            if (typeof text !== 'string') throw new TypeError('Response.json: the data is not JSON');
            const response = new Response(text, init);
            response.headers.set('content-type', 'application/json');
            return response;
        }
        static error() {
            const response = new Response(null, { status: 200 });
            made.set(response, { type: 'error', url: '', status: 0 });
            return response;
        }
        get status() { return made.get(this)?.status ?? this.#status; }
        get ok() { return this.status >= 200 && this.status < 300; }
        get statusText() { return this.#statusText; }
        get headers() { return this.#headers; }
        get url() { return made.get(this)?.url ?? ''; }
        get type() { return made.get(this)?.type ?? 'default'; }
        get redirected() { return false; }
        clone() {
            const copy = new Response(null, { status: this.#status, statusText: this.#statusText, headers: this.#headers });
            cloneBody(this, copy);
            if (made.has(this)) made.set(copy, made.get(this));
            return copy;
        }
        get [Symbol.toStringTag]() { return 'Response'; }
    }
    bodyMembers(Response);
    define('Response', Response);

    // The runtime's fetch answers with these: a response at `url`, of the basic type.
    return {
        response(url, status, body) {
            // A status the constructor refuses (a scenario's 101 or 600) is kept as given.
            const response = new Response(body, { status: status >= 200 && status <= 599 && ![204, 205, 304].includes(status) ? status : 200 });
            made.set(response, { type: 'basic', url: String(url), status });
            return response;
        },
    };
}
