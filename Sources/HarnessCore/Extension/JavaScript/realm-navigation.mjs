// The webNavigation namespace (PROTOCOL.md, section 14), made in the background's realm: its
// four events of a tab's page load, each a listener type Safari wakes a background for. Safari
// gives each `{url, tabId, frameId}` (WebKit's `WebExtensionContextProxy::dispatchWebNavigation…
// Event`), and a listener may take a filter of the address (`{url: [{hostSuffix: …}, …]}`), as
// `WebExtensionAPIWebNavigationEvent` does. Nothing here reaches node.

// `event(name)` and `call(listener, args)` are the runtime's; `tabId(name)` a tab's number.
// Returns the namespace's members and `fire(input)` for a `webNavigation` input.
export function navigationMembers({ event, call, tabId }) {
    const isArray = Array.isArray, entries = Object.entries, Address = URL;
    // The events by the stage the wire names, with each listener's filter.
    const stages = { beforeNavigate: 'navigationBefore', committed: 'navigationCommitted', domContentLoaded: 'navigationDOMContentLoaded', completed: 'navigationCompleted' };
    const filters = new Map();
    const members = {};
    const events = {};
    for (const [stage, name] of entries(stages)) {
        const made = event(name);
        const listeners = new Map();
        const add = made.addListener;
        made.addListener = (callback, filter) => {
            const given = filter !== undefined && filter !== null;
            if (given && !isArray(filter?.url)) throw new TypeError('webNavigation\'s filter takes {url: [UrlFilter, …]}');
            add(callback);
            if (given) listeners.set(callback, filter.url);
        };
        const remove = made.removeListener;
        made.removeListener = (callback) => { listeners.delete(callback); remove(callback); };
        filters.set(stage, listeners);
        events[stage] = made;
    }
    members.onBeforeNavigate = events.beforeNavigate;
    members.onCommitted = events.committed;
    members.onDOMContentLoaded = events.domContentLoaded;
    members.onCompleted = events.completed;
    // Whether `url` passes one of a listener's URL filters.
    const passes = (url, list) => {
        let parts;
        try { parts = new Address(url); } catch { return false; }
        const host = parts.hostname, path = parts.pathname, query = parts.search.replace(/^\?/, ''), whole = parts.href;
        return list.some((filter) => entries(filter ?? {}).every(([key, wanted]) => {
            switch (key) {
            case 'hostContains': return host.includes(String(wanted));
            case 'hostEquals': return host === String(wanted);
            case 'hostPrefix': return host.startsWith(String(wanted));
            case 'hostSuffix': return host.endsWith(String(wanted));
            case 'pathContains': return path.includes(String(wanted));
            case 'pathEquals': return path === String(wanted);
            case 'pathPrefix': return path.startsWith(String(wanted));
            case 'pathSuffix': return path.endsWith(String(wanted));
            case 'queryContains': return query.includes(String(wanted));
            case 'queryEquals': return query === String(wanted);
            case 'urlContains': return whole.includes(String(wanted));
            case 'urlEquals': return whole === String(wanted);
            case 'urlPrefix': return whole.startsWith(String(wanted));
            case 'urlSuffix': return whole.endsWith(String(wanted));
            case 'schemes': return isArray(wanted) && wanted.includes(parts.protocol.replace(/:$/, ''));
            case 'ports': return isArray(wanted) && wanted.includes(Number(parts.port || (parts.protocol === 'https:' ? 443 : 80)));
            default: return false;
            }
        }));
    };
    // A stage of a tab's load reaches each listener whose filter, if it has one, the address passes.
    const fire = (input, listenersOf) => {
        const stage = String(input.stage);
        const listeners = listenersOf(events[stage]);
        if (listeners === undefined) return;
        const details = { url: String(input.url), tabId: tabId(input.tab), frameId: 0 };
        for (const listener of [...listeners]) {
            const filter = filters.get(stage).get(listener);
            if (filter === undefined || passes(details.url, filter)) call(listener, [{ ...details }]);
        }
    };
    return { members, fire };
}
