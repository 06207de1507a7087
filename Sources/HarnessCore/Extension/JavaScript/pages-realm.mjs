// What a page's scripts see, made in the page's own realm (PROTOCOL.md, section 15): a small
// DOM, the window's globals, browser.* and chrome.* for a content script or the popup, and the
// turn that runs each input. pages.mjs compiles it, with realm-common.mjs, in each page's realm
// and calls install there with the host functions it gives (each takes and gives strings and
// numbers only) and the page's setup as JSON text; install returns the realm's side of the turn
// (post, result, refusal). Nothing here reaches node.

import {
    define, eventOf, hostOf, installCollector, installDate, installRandom, installStacks, installTimers, jsonText, localizer, portEnd, safariLacks, safariNamespaces, storageAreaMembers,
} from './realm-common.mjs';
import { installWeb } from './realm-web.mjs';

export function install(hostFunctions, setupText) {
    const stringify = JSON.stringify, parse = JSON.parse, keys = Object.keys, apply = Reflect.apply, hasOwn = Object.hasOwn;
    const setup = parse(setupText);
    const host = hostOf(hostFunctions);
    installStacks(host, 'pages:');
    const report = (error) => host.log('error', 'Uncaught ' + (error instanceof Error ? error.name + ': ' + error.message : String(error)),
                                       error instanceof Error ? String(error.stack) : '');
    const call = (listener, self, args) => { try { return apply(listener, self, args); } catch (error) { report(error); return undefined; } };
    const missing = (name) => () => { throw new Error(name + ' is not provided in pages by the harness\'s runtime'); };

    // Time and randomness from the frames.
    installDate(host);
    installCollector();
    installWeb(host, installRandom(host), () => host.platform());
    const timers = installTimers(host);
    define('queueMicrotask', (callback) => { Promise.resolve().then(callback); });
    define('fetch', () => Promise.reject(new TypeError('fetch is not provided by the harness\'s runtime: a scenario cannot stub the network')));

    // Events on an element or the document.
    const eventTarget = (object) => {
        const listeners = new Map();
        object.addEventListener = (type, callback) => {
            if (typeof callback !== 'function') return;
            const list = listeners.get(type) ?? [];
            if (!list.includes(callback)) list.push(callback);
            listeners.set(type, list);
        };
        object.removeEventListener = (type, callback) => {
            const list = listeners.get(type) ?? [];
            const at = list.indexOf(callback);
            if (at >= 0) list.splice(at, 1);
        };
        object.dispatchEvent = (event) => {
            const handler = object['on' + event.type];
            for (const listener of [...(listeners.get(event.type) ?? []), ...(typeof handler === 'function' ? [handler] : [])]) {
                call(listener, object, [event]);
            }
            return true;
        };
        return object;
    };
    const event = (type, target) => ({ type, target, currentTarget: target, preventDefault() {}, stopPropagation() {} });

    // MutationObserver: attribute changes made through setAttribute and removeAttribute (the
    // scripts' own, and the page's own dark theme appearing or going), delivered as a microtask.
    // Changes made by assigning to style, classList or dataset are not reported.
    const observers = [];
    const mutated = (target, attributeName, oldValue) => {
        for (const observer of observers) {
            for (const { node, options } of observer.targets) {
                if (!options.attributes && options.attributeFilter === undefined) continue;
                if (node !== target && !(options.subtree && node.contains(target))) continue;
                if (options.attributeFilter !== undefined && !options.attributeFilter.includes(attributeName)) continue;
                observer.records.push({ type: 'attributes', target, attributeName, oldValue: options.attributeOldValue ? oldValue : null });
                if (!observer.queued) {
                    observer.queued = true;
                    Promise.resolve().then(() => {
                        observer.queued = false;
                        const records = observer.records.splice(0);
                        if (records.length > 0) call(observer.callback, observer.self, [records, observer.self]);
                    });
                }
                break;
            }
        }
    };
    class MutationObserver {
        constructor(callback) {
            if (typeof callback !== 'function') throw new TypeError('MutationObserver takes a function');
            observers.push({ callback, self: this, targets: [], records: [], queued: false });
        }
        #entry() { return observers.find((entry) => entry.self === this); }
        observe(node, options = {}) {
            const entry = this.#entry();
            if (entry === undefined) return;
            entry.targets = entry.targets.filter((target) => target.node !== node);
            entry.targets.push({ node, options: { ...options, attributeFilter: options.attributeFilter === undefined ? undefined : [...options.attributeFilter].map(String) } });
        }
        disconnect() { const entry = this.#entry(); if (entry !== undefined) { entry.targets = []; entry.records = []; } }
        takeRecords() { const entry = this.#entry(); return entry === undefined ? [] : entry.records.splice(0); }
    }
    define('MutationObserver', MutationObserver);

    // A small DOM: elements with attributes, style, classes, data, text and children; a
    // select's options and value, an input's value and checked state, an element's hidden.
    const camel = (name) => name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
    const escapeHTML = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const kebab = (name) => name.replace(/[A-Z]/g, (letter) => '-' + letter.toLowerCase());
    const element = (tagName, attributes = {}, text = '') => {
        const attributeMap = new Map(Object.entries(attributes));
        const style = {};
        Object.defineProperties(style, {
            setProperty: { value: (name, value) => { style[camel(String(name))] = String(value ?? ''); } },
            removeProperty: { value: (name) => { const old = style[camel(String(name))] ?? ''; delete style[camel(String(name))]; return old; } },
            getPropertyValue: { value: (name) => style[camel(String(name))] ?? '' },
            cssText: {
                get: () => keys(style).filter((name) => style[name] !== '').map((name) => kebab(name) + ': ' + style[name] + ';').join(' '),
                set: (text) => {
                    for (const name of keys(style)) delete style[name];
                    for (const part of String(text).split(';')) {
                        const at = part.indexOf(':');
                        if (at > 0) style[camel(part.slice(0, at).trim())] = part.slice(at + 1).trim();
                    }
                },
            },
        });
        const classes = [];
        const classList = {
            add: (...names) => { for (const name of names) if (!classes.includes(String(name))) classes.push(String(name)); },
            remove: (...names) => { for (const name of names) { const at = classes.indexOf(String(name)); if (at >= 0) classes.splice(at, 1); } },
            toggle: (name, force) => {
                const has = classes.includes(String(name));
                const want = force === undefined ? !has : Boolean(force);
                if (want && !has) classes.push(String(name));
                if (!want && has) classes.splice(classes.indexOf(String(name)), 1);
                return want;
            },
            contains: (name) => classes.includes(String(name)),
            get length() { return classes.length; },
            toString: () => classes.join(' '),
        };
        for (const name of String(attributes.class ?? '').split(/\s+/).filter(Boolean)) classes.push(name);
        const dataset = {};
        for (const [name, value] of attributeMap) if (name.startsWith('data-')) dataset[camel(name.slice(5))] = value;
        const children = [];
        // The element's own text (its text nodes', joined); its children's follows it.
        let ownText = String(text);
        const node = eventTarget({
            tagName: String(tagName).toUpperCase(),
            style, classList, dataset, children,
            get textContent() { return ownText + children.map((child) => child.textContent).join(''); },
            set textContent(value) { children.splice(0).forEach((child) => { child.parentNode = null; }); ownText = value === null || value === undefined ? '' : String(value); },
            get id() { return attributeMap.get('id') ?? ''; },
            set id(value) { attributeMap.set('id', String(value)); },
            get hidden() { return attributeMap.has('hidden'); },
            set hidden(value) { if (value) node.setAttribute('hidden', ''); else node.removeAttribute('hidden'); },
            get firstElementChild() { return children[0] ?? null; },
            get className() { return classes.join(' '); },
            set className(value) { classes.splice(0, classes.length, ...String(value).split(/\s+/).filter(Boolean)); },
            get innerText() { return node.textContent; },
            set innerText(value) { node.textContent = String(value); },
            getAttribute: (name) => {
                name = String(name).toLowerCase();
                if (name === 'class') return classes.length ? classes.join(' ') : null;
                if (name === 'style') return style.cssText || null;
                if (name.startsWith('data-')) return dataset[camel(name.slice(5))] ?? null;
                return attributeMap.get(name) ?? null;
            },
            setAttribute: (name, value) => {
                name = String(name).toLowerCase();
                value = String(value);
                const old = node.getAttribute(name);
                if (name === 'class') node.className = value;
                else if (name === 'style') style.cssText = value;
                else if (name.startsWith('data-')) dataset[camel(name.slice(5))] = value;
                else attributeMap.set(name, value);
                mutated(node, name, old);
            },
            removeAttribute: (name) => {
                name = String(name).toLowerCase();
                const old = node.getAttribute(name);
                if (name === 'class') classes.splice(0, classes.length);
                else if (name === 'style') style.cssText = '';
                else if (name.startsWith('data-')) delete dataset[camel(name.slice(5))];
                else attributeMap.delete(name);
                if (old !== null) mutated(node, name, old);
            },
            hasAttribute: (name) => node.getAttribute(name) !== null,
            getAttributeNames: () => [
                ...[...attributeMap.keys()].filter((name) => name !== 'class' && name !== 'style' && !name.startsWith('data-')),
                ...(classes.length > 0 ? ['class'] : []), ...(style.cssText !== '' ? ['style'] : []),
                ...keys(dataset).map((name) => 'data-' + kebab(name)),
            ],
            get innerHTML() { return escapeHTML(ownText) + children.map((child) => child.outerHTML).join(''); },
            get outerHTML() {
                const tag = node.tagName.toLowerCase();
                const attributeText = node.getAttributeNames().map((name) => ' ' + name + '="' + escapeHTML(node.getAttribute(name)).replace(/"/g, '&quot;') + '"').join('');
                return '<' + tag + attributeText + '>' + node.innerHTML + '</' + tag + '>';
            },
            appendChild: (child) => {
                child.parentNode?.removeChild(child);
                children.push(child);
                child.parentNode = node;
                // An option inserted selected is the select's choice; a select with none shows its first.
                if (node.tagName === 'SELECT' && chosen.has(child)) choose(node, child);
                if (node.tagName === 'SELECT') selectedness(node);
                return child;
            },
            append: (...nodes) => {
                for (const child of nodes) if (typeof child === 'object' && child !== null) node.appendChild(child); else ownText += String(child);
            },
            replaceChildren: (...nodes) => { node.textContent = ''; node.append(...nodes); },
            removeChild: (child) => { const at = children.indexOf(child); if (at >= 0) { children.splice(at, 1); child.parentNode = null; } return child; },
            remove: () => { node.parentNode?.removeChild(node); node.parentNode = null; },
            click: () => { node.dispatchEvent(event('click', node)); },
            contains: (other) => { for (let at = other; at; at = at.parentNode) if (at === node) return true; return false; },
            querySelector: (selector) => select(node, selector)[0] ?? null,
            querySelectorAll: (selector) => select(node, selector),
            parentNode: null,
        });
        formControl(node, attributeMap);
        return node;
    };
    // A select's options, chosen one at a time: setting a select's value or selectedIndex, or an
    // option's selected, unselects the others; a select whose options change and none is
    // selected shows its first (HTML's selectedness algorithm, for a select of one line).
    const chosen = new Set();
    const optionsOf = (select) => select.children.filter((child) => child.tagName === 'OPTION');
    const choose = (select, option) => {
        for (const other of optionsOf(select)) chosen.delete(other);
        if (option !== undefined) chosen.add(option);
    };
    const selectedness = (select) => {
        const options = optionsOf(select);
        if (options.length > 0 && !options.some((option) => chosen.has(option))) chosen.add(options[0]);
    };
    const collapsed = (text) => String(text).replace(/\s+/g, ' ').trim();
    const formControl = (node, attributeMap) => {
        const property = (name, get, set) => Object.defineProperty(node, name, { get, set, enumerable: true, configurable: true });
        switch (node.tagName) {
        case 'OPTION':
            if (attributeMap.has('selected')) chosen.add(node);
            property('value', () => attributeMap.get('value') ?? collapsed(node.textContent), (value) => node.setAttribute('value', value));
            property('text', () => collapsed(node.textContent), (value) => { node.textContent = value; });
            property('selected', () => chosen.has(node), (value) => {
                if (!value) { chosen.delete(node); return; }
                if (node.parentNode?.tagName === 'SELECT') choose(node.parentNode, node); else chosen.add(node);
            });
            break;
        case 'SELECT':
            property('options', () => optionsOf(node));
            property('selectedIndex', () => optionsOf(node).findIndex((option) => chosen.has(option)), (index) => choose(node, optionsOf(node)[Number(index)]));
            property('value', () => optionsOf(node).find((option) => chosen.has(option))?.value ?? '',
                     (value) => choose(node, optionsOf(node).find((option) => option.value === String(value))));
            break;
        case 'INPUT': case 'TEXTAREA': {
            let value = attributeMap.get('value') ?? '', checked = attributeMap.has('checked');
            property('value', () => value, (next) => { value = String(next); });
            property('checked', () => checked, (next) => { checked = Boolean(next); });
            // A click on a checkbox turns it over, on a radio button checks it; both say so.
            const click = node.click;
            node.click = () => {
                const type = String(attributeMap.get('type') ?? '').toLowerCase();
                if (type === 'checkbox') checked = !checked; else if (type === 'radio') checked = true;
                click();
                if (type === 'checkbox' || type === 'radio') { node.dispatchEvent(event('input', node)); node.dispatchEvent(event('change', node)); }
            };
            break;
        }
        }
    };
    // new Option(text, value, defaultSelected, selected)
    define('Option', function Option(text = '', value, defaultSelected = false, selected = false) {
        const option = element('option', value === undefined ? {} : { value: String(value) }, String(text));
        if (defaultSelected) option.setAttribute('selected', '');
        option.selected = Boolean(selected);
        return option;
    });
    // The element with this id, in document order, or null.
    const byId = (id) => {
        const walk = (node) => {
            for (const child of node.children) {
                if (child.id === id) return child;
                const found = walk(child);
                if (found !== null) return found;
            }
            return null;
        };
        return walk(root);
    };
    // Selectors: one or several separated by commas, each of compound selectors (a tag name,
    // #id, .class and [attribute] or [attribute="value"]) that descend from one another, as
    // `#story .title`; anything else is an error naming it.
    const beyond = (text) => new SyntaxError('the selector "' + text + '" is beyond the harness\'s small DOM (tag, #id, .class, [attribute="value"], descendants)');
    const compound = (text, whole) => {
        const match = /^([a-zA-Z][a-zA-Z0-9-]*|\*)?((?:#[\w-]+|\.[\w-]+|\[[\w-]+(?:="[^"]*"|='[^']*'|=[\w-]+)?\])*)$/.exec(text);
        if (match === null || text === '') throw beyond(whole);
        const tag = match[1] && match[1] !== '*' ? match[1].toUpperCase() : undefined;
        const parts = [...match[2].matchAll(/#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:=(?:"([^"]*)"|'([^']*)'|([\w-]+)))?\]/g)];
        return (node) => (tag === undefined || node.tagName === tag) && parts.every(([, id, className, attribute, double, single, bare]) => {
            if (id !== undefined) return node.id === id;
            if (className !== undefined) return node.classList.contains(className);
            const value = node.getAttribute(attribute);
            const wanted = double ?? single ?? bare;
            return value !== null && (wanted === undefined || value === wanted);
        });
    };
    const select = (from, selector) => {
        const found = [];
        const tests = String(selector).split(',').map((part) => {
            const text = part.trim();
            // Compound selectors part at spaces outside brackets and quotes.
            const steps = (text.match(/(?:[^\s"'[\]]+|\[[^\]]*\]|"[^"]*"|'[^']*')+/g) ?? []).map((step) => compound(step, text));
            if (steps.length === 0) throw beyond(text);
            // The last step matches the element; each one before it, an element around it, nearest first.
            return (node) => {
                if (!steps[steps.length - 1](node)) return false;
                let at = node.parentNode;
                for (let index = steps.length - 2; index >= 0; index -= 1) {
                    while (at && !(at.tagName !== undefined && steps[index](at))) at = at.parentNode;
                    if (!at) return false;
                    at = at.parentNode;
                }
                return true;
            };
        });
        const walk = (node) => {
            for (const child of node.children ?? []) {
                if (tests.some((test) => test(child))) found.push(child);
                walk(child);
            }
        };
        walk(from);
        return found;
    };
    const root = element('html');
    const head = element('head'), body = element('body');
    root.appendChild(head);
    root.appendChild(body);
    // A natively dark page says so as such pages do: <meta name="color-scheme" content="dark">,
    // and a dark background on its body (getComputedStyle).
    const colorScheme = element('meta', { name: 'color-scheme', content: setup.nativeDark ? 'dark' : 'light dark' });
    head.appendChild(colorScheme);
    let nativeDark = setup.nativeDark === true;
    define('getComputedStyle', (node) => {
        const computed = { ...(node?.style ?? {}) };
        if (node === body && computed.backgroundColor === undefined) computed.backgroundColor = nativeDark ? 'rgb(18, 18, 18)' : 'rgb(255, 255, 255)';
        if (node === body && computed.color === undefined) computed.color = nativeDark ? 'rgb(230, 230, 230)' : 'rgb(0, 0, 0)';
        computed.getPropertyValue = (name) => computed[camel(String(name))] ?? '';
        return computed;
    });
    // The page's own elements (the popup's, from its HTML), as a tree.
    const build = (found) => {
        const node = element(found.tag, found.attributes, found.text);
        for (const child of found.children) node.appendChild(build(child));
        if (node.tagName === 'SELECT') selectedness(node);
        return node;
    };
    for (const found of setup.head) head.appendChild(build(found));
    for (const found of setup.body) body.appendChild(build(found));
    let visibility = setup.visible ? 'visible' : 'hidden';
    // requestAnimationFrame: the callbacks asked for run together at the next frame, 16 ms of
    // virtual time on (the harness's timers), while the page is visible; a hidden page runs
    // none until it is shown. Each gets the time since the page loaded.
    const setFrameTimer = globalThis.setTimeout;
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
    define('requestAnimationFrame', (callback) => {
        if (typeof callback !== 'function') throw new TypeError('requestAnimationFrame takes a function');
        const id = nextFrame++;
        frameCallbacks.set(id, callback);
        armFrame();
        return id;
    });
    define('cancelAnimationFrame', (id) => { frameCallbacks.delete(id); });
    let readyState = 'loading';
    const document = eventTarget({
        documentElement: root, head, body,
        get visibilityState() { return visibility; },
        get hidden() { return visibility !== 'visible'; },
        get readyState() { return readyState; },
        URL: setup.url,
        createElement: (tag) => element(tag),
        createTextNode: (text) => ({ textContent: String(text) }),
        getElementById: (id) => byId(String(id)),
        querySelector: (selector) => select(root, selector)[0] ?? null,
        querySelectorAll: (selector) => select(root, selector),
    });
    define('document', document);
    define('window', globalThis);
    define('self', globalThis);
    eventTarget(globalThis);
    // The page's address, read as a browser's location is; it never changes (a scenario moves a
    // tab with `tab navigate`), so what would navigate throws.
    const address = new globalThis.URL(setup.url);
    const location = {};
    for (const part of ['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']) {
        Object.defineProperty(location, part, { get: () => address[part], enumerable: true });
    }
    for (const name of ['assign', 'replace', 'reload']) location[name] = missing('location.' + name + ' (a scenario moves a tab with tab navigate)');
    location.toString = () => address.href;
    define('location', location);

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

    // localStorage (per origin, for the whole run: it outlives a reload) and sessionStorage (per
    // tab, until the tab closes), kept by the page host; values are strings, and a key is also
    // a property.
    const webStorage = (kind) => {
        const ask = (op, key, value) => { const text = host.webStorage(kind, op, key, value); return text === '' ? null : parse(text); };
        const methods = {
            getItem: (key) => ask('get', String(key), ''),
            setItem: (key, value) => { ask('set', String(key), String(value)); },
            removeItem: (key) => { ask('remove', String(key), ''); },
            clear: () => { ask('clear', '', ''); },
            key: (index) => ask('keys', '', '')?.[Number(index)] ?? null,
        };
        return new Proxy(methods, {
            get(target, name) {
                if (typeof name === 'symbol') return undefined;
                if (name === 'length') return (ask('keys', '', '') ?? []).length;
                if (hasOwn(target, name)) return target[name];
                return ask('get', name, '') ?? undefined;
            },
            set(target, name, value) { if (typeof name === 'string') ask('set', name, String(value)); return true; },
            deleteProperty(target, name) { if (typeof name === 'string') ask('remove', name, ''); return true; },
            has(target, name) { return typeof name === 'string' && (hasOwn(target, name) || ask('get', name, '') !== null); },
            ownKeys() { return ask('keys', '', '') ?? []; },
            getOwnPropertyDescriptor(target, name) {
                const value = typeof name === 'string' ? ask('get', name, '') : null;
                return value === null ? undefined : { value, writable: true, enumerable: true, configurable: true };
            },
        });
    };
    define('localStorage', webStorage('local'));
    define('sessionStorage', webStorage('session'));

    // prefers-color-scheme follows the system's appearance.
    let appearance = setup.appearance;
    const queries = [];
    define('matchMedia', (query) => {
        const text = String(query);
        const scheme = /prefers-color-scheme:\s*(dark|light)/.exec(text)?.[1];
        const list = eventTarget({ media: text, onchange: null, get matches() { return scheme !== undefined && scheme === appearance; } });
        list.addListener = (callback) => list.addEventListener('change', callback);
        list.removeListener = (callback) => list.removeEventListener('change', callback);
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
            const id = host.sendMessage(jsonText(message, 'a message'));
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
    runtime.connect = (...args) => {
        const info = args.find((argument) => argument !== null && typeof argument === 'object') ?? {};
        const name = info.name === undefined ? '' : String(info.name);
        const number = host.connect(name);
        const end = portEnd({ name }, (text) => host.portPost(number, text), () => { ports.delete(number); host.portDisconnect(number); }, portOptions);
        ports.set(number, end);
        return end.port;
    };
    const manifest = parse(setup.manifest);
    const present = safariNamespaces(manifest, setup.popup ? 'page' : 'content');
    const i18n = localizer(manifest, host.messages(), setup.extensionID);
    // browser.tabs in the popup: tabs.query, over the tabs Safari had as it opened, with the
    // loads and closes the page host saw since; one window's tabs are numbered in name order.
    // Content scripts have no tabs API.
    const namespaces = { runtime, i18n };
    // storage, over the profile's extension storage as the background's: local and sync in
    // every page, session in the extension's own pages only (Safari keeps it from content
    // scripts unless the background sets its access level, which the harness does not take);
    // onChanged hears every change made in the profile, by a page or the background.
    const changeListeners = [];
    if (present.has('storage')) {
        const area = (name) => {
            const operation = (op, argument) => {
                const text = jsonText(argument === undefined ? null : argument, 'what storage.' + name + ' is given');
                return new Promise((resolve, reject) => {
                    const outcome = parse(host.storage(name, op, text));
                    if (typeof outcome.error === 'string') reject(new Error(outcome.error)); else resolve(outcome.value);
                });
            };
            return storageAreaMembers(name, operation);
        };
        namespaces.storage = { local: area('local'), sync: area('sync'), onChanged: eventOf(changeListeners) };
        if (setup.popup) namespaces.storage.session = area('session');
    }
    if (setup.popup) {
        const known = ['active', 'url', 'currentWindow', 'lastFocusedWindow', 'windowId'];
        const query = (info = {}) => {
            const unknown = keys(info ?? {}).filter((key) => !known.includes(key));
            if (unknown.length > 0) return Promise.reject(new Error('tabs.query does not take ' + unknown.join(', ') + ' in the harness\'s runtime'));
            // The popup's window is the current one, and the one last focused.
            const { window, tabs: all } = parse(host.tabs());
            const tabs = all.map((tab) => ({ ...tab, index: all.filter((other) => other.windowId === tab.windowId).indexOf(tab) }));
            return Promise.resolve(tabs.filter((tab) => (info.active === undefined || tab.active === Boolean(info.active))
                && (info.url === undefined || tab.url === info.url)
                && (info.windowId === undefined || tab.windowId === info.windowId)
                && (info.currentWindow === undefined && info.lastFocusedWindow === undefined
                    || (tab.windowId === window) === Boolean(info.currentWindow ?? info.lastFocusedWindow))));
        };
        namespaces.tabs = {
            query(...args) {
                const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
                const promise = query(args[0]);
                if (callback === undefined) return promise;
                promise.then((tabs) => call(callback, undefined, [tabs]), (error) => { lastError = error; call(callback, undefined, [undefined]); lastError = undefined; });
                return undefined;
            },
        };
    }
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
        for (let at = node; at; at = at.parentNode) if (at.hidden || at.style?.display === 'none') return true;
        return false;
    };

    // A turn: the other realm names its work, it runs here under the watchdog.
    let work = null, result = '';
    Object.defineProperty(globalThis, '__pageTurn', {
        value() {
            const next = work;
            work = null;
            result = '';
            if (next === null) return;
            const input = next.text === '' ? undefined : parse(next.text);
            switch (next.kind) {
            case 'answer': {
                const resolve = answers.get(next.id);
                answers.delete(next.id);
                if (resolve !== undefined) resolve(input?.answer);
                return;
            }
            case 'nativeDark':
                nativeDark = input.nativeDark === true;
                colorScheme.setAttribute('content', nativeDark ? 'dark' : 'light dark');
                return;
            case 'message': {
                // The background's message: the first answer goes back; a listener keeps the
                // background waiting by returning true or a promise; else it gets nothing. A
                // page that listens for no message does not hear it. Safari drops a listener's
                // rejection, unreported: once no listener is left to answer, nothing goes back.
                if (messageListeners.length === 0) { host.answer(next.id, '', true); return; }
                let answered = false, held = false, promised = 0;
                const sendResponse = (response) => {
                    if (answered) return;
                    answered = true;
                    host.answer(next.id, response === undefined ? '' : jsonText(response, 'an answer'));
                };
                const nothingMore = () => { if (!answered && !held && promised === 0) { answered = true; host.answer(next.id, ''); } };
                for (const listener of [...messageListeners]) {
                    const returned = call(listener, undefined, [input.message, { id: setup.extensionID }, sendResponse]);
                    if (returned === true) held = true;
                    else if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') {
                        promised += 1;
                        returned.then(sendResponse, () => { promised -= 1; nothingMore(); });
                    }
                }
                nothingMore();
                return;
            }
            case 'timer': {
                const timer = timers.due(next.id);
                if (timer !== undefined) call(timer.callback, undefined, timer.args);
                return;
            }
            case 'show':
                visibility = input.visible ? 'visible' : 'hidden';
                document.dispatchEvent(event('visibilitychange', document));
                armFrame();
                return;
            case 'appearance':
                if (input.appearance === appearance) return;
                appearance = input.appearance;
                for (const { list, scheme } of [...queries]) {
                    list.dispatchEvent({ type: 'change', matches: scheme === appearance, media: list.media, target: list });
                }
                return;
            case 'ready':
                readyState = 'interactive';
                // DOMContentLoaded is the document's, and bubbles to the window.
                document.dispatchEvent(event('DOMContentLoaded', document));
                globalThis.dispatchEvent(event('DOMContentLoaded', document));
                readyState = 'complete';
                globalThis.dispatchEvent(event('load', globalThis));
                return;
            case 'click': {
                const target = byId(input.element);
                if (target === null) { result = 'the popup has no element with that id'; return; }
                if (outOfSight(target)) { result = 'hidden'; return; }
                target.click();
                return;
            }
            case 'choose': {
                // The user picks an option of a select: it is chosen, and the select says so
                // (input, then change), as a browser's does.
                const target = byId(input.element);
                if (target === null) { result = 'the popup has no element with that id'; return; }
                if (outOfSight(target)) { result = 'hidden'; return; }
                if (target.tagName !== 'SELECT') { result = 'the element is a ' + target.tagName.toLowerCase() + ', not a select'; return; }
                const option = target.options.find((candidate) => candidate.value === input.value);
                if (option === undefined) { result = 'the select has no option of that value (it has ' + (target.options.map((candidate) => '"' + candidate.value + '"').join(', ') || 'none') + ')'; return; }
                option.selected = true;
                target.dispatchEvent(event('input', target));
                target.dispatchEvent(event('change', target));
                return;
            }
            case 'portMessage':
                ports.get(next.id)?.heard(input.message);
                return;
            case 'storageChanged':
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
                document.dispatchEvent(event('visibilitychange', document));
                globalThis.dispatchEvent(event('pagehide', globalThis));
                return;
            case 'query': {
                // `expect ... page "SELECTOR" ...`: how many elements match, from the root
                // element itself down, and what the first is.
                let found;
                try { found = select({ children: [root] }, input.selector); } catch (error) { result = stringify({ error: String(error.message) }); return; }
                const first = found[0];
                const style = {}, attributes = {};
                if (first !== undefined) {
                    for (const name of keys(first.style).sort()) if (first.style[name] !== '') style[kebab(name)] = String(first.style[name]);
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
                // What a scenario can check: the root element's style, classes, data and
                // attributes, and the text of the style elements scripts added.
                const attributes = {};
                for (const name of ['lang', 'dir', 'id', 'hidden']) if (root.getAttribute(name) !== null) attributes[name] = root.getAttribute(name);
                const styleText = [];
                const walk = (node) => { for (const child of node.children ?? []) { if (child.tagName === 'STYLE') styleText.push(String(child.textContent)); walk(child); } };
                walk(root);
                const style = {};
                for (const name of keys(root.style).sort()) if (root.style[name] !== '') style[name] = String(root.style[name]);
                const data = {};
                for (const name of keys(root.dataset).sort()) data[name] = String(root.dataset[name]);
                result = stringify({ style, classes: [...root.classList.toString().split(' ').filter(Boolean)], data, attributes, styles: styleText });
                return;
            }
            }
        },
        writable: false, configurable: false, enumerable: false,
    });
    return {
        post(kind, id, text) { work = { kind, id, text }; },
        result() { return result; },
        // What a module's import() rejects with, made in the page's realm.
        refusal(what) { return new Error(what + ' is not provided in pages by the harness\'s runtime'); },
    };
}
