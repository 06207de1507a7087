// The permissions namespace's reading half (PROTOCOL.md, section 14), made in the background's
// realm: what the manifest grants (`permissions`, and `host_permissions`, or V2's match
// patterns among its permissions). Optional permissions are not granted, since no step answers
// a `permissions.request` yet (it throws, naming itself). Nothing here reaches node.

import { matchesPattern } from './realm-common.mjs';

export function permissionMembers({ manifest, callbackForm }) {
    const isArray = Array.isArray;
    const listed = (isArray(manifest.permissions) ? manifest.permissions : []).map(String);
    const isPattern = (text) => text === '<all_urls>' || text.includes('://');
    const permissions = listed.filter((name) => !isPattern(name));
    const origins = [...listed.filter(isPattern), ...(isArray(manifest.host_permissions) ? manifest.host_permissions.map(String) : [])];
    // An origin asked about is granted when a granted pattern covers it: the same pattern, or an
    // address the pattern matches (its wildcards read as any host or path).
    const covers = (asked) => origins.includes(asked) || origins.includes('<all_urls>')
        || origins.some((pattern) => matchesPattern(pattern, String(asked).replace(/\*\./g, '').replace(/\*$/, '')));
    return {
        getAll: callbackForm(() => Promise.resolve({ permissions: [...permissions], origins: [...origins] })),
        contains: callbackForm((asked = {}) => Promise.resolve(
            (isArray(asked?.permissions) ? asked.permissions : []).every((name) => permissions.includes(String(name)))
            && (isArray(asked?.origins) ? asked.origins : []).every(covers))),
    };
}
