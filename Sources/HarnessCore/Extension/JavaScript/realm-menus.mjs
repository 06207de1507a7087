// The context menu's namespace (PROTOCOL.md, section 14): `menus`, also named `contextMenus`,
// made in the background's realm. Safari holds the items an extension makes (WebKit's
// `WebExtensionContext` keeps `m_menuItems`), so each change sends Safari the whole list (the
// directive `menusChanged`) and the realm keeps a copy, taken again from each `started`. The
// user's choice of an item reaches `onClicked` (the input `menuClicked`), which wakes a
// background that listens for it. Nothing here reaches node.

import { jsonText } from './realm-common.mjs';

// `host.menusChanged(itemsText, changeText)` tells Safari: every item now, and the change made
// (`{op: "create" | "update", item}`, `{op: "remove", id}` or `{op: "removeAll"}`), for a context
// that tells Safari each change rather than its whole list (an extension page); `callbackForm`,
// `event` and `setLastError` are the runtime's. Returns the namespace's members, `hold(items)`, which takes Safari's copy, and
// `clicked(input, tab)`, the listeners' arguments for a `menuClicked` input.
export function menuMembers({ host, callbackForm, event, setLastError }) {
    const isArray = Array.isArray, hasOwn = Object.hasOwn, isSafeInteger = Number.isSafeInteger;
    // An id is a string or a whole number, as the wire carries it.
    const isId = (value) => typeof value === 'string' || isSafeInteger(value);
    const kinds = ['normal', 'checkbox', 'radio', 'separator'];
    let items = [];
    let generated = 0;
    const find = (id) => items.find((item) => item.id === id);
    const told = (change) => host.menusChanged(jsonText(items, 'the menu items'), jsonText(change, 'a change of the menu items'));
    // An item with a script's properties, each read once and checked as Safari checks it: a
    // copy of `item`, which stays as it was when a property is refused. A parent must exist and
    // be neither the item nor one of the items under it.
    const read = (properties, item, call) => {
        const changed = { ...item, contexts: [...item.contexts] };
        const set = (key, check, what, convert = (value) => value) => {
            if (!hasOwn(properties, key)) return;
            const value = properties[key];
            if (value === undefined) return;
            if (!check(value)) throw new TypeError(`Invalid call to menus.${call}(). '${key}' is expected to be ${what}.`);
            changed[key] = convert(value);
        };
        set('title', (value) => typeof value === 'string', 'a string');
        set('type', (value) => kinds.includes(value), 'normal, checkbox, radio or separator');
        set('contexts', (value) => isArray(value) && value.every((context) => typeof context === 'string'), 'an array of strings', (value) => [...value]);
        set('checked', (value) => typeof value === 'boolean', 'a boolean');
        set('enabled', (value) => typeof value === 'boolean', 'a boolean');
        set('visible', (value) => typeof value === 'boolean', 'a boolean');
        set('parentId', isId, 'a string or a whole number');
        if (changed.parentId !== undefined) {
            if (find(changed.parentId) === undefined) throw new Error(`Invalid call to menus.${call}(). Parent menu item not found.`);
            for (let above = changed.parentId; above !== undefined; above = find(above)?.parentId) {
                if (above === changed.id) throw new Error(`Invalid call to menus.${call}(). A menu item cannot be under itself.`);
            }
        }
        return changed;
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
                if (!isId(id)) throw new TypeError('Invalid call to menus.create(). \'id\' is expected to be a string or a whole number.');
                if (find(id) !== undefined) throw new Error(`Invalid call to menus.create(). A menu item with the identifier '${id}' already exists.`);
                const item = read(properties ?? {}, { id, title: '', contexts: ['page'], type: 'normal', checked: false, enabled: true, visible: true }, 'create');
                items.push(item);
                told({ op: 'create', item });
            } catch (error) {
                failure(callback, error);
                return id;
            }
            if (typeof callback === 'function') Promise.resolve().then(() => callback());
            return id;
        },
        update: callbackForm((id, properties = {}) => {
            const at = items.findIndex((item) => item.id === id);
            if (at < 0) return Promise.reject(new Error('Invalid call to menus.update(). Menu item not found.'));
            try { items[at] = read(properties ?? {}, items[at], 'update'); } catch (error) { return Promise.reject(error); }
            told({ op: 'update', item: items[at] });
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
            told({ op: 'remove', id });
            return Promise.resolve(undefined);
        }),
        removeAll: callbackForm(() => {
            items = [];
            told({ op: 'removeAll' });
            return Promise.resolve(undefined);
        }),
    };
    // Safari's copy, as `started` gives it; and the item a choice names, kept as Safari checked it.
    // (A new background numbers the items it makes with no id after those Safari holds.)
    const hold = (held) => {
        items = isArray(held) ? held.map((item) => ({ ...item, contexts: [...(item.contexts ?? [])] })) : [];
        generated = items.reduce((highest, item) => (isSafeInteger(item.id) && item.id > highest ? item.id : highest), 0);
    };
    const clicked = (input, tab) => {
        const item = find(input.id);
        // Safari checked a checkbox or unchecked it, and checked a radio item and unchecked
        // the radio items beside it: the copy follows.
        if (item !== undefined && item.type === 'radio' && input.checked === true) {
            for (const other of items) if (other.type === 'radio' && other.parentId === item.parentId) other.checked = false;
        }
        if (item !== undefined && typeof input.checked === 'boolean') item.checked = input.checked;
        const info = { menuItemId: input.id, editable: false, pageUrl: input.url, frameId: 0 };
        if (input.parentId !== undefined) info.parentMenuItemId = input.parentId;
        if (typeof input.checked === 'boolean') { info.checked = input.checked; info.wasChecked = input.wasChecked === true; }
        return [info, tab];
    };
    return { members, hold, clicked };
}
