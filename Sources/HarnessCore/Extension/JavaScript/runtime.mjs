// The harness's JavaScript runtime for an extension's background: one background incarnation
// per node process, or, with --host, many, each in a context of its own (PROTOCOL.md, section
// 14, "Where code runs"). Each speaks the background role of the protocol (sections 3 to 6 and
// 14) on the standard input and output; what its scripts see is runtime-realm.mjs, made in their
// own realm. It owns the event loop: every script runs
// in a turn that an input frame begins, microtasks drain before the turn ends, and nothing
// runs between turns. Everything a script can reach is made in the script's own realm: no
// object of this file's realm (where `process` lives) is handed to it, and what crosses from
// the scripts to this file is strings and numbers; but a background page whose scripts name the
// DOM has its document, jsdom's, whose objects are this realm's (dom.mjs, and PROTOCOL.md).
// The clock, the timers and the random numbers come from the frames, so the same frames give
// the same run. (Run with NODE_PATH naming where jsdom is, as the harness starts it.)
//
// node --experimental-vm-modules --no-warnings --disallow-code-generation-from-strings runtime.mjs
//     --extension FOLDER [--watchdog MS]
//     [--own-pages] (--storage FOLDER [--free] [--installed FOLDER] | --host)
// (--own-pages: the extension's own pages run, and talk with the background in any message,
// section 15.)
// (the harness adds --storage, and --free in a soak, as it does for every background, and
// --installed, the folder of the files an update installed, after one; a host gets them in
// each incarnation's `open` frame).

process.env.TZ = 'UTC';

import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
    option, write, frames, readIn, place, describe, isTimeout, linkModules, realmModule, url as parseURL, backgroundScripts as scriptsOf,
} from './runtime-common.mjs';
import * as wire from './directives.mjs';
import * as storage from './storage-areas.mjs';
import { attachWindow, changedShared, inTask, keepTime, loadDOM, namesTheDOM, nextTask, openDocument, runQueued } from './dom.mjs';

// The files `keep` reads and writes, without .json.
const keptFiles = ['net-request-dynamic', 'net-request-session', 'net-request-enabled', 'content-scripts', 'content-scripts-session', 'permissions', 'session-access'];

const runFolder = path.resolve(option('extension', '.'));
const watchdog = Number(option('watchdog', '2000'));
const ownPages = process.argv.includes('--own-pages');


const turn = new vm.Script('__runtimeTurn()', { filename: 'runtime:turn' });
const drain = new vm.Script('', { filename: 'runtime:drain' });
const settleScript = new vm.Script('__runtimeSettle()', { filename: 'runtime:settle' });
// What an incarnation waiting at a yield point throws when its input ends (the harness is gone,
// or it dropped the incarnation): nothing more of it happens.
const inputEnded = Symbol('the input ended');

// MARK: - One incarnation

// A background incarnation: its realm, its scripts and its storage, over `storageFolder`.
// It says what it has to say through `write`, and reads the answers at its yield points with
// `nextFrame` (an iterator's next, done when its input ends: it then stops where it is, by
// throwing `inputEnded`). Returns its `handle` for each input
// frame, and `uncaught` for what node reports of its realm. (`documentsChanged`, in a host: told
// when a background page's document changed what every document in the host shares.)
async function incarnation(write, nextFrame, storageFolder, installed, documentsChanged = undefined) {
    // The extension's files: the run's, or those an update installed (--installed FOLDER).
    const folder = installed === null ? runFolder : path.resolve(installed);

    // MARK: - What crosses from the scripts: strings and numbers

    function log(level, message, at) {
        write(wire.frame.log(level, message, at));
    }

    function uncaught(prefix, value) {
        const described = describe(value);
        log('error', `${prefix} ${described.text}`, place(described.stack));
    }

    // MARK: - The extension as its manifest gives it

    let manifest = null, manifestProblem = null;
    try {
        manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'));
    } catch (error) {
        manifestProblem = `the extension's manifest.json cannot be read: ${error.message}`;
    }
    const background = manifest?.background ?? {};
    let backgroundScripts = [];
    try { backgroundScripts = scriptsOf(manifest, (file) => readIn(folder, file)); } catch (error) {
        manifestProblem ??= `the background page ${background.page} cannot be read: ${error.message}`;
    }
    const isModule = background.type === 'module';
    // The default locale's messages (_locales/LOCALE/messages.json), as text for i18n.getMessage.
    let localeMessages = '{}';
    if (typeof manifest?.default_locale === 'string') {
        try { localeMessages = fs.readFileSync(path.join(folder, '_locales', manifest.default_locale, 'messages.json'), 'utf8'); } catch {}
    }
    // The scenario's answers to fetch, by address (--fetch FILE: {url: {status, body}}), read as
    // the incarnation starts.
    let fetchStubs = {};
    const stubsFile = option('fetch', null);
    if (stubsFile !== null) {
        try { fetchStubs = JSON.parse(fs.readFileSync(stubsFile, 'utf8')); } catch {}
    }

    // MARK: - Time and randomness, from the frames

    const clock = { now: 0, uptime: 0, utcOffset: 0 };
    let tabIds = {};
    let activeTab = '';
    // Safari's windows as the frames say them: each tab's window (kept for a tab once closed, so
    // that tabs.onRemoved can name it), each window's active tab, the frontmost window and the
    // one with focus (-1: none).
    const windows = { tabs: new Map(), active: {}, front: 0, focused: 0 };
    // The front profile's open tabs and their addresses, as the frame says them (JSON text; ''
    // for a frame that says none).
    let tabURLs = '';
    // What the extension set on its toolbar item, as the last input frame says it (JSON text, as
    // `started` gives it), until the scripts' realm takes it ('' after).
    let safariAction = '';
    // The random numbers' seed: the run's, the role and the incarnation's first moment on
    // Safari's clock (the wire does not carry the incarnation's number), from its first input.
    let seedText = null;

    // MARK: - The scripts' realm

    let directives = [];
    let timedOut = false;
    // The listener types last reported to Safari (none before the load's end).
    let reportedListening = null;

    // The global object's names fall back to its sandbox's, prototype and all: a sandbox of this
    // realm (whose Object.prototype has constructor, this realm's Object) would hand scripts this
    // realm's Function through globalThis.constructor. It has no prototype.
    const sandbox = Object.create(null);
    const context = vm.createContext(sandbox, {
        name: 'background',
        microtaskMode: 'afterEvaluate',
        codeGeneration: { strings: false, wasm: false },
    });

    // How the scripts' code runs: under the watchdog, and without node's decoration of what it
    // throws (node reads a thrown value's stack to add the line it came from, after the watchdog
    // stopped: a getter or a proxy's trap there would run a script's code outside it, and one that
    // runs inside a script's turn, as importScripts does, swallows the watchdog's end of the turn).
    const evaluation = { timeout: watchdog, displayErrors: false };

    function evaluate(script) {
        try {
            script.runInContext(context, evaluation);
        } catch (error) {
            if (isTimeout(error)) { timedOut = true; return; }
            uncaught('Uncaught', error);
            // The microtasks the script queued before it threw still run in this turn.
            try { drain.runInContext(context, evaluation); } catch (later) {
                if (isTimeout(later)) { timedOut = true; return; } else uncaught('Uncaught', later);
            }
        }
        if (page !== null) settle();
    }

    // A background page's document queues its mutation records on node's queue, not the
    // scripts' own: they run here, in the turn that made them (from a task of node's: handle runs
    // in one for a page with a document, see serve), each round under the watchdog, while an
    // observer's callback ran (its microtasks, run after it, may have changed the document again),
    // up to 1000 rounds: then the incarnation ends as one whose script never yields.
    function settle() {
        for (let round = 0; round < 1000; round++) {
            let observed;
            try { observed = settleScript.runInContext(context, evaluation); } catch (error) {
                if (isTimeout(error)) timedOut = true; else uncaught('Uncaught', error);
                return;
            }
            if (observed !== true) return;
        }
        // Observers that answer each other without end are a script that never yields.
        log('error', 'Uncaught Error: the page\'s mutation observers changed its document in answer to each other 1000 times in one turn');
        timedOut = true;
    }

    const read = (file) => readIn(folder, file);

    // What the scripts' realm asks of this one: each takes and gives strings and numbers only, and
    // none is reachable from a script (the install function keeps them in its closure).
    const host = {
        now: () => clock.now,
        utcOffset: () => clock.utcOffset,
        url: (text) => parseURL(text),
        // A tab's number by its name (0: none known), and its name by its number ('': none).
        tabNumber: (name) => (Object.hasOwn(tabIds, String(name)) && Number.isSafeInteger(tabIds[String(name)]) ? tabIds[String(name)] : 0),
        activeTab: () => activeTab,
        // A tab's window (0: none said), a window's active tab ('': none said), the frontmost
        // window and the focused one (0: none said; -1: no window has focus), and every window
        // that has a tab, as JSON text.
        tabWindow: (name) => windows.tabs.get(String(name)) ?? 0,
        activeIn: (window) => (Object.hasOwn(windows.active, String(window)) ? String(windows.active[String(window)]) : ''),
        frontWindow: () => windows.front,
        openTabs: () => tabURLs,
        action: () => { const text = safariAction; safariAction = ''; return text; },
        focusedWindow: () => windows.focused,
        tabName: (number) => Object.keys(tabIds).find((name) => tabIds[name] === number) ?? '',
        uptime: () => clock.uptime,
        seed: () => seedText,
        setTimer: (id, at) => {
            if (Number.isSafeInteger(id) && Number.isSafeInteger(at)) directives.push(wire.directive.setTimer(id, at));
        },
        cancelTimer: (id) => { if (Number.isSafeInteger(id)) directives.push(wire.directive.cancelTimer(id)); },
        // A storage operation: queued, carried out at the turn's end through the yield points,
        // finished when the harness sends its completion. Returns its token.
        storage: (area, op, text) => {
            const token = nextToken++;
            storageQueue.push({ token, area: String(area), op: String(op), argument: JSON.parse(String(text)) });
            return token;
        },
        // A native message for the handler (section 9), numbered by the scripts' realm.
        sendNative: (request, text) => {
            if (Number.isSafeInteger(request)) directives.push(wire.directive.sendNative(request, JSON.parse(String(text))));
        },
        // A tab's question answered: the response, as JSON text, is the decision the tab shows.
        decide: (tab, text) => { directives.push(wire.directive.sendDecision(tab, JSON.parse(String(text)))); },
        // The open popup's view, and the answer to its message number `message`.
        showPopup: (text) => { directives.push(wire.directive.showPopup(JSON.parse(String(text)))); },
        answerPopup: (message, text) => {
            const answer = JSON.parse(String(text));
            if (Number.isSafeInteger(message)) directives.push(wire.directive.popupAnswer(message, answer?.saved, answer?.scope));
        },
        connectNative: () => { directives.push(wire.directive.connectNative()); },
        // The extension's own pages (section 15): whether they run, the answer to page message
        // `id` (no text: nothing), and a message for a tab's page.
        ownPages: () => ownPages,
        answerPage: (id, text) => {
            if (Number.isSafeInteger(id)) directives.push(wire.directive.answerPage(id, text === undefined ? undefined : JSON.parse(String(text))));
        },
        messageTab: (tab, id, text) => {
            if (Number.isSafeInteger(id)) directives.push(wire.directive.messageTab(tab, id, JSON.parse(String(text))));
        },
        messagePopup: (id, text) => {
            if (Number.isSafeInteger(id)) directives.push(wire.directive.messagePopup(id, JSON.parse(String(text))));
        },
        // A message on a port a page opened, and its end closed by the background.
        portPost: (port, text) => {
            if (Number.isSafeInteger(port)) directives.push(wire.directive.portPost(port, JSON.parse(String(text))));
        },
        portClose: (port) => { if (Number.isSafeInteger(port)) directives.push(wire.directive.portClose(port)); },
        // A port the background opens to a tab's page (tabs.connect), numbered below 0.
        connectTab: (port, tab, name) => { if (Number.isSafeInteger(port) && port < 0) directives.push(wire.directive.connectTab(port, tab, name)); },
        setAlarm: (at, name, period) => {
            if (Number.isSafeInteger(at)) directives.push(wire.directive.setAlarm(at, name, period));
        },
        clearAlarm: (name) => { directives.push(wire.directive.clearAlarm(name)); },
        // What permissions.remove took back of the user's grants, as JSON text ({permissions, origins}).
        permissionsRemoved: (text) => {
            const { permissions, origins } = JSON.parse(String(text));
            directives.push(wire.directive.permissionsRemoved(permissions, origins));
        },
        // tabs.create, update, reload and remove, and scripting's injections: `text` is the call's JSON ({method, ...}).
        tabsCall: (request, text) => {
            if (Number.isSafeInteger(request)) directives.push(wire.directive.tabsCall(request, JSON.parse(String(text))));
        },
        // What Safari keeps for the extension beside its storage, in the profile's extension
        // storage folder (NAME.json; Safari drops the session's kinds when it quits):
        // declarativeNetRequest's rules (net-request-dynamic, -session, -enabled) and the
        // registered content scripts (content-scripts, content-scripts-session, which the pages
        // read). The file's JSON text ('' for none), or, given text, written.
        keep: (name, text) => {
            if (!keptFiles.includes(String(name))) throw new Error(`Safari keeps nothing named ${name}`);
            const kept = storage.keepFile(storageFolder, String(name), String(text));
            if (kept.error !== undefined) log('error', kept.error);
            return kept.text;
        },
        // menus.create and its kin: every menu item the background has now, as JSON text.
        menusChanged: (text) => { directives.push(wire.directive.menusChanged(JSON.parse(String(text)))); },
        // action.setBadgeText and its kin: one property for a tab ('' for every tab), its value as JSON text.
        actionSet: (tab, property, text) => { directives.push(wire.directive.actionSet(tab === '' ? null : String(tab), String(property), JSON.parse(String(text)))); },
        log: (level, text, stack) => log(level, text, stack ? place(stack) : undefined),
        messages: () => localeMessages,
        // A scenario's answer to fetching `url`, as JSON text ({status, body}), or '' for none.
        fetch: (url) => Object.hasOwn(fetchStubs, String(url)) ? JSON.stringify(fetchStubs[String(url)]) : '',
        // The one question about an object of the scripts' realm: whether it is a proxy (whose
        // traps are the scripts' code), asked before its properties are read.
        isProxy: (value) => util.types.isProxy(value),
        // The error a script's own call gets back, as text for its realm to throw.
        // Why a background page has no document (its scripts name no part of the DOM, or jsdom
        // is not installed), and node's queue run (its mutation records: settle).
        noDocument: () => documentProblem,
        runQueued: () => runQueued(),
        // A background page's localStorage: the extension origin's, kept with its storage.
        webStorage: (kind, op, key, value) => storage.extensionWebStorage(storageFolder, String(op), String(key), String(value)),
        importScripts: (files) => {
            if (isModule) return 'importScripts is not available in a module background';
            for (const file of files) {
                let source;
                // A path is the worker script's: relative to its folder, or to the extension's root.
                const from = String(file).startsWith('/') ? String(file) : path.posix.join(path.posix.dirname(String(background.service_worker ?? '')), String(file));
                try { source = read(from); } catch (error) { return `importScripts could not load ${file}: ${error.message}`; }
                let script;
                try { script = new vm.Script(source, { filename: String(file), importModuleDynamically }); } catch (error) { return `importScripts could not compile ${file}: ${error.message}`; }
                // What the script throws is its own value: kept for the scripts' realm to throw
                // again (thrown), as importScripts throws it.
                try { script.runInContext(context, { displayErrors: false }); } catch (error) {
                    if (isTimeout(error)) throw error;
                    scriptThrew = true;
                    scriptThrown = error;
                    return '';
                }
            }
            return '';
        },
    };

    // No host function throws: an error of this realm reaching a script would lead it here (its
    // constructor is this realm's Function). A failure is kept, and the scripts' realm asks for it
    // (`failure`) and throws its own error. (At the stack's limit, or the memory's, a host function
    // throws this realm's RangeError before its try: the scripts' realm calls each through a
    // function of its own, which throws its own error instead; see install.)
    let hostFailure = '', scriptThrew = false, scriptThrown;
    for (const [name, work] of Object.entries(host)) {
        host[name] = (...args) => {
            try { return work(...args); } catch (error) {
                // The watchdog's timeout goes on as it is.
                if (isTimeout(error)) throw error;
                hostFailure = util.types.isProxy(error) || !(error instanceof Error) ? 'the runtime failed' : `${error.name}: ${error.message}`;
                return undefined;
            }
        };
    }
    host.failure = () => { const failure = hostFailure; hostFailure = ''; return failure; };
    host.threw = () => scriptThrew;
    host.thrown = () => { const value = scriptThrown; scriptThrew = false; scriptThrown = undefined; return value; };

    const { install } = realmModule(context, 'runtime-realm.mjs', 'runtime:');
    const scripts = manifest === null ? null : install(host, JSON.stringify(manifest));

    // A script's import() is refused with its realm's error: node's own refusal, when a script is
    // given no way to import, is an error of this realm (whose Function makes code from strings).
    function importModuleDynamically() { throw scripts.refusal('import()'); }

    // MARK: - Extension storage (section 10): storage.local in local.json, saved whole through a
    // temporary file at the storage yield points; storage.sync in sync.json the same way, with
    // no yield points; storage.session in session.json, in place. The pages' runtime changes the
    // same files: what it changed arrives as `storageChanged`, and is applied to what this
    // incarnation read.

    let nextToken = 1;
    let storageQueue = [];
    const finished = new Map();
    const areas = { local: null, session: null, sync: null };
    let nextYield = 1;

    // Stops at a yield point until the harness answers: true to take the step, or the failure.
    async function yieldAt(point) {
        write(wire.frame.yield(point, nextYield++));
        for (;;) {
            const next = await nextFrame();
            if (next.done) throw inputEnded;
            let frame;
            try { frame = JSON.parse(next.value); } catch { write(wire.frame.error('a frame that is not JSON')); continue; }
            if (frame?.kind === 'continue') return { ok: true };
            if (frame?.kind === 'fail') return { ok: false, errno: frame.errno, after: frame.after === true };
            write(wire.frame.error(`an input arrived while waiting at yield point '${point}'; ignored`));
        }
    }

    const failure = (step, answer) => `storage.local could not be saved: ${step} failed with errno ${answer.errno}`;

    async function carryOut(operation) {
        const { area, op, argument } = operation;
        // Until local.json has been read, each operation on storage.local reads it first; a read
        // that fails fails that operation only, and the next one reads again.
        if (area === 'local' && areas.local === null) {
            const answer = await yieldAt('storage-read');
            if (!answer.ok && !answer.after) return { error: 'storage.local could not be read' };
            areas.local = storage.readArea(storageFolder, 'local');
        }
        if (areas[area] === null) areas[area] = storage.readArea(storageFolder, area);
        const outcome = storage.operate(areas[area], area, op, argument, manifest);
        if (outcome.items === undefined) return outcome;
        const changed = outcome.items;
        if (area !== 'local') {
            storage.writeArea(storageFolder, area, changed);
        } else {
            const text = JSON.stringify(changed);
            const temp = await yieldAt('storage-write-temp');
            if (!temp.ok && !temp.after) return { error: failure('the write', temp) };
            fs.writeFileSync(path.join(storageFolder, 'local.json.tmp'), text);
            if (!temp.ok) return { error: failure('the write', temp) };
            const rename = await yieldAt('storage-rename');
            if (!rename.ok && !rename.after) return { error: failure('the rename', rename) };
            fs.renameSync(path.join(storageFolder, 'local.json.tmp'), path.join(storageFolder, 'local.json'));
            if (!rename.ok) { areas[area] = changed; return { error: failure('the rename', rename) }; }
        }
        areas[area] = changed;
        return { value: null, changes: outcome.changes };
    }

    // Another context (a page) changed an area: what this incarnation read follows.
    function changedElsewhere(area, changes) {
        if (Object.hasOwn(areas, area) && areas[area] !== null) areas[area] = storage.applyChanges(areas[area], changes);
    }

    // MARK: - Loading the background

    // The background's scripts are read, compiled and linked as soon as the process starts, before
    // its hello, so that a process started ahead of need has done it by the time Safari loads the
    // background; they run at `started`. A script that cannot be read or compiled is remembered
    // and reported then, as a load would report it.
    async function prepare() {
        if (manifest === null) return [];
        const read = (file) => { const text = readIn(folder, file); sources.push(text); return text; };
        if (!isModule) {
            return backgroundScripts.map((file) => {
                let source;
                try { source = read(file); } catch (error) { return { file, unreadable: error }; }
                try { return { file, script: new vm.Script(source, { filename: String(file), importModuleDynamically }) }; } catch (error) { return { file, error }; }
            });
        }
        return linkModules(backgroundScripts, { context, read, importModuleDynamically });
    }
    const sources = [];
    const prepared = await prepare();

    // A background page's document: made when its scripts name the DOM (`document`, a name its
    // window has that a worker's global lacks, such as DOMParser, Node or location), as the
    // background starts, over its page (Safari's generated page for `scripts`). jsdom is loaded
    // here, before the hello (about 0.4 s, once per process: dom.mjs), so that the background's
    // load does not wait for it; a page whose scripts name none of it has no document, and does
    // not load jsdom.
    let page = null;
    let documentProblem = 'its scripts name no part of the DOM (document, DOMParser, Node, location, ...), and the harness gives a background page its document only when they do';
    const pageFile = typeof background.page === 'string' ? background.page : '_generated_background_page.html';
    const ownNames = new Set(Reflect.ownKeys(sandbox).filter((key) => typeof key === 'string'));
    const wantsDocument = manifest !== null && typeof background.service_worker !== 'string' && namesTheDOM(sources, ownNames);
    if (wantsDocument) {
        documentProblem = loadDOM() ?? '';
        if (documentProblem === '') keepDocumentTime();
    }
    function openPage() {
        const report = (kind, value) => {
            if (kind === 'uncaught') uncaught('Uncaught', value);
            else log('warn', `${value} (the harness's DOM, jsdom, does not have it)`);
        };
        let html = `<!DOCTYPE html><html><head>${backgroundScripts.map((file) => `<script src="/${escapeAttribute(file)}"></script>`).join('')}</head><body></body></html>`;
        if (typeof background.page === 'string') {
            try { html = read(background.page); } catch (error) { log('error', `the background page ${background.page} cannot be read: ${error.message}; its document is a generated one`); }
        }
        page = openDocument(html, `safari-web-extension://extension/${pageFile.replace(/^\//, '')}`, report);
        // jsdom's own loading of it (its load event) is over before any script can hear it.
        runQueued();
        attachWindow(sandbox, page);
        scripts.attach(page);
    }

    // Runs the prepared modules in order; the first that cannot load stops the rest.
    async function loadModules() {
        for (const { file, module, error, place: where } of prepared) {
            if (error !== undefined) {
                const described = describe(error);
                log('error', `Uncaught ${typeof described === 'string' ? described : described.text}`, where);
                return;
            }
            // A module's top-level await settles through the scripts' own microtask queue, which
            // drains only after an evaluation in their realm.
            // (Each in a task of node's, where a page's document's mutation records can run: settle.)
            let outcome = null;
            await inTask(() => {
                module.evaluate({ timeout: watchdog }).then(() => { outcome = { ok: true }; }, (error) => { outcome = { error }; });
                if (page !== null) settle();
            });
            for (let round = 0; outcome === null && round < 1000 && !timedOut; round++) {
                await inTask(() => {
                    drain.runInContext(context, evaluation);
                    if (page !== null) settle();
                });
            }
            if (timedOut) return;
            if (outcome === null) throw new Error(`${file} did not finish loading: its top-level await waits for something that never comes`);
            if (isTimeout(outcome.error)) { timedOut = true; return; }
            if (outcome.error) throw outcome.error;
        }
    }

    // MARK: - Inputs

    // The load's end, once its scripts ran: a background page's window hears that it loaded,
    // then runtime.onStartup or onInstalled, when the load is for one (WebKit fires it once the
    // background loaded).
    function loadEnded(input) {
        if (typeof background.service_worker !== 'string') {
            scripts.post('loaded', 0, '');
            evaluate(turn);
            if (timedOut) return;
        }
        if (input.reason === 'startup' || input.reason === 'install' || input.reason === 'update') {
            scripts.post('lifecycle', 0, JSON.stringify({ reason: input.reason, previousVersion: input.previousVersion }));
            evaluate(turn);
        }
    }

    async function handle(frame) {
        clock.now = frame.now;
        clock.uptime = frame.uptime ?? clock.uptime;
        // The tabs' numbers (tabs.Tab.id), by the names the wire keeps.
        if (frame.tabIds !== null && typeof frame.tabIds === 'object') tabIds = frame.tabIds;
        // The front window's active tab, as Safari has it now ('' for none said).
        activeTab = typeof frame.activeTab === 'string' ? frame.activeTab : '';
        if (frame.tabWindows !== null && typeof frame.tabWindows === 'object') {
            for (const [name, window] of Object.entries(frame.tabWindows)) if (Number.isSafeInteger(window)) windows.tabs.set(name, window);
        }
        windows.active = frame.activeTabs !== null && typeof frame.activeTabs === 'object' ? frame.activeTabs : {};
        windows.front = Number.isSafeInteger(frame.frontWindow) ? frame.frontWindow : 0;
        windows.focused = Number.isSafeInteger(frame.focusedWindow) ? frame.focusedWindow : 0;
        tabURLs = frame.tabURLs !== null && typeof frame.tabURLs === 'object' ? JSON.stringify(frame.tabURLs) : '';
        // What the extension set on its toolbar item, as Safari holds it (left out: nothing).
        safariAction = frame.action !== null && typeof frame.action === 'object' ? JSON.stringify(frame.action) : '{}';
        seedText ??= `${frame.seed ?? 0}/background/${clock.uptime}`;
        directives = [];
        timedOut = false;
        const input = frame.input ?? {};
        if (manifestProblem !== null) {
            write(wire.frame.error(manifestProblem));
            return;
        }
        switch (input.type) {
        case 'started':
            clock.utcOffset = Number.isInteger(input.utcOffsetMinutes) ? input.utcOffsetMinutes : 0;
            if (wantsDocument && documentProblem === '' && page === null) openPage();
            scripts.post('started', 0, JSON.stringify(input));
            evaluate(turn);
            if (isModule) {
                try { await loadModules(); } catch (error) { uncaught('Uncaught', error); }
                if (timedOut) break;
                // After an await, in a microtask, where node runs no other: a page with a
                // document ends its load in a task of node's (settle).
                if (page !== null) await inTask(() => loadEnded(input)); else loadEnded(input);
            } else {
                for (const { file, script, unreadable, error } of prepared) {
                    if (unreadable !== undefined) { log('error', `Uncaught Error: ${file} cannot be read: ${unreadable.message}`, String(file)); continue; }
                    if (error !== undefined) { uncaught('Uncaught', error); continue; }
                    evaluate(script);
                    if (timedOut) break;
                }
                if (!timedOut) loadEnded(input);
            }
            break;
        case 'timerFired':
            if (Number.isInteger(input.timer?.script)) {
                scripts.post('timer', input.timer.script, '');
                evaluate(turn);
            }
            break;
        case 'storageCompleted': {
            const outcome = finished.get(input.token);
            if (outcome === undefined) break;
            finished.delete(input.token);
            scripts.post('storage', input.token, JSON.stringify(outcome));
            evaluate(turn);
            break;
        }
        case 'storageChanged':
            // A page changed storage: what this incarnation read follows, then its listeners hear it.
            changedElsewhere(String(input.area), input.changes);
            scripts.post('event', 0, JSON.stringify(input));
            evaluate(turn);
            break;
        case 'nativeReplyArrived':
            scripts.post('reply', 0, JSON.stringify(input));
            evaluate(turn);
            break;
        default:
            // Every other input is an event of the browser.* API.
            if (!wire.eventInputs.has(input.type)) {
                write(wire.frame.error(`invalid input: type: the JavaScript runtime does not take '${input.type}' yet`));
                return;
            }
            scripts.post('event', 0, JSON.stringify(input));
            evaluate(turn);
            break;
        }
        // A script that never yields ends its incarnation, as a process the harness could not
        // reach would end: the harness names the watchdog as the cause of the death.
        if (timedOut) throw new WatchdogFired();
        // Safari hears each listener added or removed as it happens: the events the background
        // listens for go first, at the load's end (its first input) and whenever they changed.
        scripts.post('listening', 0, '');
        evaluate(turn);
        if (timedOut) throw new WatchdogFired();
        const answer = scripts.result();
        const listening = typeof answer === 'string' ? answer : '';
        if (listening !== reportedListening) {
            reportedListening = listening;
            directives.unshift(wire.directive.listen(listening.split(',').filter(Boolean)));
        }
        // The turn's storage operations, in order, each finished later by its completion.
        const operations = storageQueue;
        storageQueue = [];
        for (const operation of operations) {
            const outcome = await carryOut(operation);
            finished.set(operation.token, outcome);
            directives.push(wire.directive.storagePending(operation.token));
            // Safari hears what changed: it wakes the background for it when it listens for
            // changes, and tells the extension's own pages where they run. Without pages it
            // needs only the keys (a value may be megabytes: a frame holds one).
            if (outcome.changes !== undefined && Object.keys(outcome.changes).length > 0) {
                const changes = ownPages ? outcome.changes : Object.fromEntries(Object.keys(outcome.changes).map((key) => [key, {}]));
                directives.push(wire.directive.storageChanged(operation.area, changes));
            }
        }
        // Rejections nobody handled are reported before the input ends.
        await new Promise((resolve) => nextTask(resolve));
        // What every document shares, changed by this page's (dom.mjs): said before the input
        // ends, so that the harness knows before it gives its host to another run.
        if (page !== null && documentsChanged !== undefined && changedShared() !== null) documentsChanged();
        write(wire.frame.done(directives));
    }

    // (For keepTime, below: the clock, and the realm that takes jsdom's later work.)
    return { handle, uncaught, inTask: wantsDocument, now: () => clock.now, scripts };
}

// An attribute's value, quoted in HTML.
const escapeAttribute = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

// jsdom's reading of the clock and its own later work (dom.mjs, keepTime) are the current
// incarnation's: its clock, and its realm's timers, so that a page's document hears no real
// clock and its later work runs in the background's turns, under the watchdog. A window jsdom
// makes for a frame (an iframe's) reads the realm's clock and random numbers.
let timeKept = false;
function keepDocumentTime() {
    if (timeKept) return;
    timeKept = true;
    keepTime(() => current?.now() ?? 0, {
        window(made) { current?.scripts?.adopt(made); },
        schedule(callback, delay) {
            const scripts = current?.scripts;
            return { scripts, timer: scripts === undefined || scripts === null ? null : scripts.later(callback, delay) };
        },
        cancel(task) { if (task?.timer !== null && task?.timer !== undefined) task.scripts.cancel(task.timer); },
    });
}

// MARK: - Serving incarnations

// Thrown out of an input whose turn ran past the watchdog: the incarnation ends with
// `wire.watchdogExit`, its stack and pending work dropped where they stand.
class WatchdogFired extends Error {
    constructor() { super(`a script did not yield within ${watchdog} ms`); }
}

// Node reports a rejection nobody handled once the current task is done. It is the
// incarnation's whose input was handed over last: one input runs at a time, as the harness
// waits for each one's end or yield point before it sends another.
let current = null;
process.on('unhandledRejection', (reason) => current?.uncaught('Uncaught (in promise)', reason));

// Hands `served` each input frame `nextFrame` reads, in turn, until its input ends; `served`
// calls `afterInput` once each input is over.
async function serve(served, write, nextFrame, afterInput = () => {}) {
    for (;;) {
        const next = await nextFrame();
        if (next.done) return;
        let frame;
        try { frame = JSON.parse(next.value); } catch { write(wire.frame.error('a frame that is not JSON')); continue; }
        if (frame?.kind !== 'input') { write(wire.frame.error('expected an input frame')); continue; }
        current = served;
        // A page with a document is served from a task of node's, in which the runtime may run
        // node's queue (settle): within a microtask, node runs no other.
        const handled = served.inTask ? inTask(() => served.handle(frame)) : served.handle(frame);
        try { await handled; } catch (error) {
            if (error === inputEnded) return;
            throw error;
        }
        afterInput();
    }
}

// An incarnation's input in the host: the frames the harness sent it, read in order.
function inbox() {
    const queued = [];
    let waiting = null, ended = false;
    return {
        put(text) {
            if (waiting === null) { queued.push(text); return; }
            const wake = waiting;
            waiting = null;
            wake({ value: text, done: false });
        },
        end() {
            ended = true;
            queued.length = 0;
            if (waiting !== null) { const wake = waiting; waiting = null; wake({ value: undefined, done: true }); }
        },
        next() {
            if (queued.length > 0) return Promise.resolve({ value: queued.shift(), done: false });
            if (ended) return Promise.resolve({ value: undefined, done: true });
            return new Promise((resolve) => { waiting = resolve; });
        },
    };
}

if (process.argv.includes('--host')) {
    // Many incarnations in one process (section 14, "Where code runs"): each frame's payload begins with the
    // number of the incarnation it is for or from. An incarnation's first frame opens it
    // (`{"kind":"open","arguments":[...]}`, the arguments a process of its own would get); a
    // frame with nothing after the number ends its input, as a kill or a close would: it stops
    // where it is, and whatever it had pending is dropped with it. An incarnation that ends on
    // its own says `{"kind":"ended","code":N}`.
    const inboxes = new Map();
    // Node never frees a context that ran an ES module, and what a background kept goes with
    // it: once the heap in use passes half the limit the harness gave (`--max-old-space-size`,
    // node's own otherwise), the host asks to be replaced (`{"kind":"retire"}` as itself,
    // context 0), once, so that no incarnation runs out of the memory the ones before it kept.
    const given = process.execArgv.map((option) => /^--max-old-space-size=(\d+)$/.exec(option)).find(Boolean);
    const limit = given ? Number(given[1]) * 1024 * 1024 : v8.getHeapStatistics().heap_size_limit;
    let retiring = false;
    // Asks to be replaced, once: after an input that left the heap half full (afterInput), or
    // before the end of one in which a background page's document changed what every document
    // in the host shares (the incarnation's documentsChanged).
    const retire = () => {
        if (retiring) return;
        retiring = true;
        write(wire.frame.retire(), 0);
    };
    const afterInput = () => {
        if (v8.getHeapStatistics().used_heap_size >= limit / 2) retire();
    };
    // An incarnation in which the runtime itself fails ends as a process of its own would:
    // the error on standard error, and exit status 1 (`{"kind":"ended","code":1}`).
    const open = async (id, box, args) => {
        const say = (frame) => write(frame, id);
        const next = () => box.next();
        try {
            const served = await incarnation(say, next, option('storage', null, args), option('installed', null, args), retire);
            say(wire.frame.hello());
            await serve(served, say, next, afterInput);
        } catch (error) {
            if (error instanceof WatchdogFired) say(wire.frame.ended(wire.watchdogExit)); else {
                console.error(error);
                say(wire.frame.ended(1));
            }
            box.end();
            inboxes.delete(id);
        }
    };
    for await (const { context: id, text } of frames({ tagged: true })) {
        const box = inboxes.get(id);
        if (box !== undefined) {
            if (text !== '') { box.put(text); continue; }
            box.end();
            inboxes.delete(id);
            continue;
        }
        let frame = null;
        try { frame = JSON.parse(text); } catch {}
        if (frame?.kind !== 'open' || !Array.isArray(frame.arguments) || !frame.arguments.every((argument) => typeof argument === 'string')) {
            if (text !== '') write(wire.frame.error(`incarnation ${id} is not open: its first frame must open it`), id);
            continue;
        }
        const opened = inbox();
        inboxes.set(id, opened);
        // Made once the frames already read are served: the harness opens the next
        // incarnation ahead of need, just before it speaks to the one it took.
        nextTask(() => open(id, opened, frame.arguments));
    }
    for (const box of inboxes.values()) box.end();
    process.exit(0);
} else {
    const incoming = frames();
    const next = () => incoming.next();
    const served = await incarnation(write, next, option('storage', null), option('installed', null));
    write(wire.frame.hello());
    try { await serve(served, write, next); } catch (error) {
        if (!(error instanceof WatchdogFired)) throw error;
        console.error(error.message);
        process.exit(wire.watchdogExit);
    }
}