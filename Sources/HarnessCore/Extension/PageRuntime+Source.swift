/// The JavaScript of `PageRuntime`, `pages.mjs`, as `ExtensionRuntime.installShared()` writes it.
extension PageRuntime {
    package static let source = #"""
// The harness's JavaScript runtime for an extension's own pages (PROTOCOL.md, section 15): one
// node process per run holds every page the extension has in Safari, each in a realm of its
// own: a tab's page with the content scripts the manifest matches to its address, and the
// popup's page while it is open. A page loads afresh (a new realm) each time its tab loads, and
// is gone when its tab closes. The harness sends one frame per thing that happens and reads one
// frame back with what the pages did; like the background's runtime, it owns the event loop:
// scripts run in the turn an input begins, their microtasks drain before the turn ends, and the
// clock and the random numbers come from the frames.
//
// node --experimental-vm-modules --no-warnings --disallow-code-generation-from-strings pages.mjs --extension FOLDER [--watchdog MS] [--seed N]
//
// In:  {"now": MS, "input": {"type": "load", "tab", "url", "visible", "appearance"} | {"type": "close", "tab"}
//       | {"type": "show", "tab", "visible"} | {"type": "appearance", "appearance"}
//       | {"type": "answer", "id", "answer"?} | {"type": "message", "tab", "id", "message"}
//       | {"type": "openPopup", "tab", "appearance", "tabs": [{"id", "url", "windowId", "active"}], "windowId"}
//       | {"type": "closePopup", "hide"} | {"type": "click", "element"} | {"type": "choose", "element", "value"}
//       | {"type": "portMessage", "port", "message"} | {"type": "portDisconnected", "port", "error"?}
//       | {"type": "timer", "page", "timer"}}
// Out: {"outputs": [{"type": "sendMessage", "id", "tab" | "popup": true, "message"}
//       | {"type": "answer", "id", "answer"?} | {"type": "page", "tab", "state"}
//       | {"type": "log", "page", "level", "text", "at"?} | {"type": "setTimer", "page", "timer", "at"}
//       | {"type": "cancelTimer", "page", "timer"} | {"type": "connect", "port", "name", "tab" | "popup": true}
//       | {"type": "portPost", "port", "message"} | {"type": "portDisconnect", "port"}]}

process.env.TZ = 'UTC';

import path from 'node:path';
import util from 'node:util';
import vm from 'node:vm';
import { option, write, frames, readIn, place, describe, isTimeout, linkModules, realmCollector, realmEvents, realmPorts, realmStacks, realmTimers } from './runtime-common.mjs';
const folder = path.resolve(option('extension', '.'));
const watchdog = Number(option('watchdog', '2000'));
const seed = String(option('seed', '0'));

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
const popupFile = manifest.action?.default_popup;

// A match pattern (`<all_urls>`, `*://*.example.com/*`) as a test of an address.
function matches(pattern, url) {
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

// The content scripts for an address, in the manifest's order, by when they run.
function contentScripts(url) {
    const scripts = { start: [], end: [] };
    for (const entry of manifest.content_scripts ?? []) {
        if (!(entry.matches ?? []).some((pattern) => matches(pattern, url))) continue;
        if ((entry.exclude_matches ?? []).some((pattern) => matches(pattern, url))) continue;
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

// MARK: - A page: its realm, its scripts, its state

const pages = new Map();
// Each page message still to be answered, by number: the page that sent it.
const asked = new Map();
// Everything a script can reach is made in its page's realm: what crosses from this file is
// strings and numbers (the page's setup is JSON text), and the host's functions are called only
// through the page's own (see install).
const install = new vm.Script(String.raw`(hostFunctions, setupText) => {
    'use strict';
    const define = (name, value) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
    const stringify = JSON.stringify, parse = JSON.parse, keys = Object.keys, apply = Reflect.apply, construct = Reflect.construct;
    const setup = parse(setupText);
    // The other realm's functions, each called through one of this realm's: whatever they throw
    // (none throws but for the stack's limit or the memory's: a RangeError of the other realm,
    // whose Function makes code from strings) becomes this realm's error.
    const host = {}, StackError = RangeError;
    for (const name of keys(hostFunctions)) {
        const work = hostFunctions[name];
        host[name] = (...args) => {
            try { return apply(work, undefined, args); } catch { throw new StackError('Maximum call stack size exceeded'); }
        };
    }

    const getOwn = Object.getOwnPropertyDescriptor, getProto = Object.getPrototypeOf, hasOwn = Object.hasOwn, exec = RegExp.prototype.exec;
    ${realmStacks('pages:')}
    const jsonText = (value, what) => {
        const text = stringify(value === undefined ? null : value);
        if (typeof text !== 'string') throw new TypeError(what + ' must be JSON (not a function or a symbol)');
        return text;
    };
    const report = (error) => host.log('error', 'Uncaught ' + (error instanceof Error ? error.name + ': ' + error.message : String(error)),
                                       error instanceof Error ? String(error.stack) : '');
    const call = (listener, self, args) => { try { return apply(listener, self, args); } catch (error) { report(error); return undefined; } };
    const missing = (name) => () => { throw new Error(name + ' is not provided in pages by the harness\'s runtime'); };

    // Time and randomness from the frames. Nothing reaches the clock's own Date: Date's
    // prototype names this one as its constructor, and Intl formats the frames' time when it is
    // given none.
    const RealDate = Date;
    const FrameDate = function Date(...args) {
        if (new.target === undefined) return new RealDate(host.now()).toString();
        // A subclass (class D extends Date) gets its own prototype.
        return construct(RealDate, args.length === 0 ? [host.now()] : args, new.target);
    };
    FrameDate.prototype = RealDate.prototype;
    FrameDate.now = () => host.now();
    FrameDate.parse = RealDate.parse;
    FrameDate.UTC = RealDate.UTC;
    Object.defineProperty(RealDate.prototype, 'constructor', { value: FrameDate, writable: true, configurable: true });
    define('Date', FrameDate);
    const Format = Intl.DateTimeFormat;
    const format = getOwn(Format.prototype, 'format').get;
    Object.defineProperty(Format.prototype, 'format', {
        get() { const bound = apply(format, this, []); return (date) => bound(date === undefined ? host.now() : date); }, configurable: true,
    });
    const formatToParts = Format.prototype.formatToParts;
    Format.prototype.formatToParts = function (date) { return apply(formatToParts, this, [date === undefined ? host.now() : date]); };
    Math.random = () => host.random();
    ${realmCollector}
    ${realmTimers}
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
    // Selectors: one compound selector, or several separated by commas, of a tag name, #id,
    // .class and [attribute] or [attribute="value"]; anything else is an error naming it.
    const select = (from, selector) => {
        const found = [];
        const tests = String(selector).split(',').map((part) => {
            const text = part.trim();
            const match = /^([a-zA-Z][a-zA-Z0-9-]*|\*)?((?:#[\w-]+|\.[\w-]+|\[[\w-]+(?:="[^"]*"|='[^']*'|=[\w-]+)?\])*)$/.exec(text);
            if (match === null || text === '') throw new SyntaxError('the selector "' + text + '" is beyond the harness\'s small DOM (tag, #id, .class, [attribute="value"])');
            const tag = match[1] && match[1] !== '*' ? match[1].toUpperCase() : undefined;
            const parts = [...match[2].matchAll(/#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:=(?:"([^"]*)"|'([^']*)'|([\w-]+)))?\]/g)];
            return (node) => (tag === undefined || node.tagName === tag) && parts.every(([, id, className, attribute, double, single, bare]) => {
                if (id !== undefined) return node.id === id;
                if (className !== undefined) return node.classList.contains(className);
                const value = node.getAttribute(attribute);
                const wanted = double ?? single ?? bare;
                return value !== null && (wanted === undefined || value === wanted);
            });
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
    define('location', { href: setup.url, toString: () => setup.url });

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
    const listenerCall = (listener, args) => call(listener, undefined, args);
    ${realmEvents}
    ${realmPorts}
    runtime.connect = (...args) => {
        const info = args.find((argument) => argument !== null && typeof argument === 'object') ?? {};
        const name = info.name === undefined ? '' : String(info.name);
        const number = host.connect(name);
        const end = portEnd({ name }, (text) => host.portPost(number, text), () => { ports.delete(number); host.portDisconnect(number); });
        ports.set(number, end);
        return end.port;
    };
    const i18n = { getMessage: missing('browser.i18n.getMessage'), getUILanguage: () => 'en' };
    // browser.tabs in the popup: tabs.query, over the tabs Safari had as it opened, with the
    // loads and closes the page host saw since; one window's tabs are numbered in name order.
    // Content scripts have no tabs API.
    const namespaces = { runtime, i18n };
    if (setup.popup) {
        const known = ['active', 'url', 'currentWindow', 'lastFocusedWindow', 'windowId'];
        const query = (info = {}) => {
            const unknown = keys(info ?? {}).filter((key) => !known.includes(key));
            if (unknown.length > 0) return Promise.reject(new Error('tabs.query does not take ' + unknown.join(', ') + ' in the harness\'s runtime'));
            const all = parse(host.tabs());
            const window = all.find((tab) => tab.active)?.windowId ?? 1;
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
                return new Proxy(target[name], { get(members, member) { return typeof member === 'symbol' || member === 'then' || member in members ? members[member] : missing('browser.' + name + '.' + member); } });
            }
            return new Proxy({}, { get(_, member) { return typeof member === 'symbol' || member === 'then' ? undefined : missing('browser.' + name + '.' + member); } });
        },
    });
    define('browser', browser);
    define('chrome', browser);

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
                const timer = timers.get(next.id);
                if (timer === undefined) return;
                if (timer.repeats) host.setTimer(next.id, host.now() + timer.every); else timers.delete(next.id);
                call(timer.callback, undefined, timer.args);
                return;
            }
            case 'show':
                visibility = input.visible ? 'visible' : 'hidden';
                document.dispatchEvent(event('visibilitychange', document));
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
                document.dispatchEvent(event('DOMContentLoaded', document));
                readyState = 'complete';
                globalThis.dispatchEvent(event('load', globalThis));
                return;
            case 'click': {
                const target = byId(input.element);
                if (target === null) { result = 'the popup has no element with that id'; return; }
                target.click();
                return;
            }
            case 'choose': {
                // The user picks an option of a select: it is chosen, and the select says so
                // (input, then change), as a browser's does.
                const target = byId(input.element);
                if (target === null) { result = 'the popup has no element with that id'; return; }
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
}`, { filename: 'pages:install' });
const turnScript = new vm.Script('__pageTurn()', { filename: 'pages:turn' });

let nextMessage = 1;
let loads = 0;
// Each port a page opened, by number: the page (the load of it) that holds it.
let nextPort = 1;
const portPages = new Map();
// While the popup is open: the tabs its tabs.query reads ({id, url, windowId, active}), and
// the window it opened in.
let popupTabs = null;
let popupWindow = 1;

// sfc32 over a state mixed from the run's seed, the page and how many pages loaded before it.
function seededRandom(text) {
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

let now = 0;

// A page, loaded: its realm, then its scripts in the order a browser runs them: those that run
// as the page is parsed (`start`: a content script at document_start, a popup's classic
// scripts), its module scripts (deferred to the end of parsing), DOMContentLoaded, and then the
// content scripts at document_end. `tree` holds the page's own elements ({head, body}).
async function load(name, tab, url, visible, appearance, scripts, tree = { head: [], body: [] }, nativeDark = false) {
    const random = seededRandom(`${seed}/${name}/${++loads}`);
    // The global object's names fall back to its sandbox's, prototype and all: a sandbox of this
    // realm (whose Object.prototype has constructor, this realm's Object) would hand scripts
    // this realm's Function through globalThis.constructor. It has no prototype.
    const context = vm.createContext(Object.create(null), { name, microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
    const page = { name, key: `${name}#${loads}`, tab, context, scripts: null, lastState: null };
    const host = {
        now: () => Number(now),
        random: () => random(),
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
    // The popup's tabs.query reads the tabs Safari had as it opened, as the page host has seen
    // them load and close since.
    if (tab === undefined) host.tabs = () => JSON.stringify(popupTabs);
    page.scripts = install.runInContext(context)(host, JSON.stringify({ url: String(url), visible, appearance: String(appearance), nativeDark: nativeDark === true,
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
        if (popupTabs !== null) {
            const known = popupTabs.find((tab) => tab.id === input.tab);
            if (known !== undefined) known.url = input.url;
            else popupTabs.push({ id: input.tab, url: input.url, windowId: popupWindow, active: false });
        }
        const page = await load(`tab ${input.tab}`, input.tab, input.url, input.visible === true, input.appearance, contentScripts(input.url), undefined, input.nativeDark === true);
        return [page];
    }
    case 'close':
        pages.delete(`tab ${input.tab}`);
        if (popupTabs !== null) popupTabs = popupTabs.filter((tab) => tab.id !== input.tab);
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
        popupTabs = (input.tabs ?? []).map((tab) => ({ id: String(tab.id), url: String(tab.url), windowId: Number(tab.windowId), active: tab.active === true }));
        popupWindow = Number(input.windowId ?? 1);
        const page = await load('popup', undefined, 'safari-web-extension://extension/' + popupFile, true, input.appearance, scripts, setup);
        return [page];
    }
    case 'closePopup': {
        // Closed by the user, the popup hears that it goes (visibilitychange, then pagehide);
        // what it sends then still leaves, and its answer finds no page.
        const page = pages.get('popup');
        if (page !== undefined && input.hide === true) {
            turn(page, 'hide', 0, '');
            await settle();
        }
        pages.delete('popup');
        popupTabs = null;
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
    case 'click': case 'choose': {
        const page = pages.get('popup');
        if (page === undefined) return [];
        const refused = turn(page, input.type, 0, JSON.stringify(input));
        if (refused !== '') log('popup', 'error', `Not done: popup ${input.type} ${input.element}${input.type === 'choose' ? ' ' + input.value : ''}: ${refused}`);
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
    outputs = [];
    const touched = await handle(frame.input ?? {});
    // Rejections nobody handled are reported before the input ends.
    await settle();
    for (const page of touched) if (pages.get(page.name) === page) reportState(page);
    write({ outputs });
}
"""#
}
