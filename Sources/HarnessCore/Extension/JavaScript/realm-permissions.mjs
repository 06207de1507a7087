// The permissions namespace (PROTOCOL.md, section 14), made in the background's realm: what
// the manifest grants (`permissions`, and `host_permissions`, or V2's match patterns among its
// permissions) with what the user granted since (Safari keeps it with the profile's extension
// storage, `permissions.json`); an origin asked about is granted when a granted pattern covers
// its scheme, every host and every path it names. `request` asks Safari to prompt the user for
// the optional ones, during a user gesture only, and `remove` gives back what the user granted
// (WebKit, `WebExtensionAPIPermissions`); Safari fires `onAdded` and `onRemoved` for what was
// granted or given back. Nothing here reaches node.

// What the manifest grants: its permissions by name, and the hosts' match patterns. V3 grants
// hosts in host_permissions only; V2 names them among its permissions.
export function manifestGrants(manifest) {
    const isArray = Array.isArray;
    const listed = (isArray(manifest.permissions) ? manifest.permissions : []).map(String);
    const isPattern = (text) => text === '<all_urls>' || text.includes('://');
    return {
        permissions: listed.filter((name) => !isPattern(name)),
        origins: [...(manifest.manifest_version === 2 ? listed.filter(isPattern) : []),
                  ...(isArray(manifest.host_permissions) ? manifest.host_permissions.map(String) : [])],
    };
}

// What the user granted the extension, as Safari keeps it with its storage (`keep(name, '')`
// reads a kept file; a file that is not the kept form grants nothing).
export function grantedByUser(keep) {
    const isArray = Array.isArray;
    let kept;
    try { kept = JSON.parse(keep('permissions', '') || '{}'); } catch { kept = {}; }
    return { permissions: isArray(kept?.permissions) ? kept.permissions.map(String) : [], origins: isArray(kept?.origins) ? kept.origins.map(String) : [] };
}

// The permission names a context has as it starts: the manifest's, with what the user granted
// before (an API the user granted since is there from the next background or page load on).
export function permissionNames(manifest, keep) {
    return [...new Set([...(Array.isArray(manifest.permissions) ? manifest.permissions.map(String) : []), ...grantedByUser(keep).permissions])];
}

// Permission names WebKit supports (`WebExtension::supportedPermissions`, as the manifest
// reader knows them).
const supported = ['activeTab', 'alarms', 'clipboardWrite', 'contextMenus', 'cookies', 'declarativeNetRequest', 'declarativeNetRequestFeedback',
                   'declarativeNetRequestWithHostAccess', 'menus', 'nativeMessaging', 'notifications', 'scripting', 'storage', 'tabs',
                   'unlimitedStorage', 'webNavigation', 'webRequest'];

// `inGesture`: whether the background is handling a user's gesture now (action.onClicked,
// commands.onCommand, menus.onClicked, synchronously); `tabsCall`: asks Safari, which answers;
// `keep`: the profile's kept files (`keep(name, '')` reads one); `gaveBack(permissions,
// origins)`: tells Safari what `remove` took back; `onAdded`, `onRemoved`: the context's events.
export function permissionMembers({ manifest, callbackForm, inGesture, tabsCall, keep, gaveBack, onAdded, onRemoved }) {
    const isArray = Array.isArray, Pattern = RegExp, exec = (pattern, text) => pattern.exec(text);
    const required = manifestGrants(manifest);
    const listed = (key) => (isArray(manifest[key]) ? manifest[key].map(String) : []);
    const isPattern = (text) => text === '<all_urls>' || text.includes('://');
    const optional = { permissions: listed('optional_permissions').filter((name) => !isPattern(name)),
                       origins: [...listed('optional_permissions').filter(isPattern), ...listed('optional_host_permissions')] };
    const granted = () => grantedByUser(keep);
    // What the extension holds now: the manifest's grants, and what the user granted.
    const held = () => {
        const extra = granted();
        return { permissions: [...new Set([...required.permissions, ...extra.permissions])], origins: [...new Set([...required.origins, ...extra.origins])] };
    };
    // A match pattern's scheme, host and path.
    const shape = /^(\*|https?|wss?|file|ftp):\/\/([^/]*)(\/.*)$/;
    const schemeCovers = (granted, asked) => granted === asked || (granted === '*' && ['http', 'https', '*'].includes(asked));
    const hostCovers = (granted, asked) => {
        if (granted === '*' || granted === asked) return true;
        if (!granted.startsWith('*.')) return false;
        const domain = granted.slice(2), host = asked.startsWith('*.') ? asked.slice(2) : asked;
        return host === domain || host.endsWith('.' + domain);
    };
    // The granted path, its * any run of characters, matches the asked one, whose * is a character.
    const pathCovers = (granted, asked) => new Pattern('^' + granted.split('*').map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$').test(asked);
    // An origin asked about (a match pattern) is covered by `patterns` when one covers it all:
    // its scheme, every host it names and every path (`anyPath`: whatever its path).
    const covers = (patterns, asked, anyPath = false) => patterns.some((granted) => {
        if (granted === '<all_urls>') return asked === '<all_urls>' || exec(shape, String(asked)) !== null;
        const [g, a] = [exec(shape, granted), exec(shape, String(asked))];
        return g !== null && a !== null && schemeCovers(g[1], a[1]) && hostCovers(g[2], a[2]) && (anyPath || pathCovers(g[3], a[3]));
    });
    const holds = (asked) => {
        const now = held();
        return asked.permissions.every((name) => now.permissions.includes(name)) && asked.origins.every((origin) => covers(now.origins, origin));
    };
    // What a call asks for, read and checked as WebKit does (`parseDetailsDictionary`,
    // `validatePermissionsDetails`, `verifyRequestedPermissions`); the error's words, or the request.
    const read = (method, details, removing) => {
        const invalid = (key, why) => ({ error: `Invalid call to permissions.${method}(). The '${key}' value is invalid, because ${why}.` });
        const asked = { permissions: [], origins: [] };
        for (const key of ['permissions', 'origins']) {
            const value = details?.[key];
            if (value === undefined) continue;
            if (!isArray(value) || !value.every((item) => typeof item === 'string')) return invalid(key, 'an array of strings is expected');
            asked[key] = [...new Set(value)];
        }
        const badName = asked.permissions.find((name) => !supported.includes(name));
        if (badName !== undefined) return invalid('permissions', `'${badName}' is not a valid permission`);
        const badPattern = asked.origins.find((origin) => origin !== '<all_urls>' && exec(shape, origin) === null);
        if (badPattern !== undefined) return invalid('origins', `'${badPattern}' is not a valid pattern`);
        if (!removing && !inGesture()) return { error: `Invalid call to permissions.${method}(). Must be called during a user gesture.` };
        if (removing && (asked.permissions.some((name) => required.permissions.includes(name))
                         || asked.origins.some((origin) => covers(required.origins, origin, true)))) {
            return invalid(asked.permissions.some((name) => required.permissions.includes(name)) ? 'permissions' : 'origins', 'required permissions cannot be removed');
        }
        const allowed = { permissions: [...required.permissions, ...optional.permissions], origins: [...required.origins, ...optional.origins] };
        const undeclared = asked.permissions.some((name) => !allowed.permissions.includes(name)) ? 'permissions'
            : asked.origins.some((origin) => !covers(allowed.origins, origin, true)) ? 'origins' : undefined;
        if (undeclared !== undefined) return invalid(undeclared, `only permissions specified in the manifest may be ${removing ? 'removed' : 'requested'}`);
        return { asked };
    };
    return { held, members: {
        onAdded,
        onRemoved,
        getAll: callbackForm(() => Promise.resolve(held())),
        contains: callbackForm((asked = {}) => Promise.resolve(holds({ permissions: (isArray(asked?.permissions) ? asked.permissions : []).map(String),
                                                                      origins: (isArray(asked?.origins) ? asked.origins : []).map(String) }))),
        // What the extension holds already is granted at once; the rest, what it does not hold
        // yet, is Safari's prompt, answered by the user (`permission grant` or `permission
        // refuse`). A request for nothing goes to Safari too, which grants it and fires an
        // empty onAdded (WebKit, `permissionsRequest`).
        request: callbackForm((details) => {
            const { error, asked } = read('request', details, false);
            if (error !== undefined) return Promise.reject(new Error(error));
            const empty = asked.permissions.length === 0 && asked.origins.length === 0;
            if (!empty && holds(asked)) return Promise.resolve(true);
            const now = held();
            return tabsCall({ method: 'requestPermissions', permissions: asked.permissions.filter((name) => !now.permissions.includes(name)),
                              origins: asked.origins.filter((origin) => !covers(now.origins, origin)) });
        }),
        // What the user granted goes, a host pattern with every granted one it covers or that
        // covers it; the manifest's own cannot. It answers whether the extension no longer holds
        // what was named (WebKit, `permissionsRemove`: `removeGrantedPermissionMatchPatterns`,
        // then `!hasPermissions`). Safari hears what went, and fires onRemoved with it.
        remove: callbackForm((details) => {
            const { error, asked } = read('remove', details, true);
            if (error !== undefined) return Promise.reject(new Error(error));
            const extra = granted();
            const overlaps = (origin) => asked.origins.some((named) => covers([named], origin) || covers([origin], named));
            const goes = { permissions: extra.permissions.filter((name) => asked.permissions.includes(name)), origins: extra.origins.filter(overlaps) };
            if (goes.permissions.length > 0 || goes.origins.length > 0) {
                keep('permissions', JSON.stringify({ permissions: extra.permissions.filter((name) => !goes.permissions.includes(name)),
                                                     origins: extra.origins.filter((origin) => !goes.origins.includes(origin)) }));
                gaveBack(goes.permissions, goes.origins);
            }
            return Promise.resolve(!holds(asked));
        }),
    } };
}
