// The permissions namespace's reading half (PROTOCOL.md, section 14), made in the background's
// realm: what the manifest grants (`permissions`, and `host_permissions`, or V2's match
// patterns among its permissions; an origin asked about is granted when a granted pattern
// covers its scheme, every host and every path it names). Optional permissions are not granted, since no step answers
// a `permissions.request` yet (it throws, naming itself). Nothing here reaches node.

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

export function permissionMembers({ manifest, callbackForm }) {
    const isArray = Array.isArray, Pattern = RegExp, exec = (pattern, text) => pattern.exec(text);
    const { permissions, origins } = manifestGrants(manifest);
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
    // An origin asked about (a match pattern) is granted when a granted pattern covers it all:
    // its scheme, every host it names and every path.
    const covers = (asked) => origins.some((granted) => {
        if (granted === '<all_urls>') return asked === '<all_urls>' || exec(shape, String(asked)) !== null;
        const [g, a] = [exec(shape, granted), exec(shape, String(asked))];
        return g !== null && a !== null && schemeCovers(g[1], a[1]) && hostCovers(g[2], a[2]) && pathCovers(g[3], a[3]);
    });
    return {
        getAll: callbackForm(() => Promise.resolve({ permissions: [...permissions], origins: [...origins] })),
        contains: callbackForm((asked = {}) => Promise.resolve(
            (isArray(asked?.permissions) ? asked.permissions : []).every((name) => permissions.includes(String(name)))
            && (isArray(asked?.origins) ? asked.origins : []).every(covers))),
    };
}
