// Safari's tabs and windows as the background's realm gives them (PROTOCOL.md, section 14):
// each tab's number and name, the open tabs and their addresses, windows and focus as each
// input's frame says them (else as the background learned them from its start and its events),
// the calls Safari answers (`tabsCall`, `tabsAnswered`), and the members of the tabs namespace
// (but `sendMessage`, which is the pages') and of the windows namespace. `safari` is what the
// background was told (its tabs and active tab, kept by its events); `callbackForm`, `event`
// and `text` are its realm's. Nothing here reaches node.

import { jsonText, matchesPattern, tabAddress } from './realm-common.mjs';

export function tabsAndWindows({ host, safari, callbackForm, event, text }) {
    const hasOwn = Object.hasOwn;
    // A tab as scripts know it is its number (tabs.Tab.id, in the order the run opened tabs);
    // the wire, and this realm inside, name it. A name Safari gave no number stays as it is.
    const tabId = (name) => { const number = host.tabNumber(name); return number > 0 ? number : name; };
    const tabNamed = (id) => {
        if (typeof id === 'number') { const name = host.tabName(id); return name === '' ? String(id) : name; }
        return String(id);
    };
    // A tab as tabs.query, tabs.get and a sender give it: a whole tabs.Tab, in its window (as
    // the frames say; window 1 where they say none), numbered in the order the run opened tabs,
    // loaded (pages load at once here).
    // The front window's active tab: as the input's frame says it, else as the last event did.
    const activeName = () => { const named = host.activeTab(); return typeof named === 'string' && named !== '' ? named : safari.active; };
    const positive = (number) => (Number.isSafeInteger(number) && number > 0 ? number : 1);
    const frontWindow = () => positive(host.frontWindow());
    const windowOf = (name) => positive(host.tabWindow(name));
    // A window's active tab: as the frame says it, else, for the front window, the front tab.
    const activeIn = (window) => { const named = host.activeIn(window); return typeof named === 'string' && named !== '' ? named : window === frontWindow() ? activeName() : undefined; };
    // The open tabs and their addresses, as Safari has them now (the frame says them: a tab the
    // background heard nothing of is there, at its address now), else as this incarnation
    // learned them from its start and its events; in the order the run opened them.
    let saidTabs = '', openTabs = new Map();
    const currentTabs = () => {
        const said = host.openTabs();
        if (typeof said !== 'string' || said === '') return safari.tabs;
        if (said !== saidTabs) {
            let parsed;
            try { parsed = JSON.parse(said); } catch { return safari.tabs; }
            const names = Object.keys(parsed);
            const numbered = names.every((name) => typeof tabId(name) === 'number');
            if (numbered) names.sort((a, b) => tabId(a) - tabId(b));
            openTabs = new Map(names.map((name) => [name, String(parsed[name])]));
            saidTabs = said;
        }
        return openTabs;
    };
    const tabOf = (name) => {
        const tabs = currentTabs();
        const url = tabs.get(name);
        const windowId = windowOf(name);
        const active = name === activeIn(windowId);
        const index = Math.max(0, [...tabs.keys()].filter((other) => windowOf(other) === windowId).indexOf(name));
        return { id: tabId(name), index, windowId, active,
                 highlighted: active, pinned: false, incognito: false, discarded: false, autoDiscardable: true, audible: false,
                 mutedInfo: { muted: false }, status: 'complete', url };
    };
    // Safari's windows that have a tab, and the frontmost; the background's current window is
    // the frontmost, and focus is as the frame says it.
    const windows = windowMembers({
        form: callbackForm,
        current: frontWindow,
        front: frontWindow,
        focused: () => { const said = host.focusedWindow(); return Number.isSafeInteger(said) && said !== 0 ? said : frontWindow(); },
        ids: () => [...new Set([frontWindow(), ...[...currentTabs().keys()].map(windowOf)])].sort((a, b) => a - b),
        tabsIn: (id) => [...currentTabs().keys()].filter((name) => windowOf(name) === id).map(tabOf),
    });
    // The background's calls on Safari's tabs, by number, waiting for Safari's answer.
    const tabsCalls = new Map();
    let nextTabsCall = 1;
    const tabsCall = (call) => new Promise((resolve, reject) => {
        const request = nextTabsCall++;
        host.tabsCall(request, jsonText(call, 'a tabs call'));
        tabsCalls.set(request, { resolve, reject, call });
    });
    const tabsAnswered = (input) => {
        const waiting = tabsCalls.get(input.request);
        if (waiting === undefined) return;
        tabsCalls.delete(input.request);
        if (typeof input.error === 'string') { waiting.reject(new Error(input.error)); return; }
        // A script's runs, each with its result or its error; the user's answer to a prompt.
        if (input.results !== undefined) { waiting.resolve(input.results); return; }
        if (typeof input.granted === 'boolean') { waiting.resolve(input.granted); return; }
        // The tabs it closed are gone from what it knows, whether or not it hears tabs.onRemoved.
        if (waiting.call.method === 'remove') for (const name of waiting.call.tabs) safari.tabs.delete(name);
        if (typeof input.tab !== 'string') { waiting.resolve(undefined); return; }
        safari.tabs.set(input.tab, String(input.url ?? ''));
        waiting.resolve(tabOf(input.tab));
    };
    // The background's current window is the frontmost one, as its last focused is.
    const inFront = (tab, wanted) => (tab.windowId === frontWindow()) === Boolean(wanted);
    const tabFilters = {
        active: (tab, wanted) => tab.active === Boolean(wanted),
        highlighted: (tab, wanted) => tab.highlighted === Boolean(wanted),
        currentWindow: inFront,
        lastFocusedWindow: inFront,
        windowId: (tab, wanted) => wanted === tab.windowId || (wanted === -2 && tab.windowId === frontWindow()),
        windowType: (tab, wanted) => [wanted].flat().includes('normal'),
        index: (tab, wanted) => tab.index === wanted,
        status: (tab, wanted) => tab.status === wanted,
        url: (tab, wanted) => [wanted].flat().some((pattern) => matchesPattern(String(pattern), tab.url ?? '')),
        pinned: (tab, wanted) => wanted === false,
        audible: (tab, wanted) => wanted === false,
        muted: (tab, wanted) => wanted === false,
        discarded: (tab, wanted) => wanted === false,
        autoDiscardable: (tab, wanted) => wanted === true,
    };
    return {
        tabId, tabNamed, activeName, windowOf, frontWindow, currentTabs, tabOf, tabsCall, tabsAnswered,
        members: {
            onActivated: event('tabActivated'),
            onRemoved: event('tabRemoved'),
            onCreated: event('tabCreated'),
            onUpdated: event('tabUpdated'),
            // Every filter of tabs.query over Safari's tabs as this background knows them, in one
            // window in front (WINDOW_ID_CURRENT, -2, is it): `url` takes match patterns, and
            // what the harness has no notion of (sound, pinning, discarding) is never so.
            query: callbackForm((info = {}) => {
                const filters = info ?? {};
                const unknown = Object.keys(filters).filter((key) => !hasOwn(tabFilters, key));
                if (unknown.length > 0) return Promise.reject(new Error('tabs.query does not take ' + unknown.join(', ') + ' in the harness\'s runtime'));
                const tabs = [...currentTabs().keys()].map(tabOf);
                return Promise.resolve(tabs.filter((tab) => Object.entries(filters).every(([key, wanted]) => wanted === undefined || tabFilters[key](tab, wanted))));
            }),
            get: callbackForm((id) => {
                const name = tabNamed(id);
                if (!currentTabs().has(name)) return Promise.reject(new Error(`Invalid call to tabs.get(). Tab not found: ${text(id)}.`));
                return Promise.resolve(tabOf(name));
            }),
            // The background is in no tab.
            getCurrent: callbackForm(() => Promise.resolve(undefined)),
            // What Safari does to its tabs for the background, as the user would: each call's
            // promise settles when Safari answers (`tabsAnswered`). A tab it opens is named x1,
            // x2, ... on the wire, and numbered as every tab is.
            create: callbackForm((properties = {}) => tabsCall({ method: 'create', url: properties?.url === undefined ? 'about:blank' : tabAddress(properties.url, 'create'),
                                                             active: properties?.active !== false })),
            update: callbackForm((first, second) => {
                const [id, properties] = typeof first === 'object' && first !== null ? [undefined, first] : [first, second ?? {}];
                const name = id === undefined ? activeName() : tabNamed(id);
                if (name === undefined) return Promise.reject(new Error('Invalid call to tabs.update(). No tab is active.'));
                const call = { method: 'update', tab: name };
                if (properties.url !== undefined) call.url = tabAddress(properties.url, 'update');
                if (properties.active !== undefined) call.active = properties.active === true;
                return tabsCall(call);
            }),
            reload: callbackForm((id) => {
                const name = id === undefined || typeof id === 'object' ? activeName() : tabNamed(id);
                if (name === undefined) return Promise.reject(new Error('Invalid call to tabs.reload(). No tab is active.'));
                return tabsCall({ method: 'reload', tab: name }).then(() => undefined);
            }),
            remove: callbackForm((ids) => tabsCall({ method: 'remove', tabs: [ids].flat().map(tabNamed) }).then(() => undefined)),
        },
        windows: { onFocusChanged: event('windowFocus'), ...windows },
    };
}

// tabs.connect's arguments, checked as WebKit checks them: the tab (a number, or a name where
// Safari gave none) and the port's name.
export function connectArguments(args) {
    if (args.length === 0) throw new Error('Invalid call to tabs.connect(). A required argument is missing.');
    const [tab, info] = args;
    const invalid = (key, why) => new TypeError(`Invalid call to tabs.connect(). The '${key}' value is invalid, because ${why}.`);
    if (typeof tab !== 'number' && typeof tab !== 'string') throw invalid('tabId', 'a number is expected');
    if (info !== undefined && info !== null && typeof info !== 'object') throw invalid('options', 'an object is expected');
    if (info?.name !== undefined && typeof info.name !== 'string') throw invalid('name', 'a string is expected');
    return { tab, name: info?.name ?? '' };
}

// The windows namespace (WebKit's `windowsGet`, `windowsGetLastFocused`, `windowsGetAll`) over
// Safari's windows as a context knows them: `current()` (its own window), `front()` (the
// frontmost), `focused()` (-1 while another app is in front), `ids()` (every window, in order)
// and `tabsIn(id)` (a window's tabs, as tabs.query gives them); `form` gives each call its
// promise and callback forms. A window as windows.* gives it (`WebExtensionWindow::parameters`):
// focused only while Safari is in front with it frontmost, its tabs with `populate`, every one
// `normal`; its place and size are not known here and are left out.
export function windowMembers({ form, current, front, focused, ids, tabsIn }) {
    const normal = (info) => !Array.isArray(info?.windowTypes) || info.windowTypes.includes('normal');
    const windowInfo = (id, info) => {
        const window = { id, focused: focused() === id, alwaysOnTop: false, incognito: false, type: 'normal', state: 'normal' };
        if (info?.populate === true) window.tabs = tabsIn(id);
        return window;
    };
    const one = (method, id, info) => (normal(info) ? Promise.resolve(windowInfo(id, info))
        : Promise.reject(new Error(`Invalid call to windows.${method}(). Window does not match requested 'windowTypes'.`)));
    return {
        WINDOW_ID_NONE: -1,
        WINDOW_ID_CURRENT: -2,
        get: form((id, info) => {
            const wanted = id === -2 ? current() : id;
            if (!ids().includes(wanted)) return Promise.reject(new Error('Invalid call to windows.get(). Window not found.'));
            return one('get', wanted, info);
        }),
        getCurrent: form((info) => one('getCurrent', current(), info)),
        getLastFocused: form((info) => one('getLastFocused', front(), info)),
        getAll: form((info) => Promise.resolve(normal(info) ? ids().map((id) => windowInfo(id, info)) : [])),
    };
}
