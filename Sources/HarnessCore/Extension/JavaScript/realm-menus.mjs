// The context menu's namespace (PROTOCOL.md, section 14): `menus`, also named `contextMenus`,
// made in the background's realm. Safari holds the items an extension makes (WebKit's
// `WebExtensionContext` keeps `m_menuItems`), so each change sends Safari the whole list (the
// directive `menusChanged`) and the realm keeps a copy, taken again from each `started`. The
// user's choice of an item reaches `onClicked` (the input `menuClicked`), which wakes a
// background that listens for it. Nothing here reaches node.

import { jsonText } from './realm-common.mjs';

// `host.menusChanged(itemsText)` tells Safari; `callbackForm`, `event` and `setLastError` are
// the runtime's. Returns the namespace's members, `hold(items)`, which takes Safari's copy, and
// `clicked(input, tab)`, the listeners' arguments for a `menuClicked` input.
export function menuMembers({ host, callbackForm, event, setLastError }) {
    const isArray = Array.isArray, hasOwn = Object.hasOwn;
    const kinds = ['normal', 'checkbox', 'radio', 'separator'];
    let items = [];
    let generated = 0;
    const find = (id) => items.find((item) => item.id === id);
    const told = () => host.menusChanged(jsonText(items, 'the menu items'));
    // An item's properties as a script gives them, checked as Safari checks them.
    const read = (properties, item, call) => {
        const set = (key, check, what, convert = (value) => value) => {
            if (!hasOwn(properties, key) || properties[key] === undefined) return;
            if (!check(properties[key])) throw new TypeError(`Invalid call to menus.${call}(). '${key}' is expected to be ${what}.`);
            item[key] = convert(properties[key]);
        };
        set('title', (value) => typeof value === 'string', 'a string');
        set('type', (value) => kinds.includes(value), 'normal, checkbox, radio or separator');
        set('contexts', (value) => isArray(value) && value.every((context) => typeof context === 'string'), 'an array of strings', (value) => [...value]);
        set('checked', (value) => typeof value === 'boolean', 'a boolean');
        set('enabled', (value) => typeof value === 'boolean', 'a boolean');
        set('visible', (value) => typeof value === 'boolean', 'a boolean');
        set('parentId', (value) => typeof value === 'string' || typeof value === 'number', 'a string or a number');
        if (item.parentId !== undefined && find(item.parentId) === undefined) throw new Error(`Invalid call to menus.${call}(). Parent menu item not found.`);
        return item;
    };
    const failure = (callback, error) => {
        // As a promise-less call reports it: through runtime.lastError in its callback.
        if (typeof callback !== 'function') throw error;
        setLastError({ message: error.message });
        try { callback(); } finally { setLastError(undefined); }
    };
    const members = {
        onClicked: event('menuClicked'),
        ACTION_MENU_TOP_LEVEL_LIMIT: 6,
        // menus.create returns the item's id at once; the callback hears when it is made.
        create(properties = {}, callback) {
            const id = properties?.id !== undefined ? properties.id : ++generated;
            try {
                if (typeof id !== 'string' && typeof id !== 'number') throw new TypeError('Invalid call to menus.create(). \'id\' is expected to be a string.');
                if (find(id) !== undefined) throw new Error(`Invalid call to menus.create(). A menu item with the identifier '${id}' already exists.`);
                const item = read(properties ?? {}, { id, title: '', contexts: ['page'], type: 'normal', checked: false, enabled: true, visible: true }, 'create');
                items.push(item);
                told();
            } catch (error) {
                failure(callback, error);
                return id;
            }
            if (typeof callback === 'function') Promise.resolve().then(() => callback());
            return id;
        },
        update: callbackForm((id, properties = {}) => {
            const item = find(id);
            if (item === undefined) return Promise.reject(new Error('Invalid call to menus.update(). Menu item not found.'));
            try { read(properties ?? {}, item, 'update'); } catch (error) { return Promise.reject(error); }
            told();
            return Promise.resolve(undefined);
        }),
        // An item goes with the items made under it.
        remove: callbackForm((id) => {
            if (find(id) === undefined) return Promise.reject(new Error('Invalid call to menus.remove(). Menu item not found.'));
            const gone = new Set([id]);
            for (let grew = true; grew;) {
                grew = false;
                for (const item of items) if (item.parentId !== undefined && gone.has(item.parentId) && !gone.has(item.id)) { gone.add(item.id); grew = true; }
            }
            items = items.filter((item) => !gone.has(item.id));
            told();
            return Promise.resolve(undefined);
        }),
        removeAll: callbackForm(() => {
            items = [];
            told();
            return Promise.resolve(undefined);
        }),
    };
    // Safari's copy, as `started` gives it; and the item a choice names, kept as Safari checked it.
    const hold = (held) => { items = isArray(held) ? held.map((item) => ({ ...item, contexts: [...(item.contexts ?? [])] })) : []; };
    const clicked = (input, tab) => {
        const item = find(input.id);
        if (item !== undefined && typeof input.checked === 'boolean') item.checked = input.checked;
        const info = { menuItemId: input.id, editable: false, pageUrl: input.url, frameId: 0 };
        if (input.parentId !== undefined) info.parentMenuItemId = input.parentId;
        if (typeof input.checked === 'boolean') { info.checked = input.checked; info.wasChecked = input.wasChecked === true; }
        return [info, tab];
    };
    return { members, hold, clicked };
}
