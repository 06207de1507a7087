// The scripting namespace, and Manifest V2's tabs.executeScript, insertCSS and removeCSS
// (PROTOCOL.md, section 14), made in the background's realm. Safari runs a script, or adds or
// removes a style sheet, in a tab's page, in its content scripts' world: the background asks with
// a `tabsCall` (method `executeScript`, `insertCSS` or `removeCSS`) and Safari answers when the
// page did it (`tabsAnswered`, with each run's result for a script). Registered content scripts
// are kept as Safari keeps them (`host.keep(name, text?)` reads a kept JSON file, or writes it
// when given text): `content-scripts` for good, `content-scripts-session` until Safari quits; the
// pages read them at each load. Nothing here reaches node.

import { jsonText, matchesPattern } from './realm-common.mjs';

// `tabsCall(call)` is the runtime's promise of Safari's answer; `tabNamed` and `tabURL` read a
// tab as this background knows it; `activeName()` is the front window's active tab.
// `held()`: the permissions and hosts the extension holds now (realm-permissions.mjs).
export function scriptingMembers({ manifest, host, callbackForm, tabsCall, tabNamed, tabURL, activeName, held }) {
    const isArray = Array.isArray, parse = JSON.parse;
    // WebKit's words for a call it refuses (`toErrorString`): the call, then why.
    const refuse = (call, why) => Promise.reject(new Error(`Invalid call to ${call}(). ${why}`));
    const strings = (value) => isArray(value) && value.every((item) => typeof item === 'string');

    // The hosts Safari may let the extension into: its host permissions (V2 names them among its
    // permissions), those the user granted since (`permissions.request`), and its content
    // scripts' matches (WebKit's requested match patterns). The user is taken to have granted
    // the manifest's when Safari asked. `activeTab` opens the front window's active tab, as after
    // the gesture (a click on the toolbar item, a command, a menu item) that grants it.
    const matches = isArray(manifest.content_scripts) ? manifest.content_scripts.flatMap((entry) => strings(entry?.matches) ? entry.matches : []) : [];
    // (A tab that is not open goes to Safari, which says so.)
    const mayEnter = (name) => {
        const url = tabURL(name);
        if (url === undefined) return true;
        const now = held();
        return (now.permissions.includes('activeTab') && name === activeName()) || [...now.origins, ...matches].some((pattern) => matchesPattern(pattern, url));
    };

    // An injection's tab, by its target (`{tabId}`), checked as Safari checks it.
    const targetTab = (call, target) => {
        if (target === null || typeof target !== 'object') return { why: 'The \'target\' value is invalid, because an object is expected.' };
        if (typeof target.tabId !== 'number') return { why: 'The \'target.tabId\' value is invalid, because a number is expected.' };
        return { name: tabNamed(target.tabId) };
    };
    // Safari's answer to an injection: its results, or its refusal in WebKit's words.
    const injected = (call, request) => tabsCall(request).then(
        (answer) => answer,
        (error) => { const why = String(error.message); throw new Error(`Invalid call to ${call}(). ${why.charAt(0).toUpperCase() + why.slice(1)}.`); });
    const inject = (call, method, name, source) => {
        if (!mayEnter(name)) return refuse(call, 'This extension does not have access to this tab.');
        return injected(call, { method, tab: name, ...source });
    };

    // What a script or a sheet is: exactly one of its sources.
    const scriptSource = (call, details) => {
        const given = ['func', 'files'].filter((key) => details[key] !== undefined);
        if (given.length !== 1) return { why: 'It is required to specify either \'func\' or \'files\', and not both.' };
        if (given[0] === 'files') return strings(details.files) ? { source: { files: [...details.files] } } : { why: 'The \'files\' value is invalid, because an array of strings is expected.' };
        if (typeof details.func !== 'function') return { why: 'The \'func\' value is invalid, because a function is expected.' };
        if (details.args !== undefined && !isArray(details.args)) return { why: 'The \'args\' value is invalid, because an array is expected.' };
        return { source: { func: String(details.func), args: parse(jsonText(details.args ?? [], 'scripting.executeScript\'s args')) } };
    };
    const sheetSource = (details) => {
        const given = ['css', 'files'].filter((key) => details[key] !== undefined);
        if (given.length !== 1) return { why: 'It is required to specify either \'css\' or \'files\', and not both.' };
        if (given[0] === 'files') return strings(details.files) ? { source: { files: [...details.files] } } : { why: 'The \'files\' value is invalid, because an array of strings is expected.' };
        return typeof details.css === 'string' ? { source: { code: details.css } } : { why: 'The \'css\' value is invalid, because a string is expected.' };
    };
    const injection = (call, method, details, read) => {
        if (details === null || typeof details !== 'object') return refuse(call, 'An object is expected.');
        const target = targetTab(call, details.target);
        if (target.why !== undefined) return refuse(call, target.why);
        const { source, why } = read(details);
        if (why !== undefined) return refuse(call, why);
        return inject(call, method, target.name, source);
    };

    // Registered content scripts: kept by id, read back as registered.
    // A file that is not a list is said, never written over.
    const kept = (name) => {
        const text = host.keep(name, '');
        if (typeof text !== 'string' || text === '') return [];
        let scripts;
        try { scripts = parse(text); } catch {}
        if (!isArray(scripts)) throw new Error(`Safari's registered content scripts (${name}.json) cannot be read: not a list of scripts`);
        return scripts;
    };
    const registered = () => [...kept('content-scripts'), ...kept('content-scripts-session')];
    const keep = (scripts) => {
        host.keep('content-scripts', jsonText(scripts.filter((script) => script.persistAcrossSessions !== false), 'the registered scripts'));
        host.keep('content-scripts-session', jsonText(scripts.filter((script) => script.persistAcrossSessions === false), 'the registered scripts'));
    };
    // A registered script as Safari takes it: an id not starting with _, matches, and a script
    // or a sheet; it runs at document_idle unless it says otherwise.
    const runTimes = ['document_start', 'document_end', 'document_idle'];
    const registration = (script, first) => {
        if (script === null || typeof script !== 'object') return { why: 'A script is expected to be an object.' };
        if (typeof script.id !== 'string' || script.id === '') return { why: 'The \'id\' value is invalid, because a non-empty string is expected.' };
        if (script.id.startsWith('_')) return { why: `The 'id' value is invalid, because '${script.id}' starts with '_'.` };
        for (const key of ['matches', 'excludeMatches', 'js', 'css']) {
            if (script[key] !== undefined && !strings(script[key])) return { why: `The '${key}' value is invalid, because an array of strings is expected.` };
        }
        if (script.runAt !== undefined && !runTimes.includes(script.runAt)) return { why: `The 'runAt' value is invalid, because it is not one of ${runTimes.join(', ')}.` };
        if (first && (script.matches ?? []).length === 0) return { why: `Script with ID '${script.id}' has no 'matches'.` };
        if (first && (script.js ?? []).length === 0 && (script.css ?? []).length === 0) return { why: `Script with ID '${script.id}' has neither 'js' nor 'css'.` };
        const copy = { id: script.id };
        for (const key of ['matches', 'excludeMatches', 'js', 'css']) if (script[key] !== undefined) copy[key] = [...script[key]];
        for (const key of ['allFrames', 'persistAcrossSessions', 'matchOriginAsFallback']) if (script[key] !== undefined) copy[key] = script[key] === true;
        if (script.runAt !== undefined) copy.runAt = script.runAt;
        if (script.world !== undefined) copy.world = String(script.world);
        return { script: copy };
    };
    const shown = (script) => ({ runAt: 'document_idle', allFrames: false, persistAcrossSessions: true, ...script });

    const members = {
        executeScript: callbackForm((details) => injection('scripting.executeScript', 'executeScript', details, (given) => scriptSource('scripting.executeScript', given))),
        insertCSS: callbackForm((details) => injection('scripting.insertCSS', 'insertCSS', details, sheetSource).then(() => undefined)),
        removeCSS: callbackForm((details) => injection('scripting.removeCSS', 'removeCSS', details, sheetSource).then(() => undefined)),
        registerContentScripts: callbackForm((scripts) => {
            const call = 'scripting.registerContentScripts';
            if (!isArray(scripts)) return refuse(call, 'An array of scripts is expected.');
            const all = registered(), adding = [];
            for (const given of scripts) {
                const { script, why } = registration(given, true);
                if (why !== undefined) return refuse(call, why);
                if (all.some((held) => held.id === script.id) || adding.some((held) => held.id === script.id)) return refuse(call, `Duplicate ID '${script.id}'.`);
                adding.push(script);
            }
            keep([...all, ...adding]);
            return Promise.resolve(undefined);
        }),
        updateContentScripts: callbackForm((scripts) => {
            const call = 'scripting.updateContentScripts';
            if (!isArray(scripts)) return refuse(call, 'An array of scripts is expected.');
            const all = registered();
            for (const given of scripts) {
                const { script, why } = registration(given, false);
                if (why !== undefined) return refuse(call, why);
                const at = all.findIndex((held) => held.id === script.id);
                if (at < 0) return refuse(call, `No existing script with ID '${script.id}'.`);
                all[at] = { ...all[at], ...script };
            }
            keep(all);
            return Promise.resolve(undefined);
        }),
        getRegisteredContentScripts: callbackForm((filter = {}) => {
            const ids = isArray(filter?.ids) ? filter.ids.map(String) : null;
            return Promise.resolve(registered().filter((script) => ids === null || ids.includes(script.id)).map(shown));
        }),
        unregisterContentScripts: callbackForm((filter = {}) => {
            const all = registered();
            const ids = isArray(filter?.ids) ? filter.ids.map(String) : all.map((script) => script.id);
            const unknown = ids.find((id) => !all.some((script) => script.id === id));
            if (unknown !== undefined) return refuse('scripting.unregisterContentScripts', `No script with ID '${unknown}'.`);
            keep(all.filter((script) => !ids.includes(script.id)));
            return Promise.resolve(undefined);
        }),
    };

    // Manifest V2's forms on tabs: an optional tab (the front window's active one when left
    // out), and `code` or `file`; a script's promise gives each run's result alone.
    const v2 = (call, method) => callbackForm((first, second) => {
        // (`null` or no tab is the front window's active one.)
        const [id, details] = first !== null && typeof first === 'object' ? [undefined, first] : [first, second];
        const name = id === undefined || id === null ? activeName() : tabNamed(id);
        if (name === undefined) return refuse(call, 'No tab is active.');
        if (details === null || typeof details !== 'object') return refuse(call, 'An object is expected.');
        const given = ['code', 'file'].filter((key) => details[key] !== undefined);
        if (given.length !== 1) return refuse(call, 'It is required to specify either \'code\' or \'file\', and not both.');
        if (typeof details[given[0]] !== 'string') return refuse(call, `The '${given[0]}' value is invalid, because a string is expected.`);
        const source = given[0] === 'code' ? { code: details.code } : { files: [details.file] };
        const done = inject(call, method, name, source);
        if (method !== 'executeScript') return done.then(() => undefined);
        return done.then((results) => {
            const failed = (results ?? []).find((result) => typeof result?.error === 'string');
            if (failed !== undefined) throw new Error(failed.error);
            return (results ?? []).map((result) => result?.result);
        });
    });
    const tabs = {
        executeScript: v2('tabs.executeScript', 'executeScript'),
        insertCSS: v2('tabs.insertCSS', 'insertCSS'),
        removeCSS: v2('tabs.removeCSS', 'removeCSS'),
    };
    return { members, tabs };
}
