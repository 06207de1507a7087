// The toolbar item's namespace (PROTOCOL.md, section 14): `action` (Manifest V3), or
// `browserAction` and `pageAction` (V2), made in the background's realm. Safari holds what the
// extension sets (WebKit's `WebExtensionContext` keeps the actions), so each set goes out as the
// directive `actionSet` and the realm keeps a copy, taken again from each `started`: a getter
// answers from it, a tab's value falling back to the default's, then to the manifest's. Nothing
// here reaches node.

import { jsonText } from './realm-common.mjs';

// `key`: the manifest's key (`action`, `browser_action` or `page_action`) and the namespace's
// name (`name`); `host.actionSet(tab, property, valueText)` tells Safari (tab '' for every tab);
// `tabNamed(id)` and `knowsTab(name)` read a tab id; `callbackForm` and `event` are the
// runtime's. Returns the namespace's members and `hold(action)`, which takes Safari's copy.
export function actionMembers({ manifest, key, name, host, tabNamed, knowsTab, callbackForm, event }) {
    const hasOwn = Object.hasOwn, entries = Object.entries, fromEntries = Object.fromEntries;
    const declared = manifest[key] ?? {};
    const defaults = { badgeText: '', title: typeof declared.default_title === 'string' ? declared.default_title : '',
                       popup: typeof declared.default_popup === 'string' ? declared.default_popup : '', enabled: key !== 'page_action' };
    let shared = {}, tabs = {};
    const valueOf = (property, tab) => {
        if (tab !== undefined && hasOwn(tabs[tab] ?? {}, property)) return tabs[tab][property];
        return hasOwn(shared, property) ? shared[property] : defaults[property];
    };
    const failure = (call, why) => Promise.reject(new Error(`Invalid call to ${name}.${call}(). ${why}`));
    // The tab a call's details name, by its id: undefined for every tab.
    const tabOf = (details) => {
        if (details?.windowId !== undefined && details?.windowId !== null) return { error: 'The harness\'s runtime keeps no action for a window: give a tabId.' };
        if (details?.tabId === undefined || details?.tabId === null) return { tab: undefined };
        const tab = tabNamed(details.tabId);
        return knowsTab(tab) ? { tab } : { error: `Tab not found: ${details.tabId}.` };
    };
    const set = (call, property, details, value) => {
        const { tab, error } = tabOf(details);
        if (error !== undefined) return failure(call, error);
        const target = tab === undefined ? shared : (tabs[tab] ??= {});
        if (value === null) delete target[property]; else target[property] = value;
        host.actionSet(tab ?? '', property, jsonText(value, 'an action\'s ' + property));
        return Promise.resolve(undefined);
    };
    const get = (call, property, details) => {
        const { tab, error } = tabOf(details);
        return error !== undefined ? failure(call, error) : Promise.resolve(valueOf(property, tab));
    };
    const text = (value) => (value === undefined || value === null ? null : String(value));
    const members = {
        // A click on the item where it has no popup: (tab, info), waking a background that listens.
        onClicked: event('actionClicked'),
        setBadgeText: callbackForm((details) => set('setBadgeText', 'badgeText', details, text(details?.text))),
        getBadgeText: callbackForm((details) => get('getBadgeText', 'badgeText', details)),
        // Safari keeps no badge colour: it answers opaque red whatever was set
        // (`WebExtensionAPIAction::getBadgeBackgroundColor`).
        setBadgeBackgroundColor: callbackForm(() => Promise.resolve(undefined)),
        getBadgeBackgroundColor: callbackForm(() => Promise.resolve([255, 0, 0, 255])),
        setTitle: callbackForm((details) => set('setTitle', 'title', details, text(details?.title))),
        getTitle: callbackForm((details) => get('getTitle', 'title', details)),
        setPopup: callbackForm((details) => set('setPopup', 'popup', details, text(details?.popup))),
        getPopup: callbackForm((details) => get('getPopup', 'popup', details)),
        setIcon: callbackForm((details) => {
            // Safari draws the icon; the harness keeps its paths (or says an image was given).
            const icon = details?.path !== undefined ? details.path : details?.imageData !== undefined ? 'imageData' : null;
            return set('setIcon', 'icon', details, icon);
        }),
    };
    const byTab = (call, property, value) => callbackForm((tabId) => set(call, property, typeof tabId === 'number' ? { tabId } : undefined, value));
    if (key === 'page_action') {
        members.show = byTab('show', 'enabled', true);
        members.hide = byTab('hide', 'enabled', false);
        members.isShown = callbackForm((details) => get('isShown', 'enabled', details));
    } else {
        members.enable = byTab('enable', 'enabled', true);
        members.disable = byTab('disable', 'enabled', false);
        members.isEnabled = callbackForm((details) => get('isEnabled', 'enabled', details));
    }
    // Safari's copy, as `started` gives it ({default, tabs}).
    const hold = (action) => {
        shared = { ...(action?.default ?? {}) };
        tabs = fromEntries(entries(action?.tabs ?? {}).map(([tab, values]) => [tab, { ...values }]));
    };
    return { members, hold };
}

// The toolbar item's namespaces a context has (`present`: the namespaces Safari gives it): each
// of `action`, `browserAction` and `pageAction` there, by name, made by `actionMembers` with
// `options` (all but `key` and `name`), and `hold(action)`, which takes Safari's copy for all.
export function actionNamespaces(present, options) {
    const spaces = {}, holders = [];
    for (const [name, key] of [['action', 'action'], ['browserAction', 'browser_action'], ['pageAction', 'page_action']]) {
        if (!present.has(name)) continue;
        const { members, hold } = actionMembers({ ...options, key, name });
        spaces[name] = members;
        holders.push(hold);
    }
    return { spaces, hold: (action) => { for (const hold of holders) hold(action); } };
}
