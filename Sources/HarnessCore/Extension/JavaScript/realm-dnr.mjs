// The declarativeNetRequest namespace (PROTOCOL.md, section 14), made in the background's realm.
// Safari keeps an extension's rules itself: the dynamic rules and the enabled rulesets for good,
// the session rules until it quits. The harness keeps them as Safari does (`host.keep(name,
// text?)` reads a kept JSON file, or writes it when given text: `net-request-` and `dynamic`,
// `session` or `enabled`) and
// gives them back; it loads no network, so no request is ever matched or blocked. Nothing here
// reaches node.

import { jsonText } from './realm-common.mjs';

// `manifest`: its `declarative_net_request.rule_resources` are the static rulesets;
// `callbackForm` is the runtime's.
export function netRequestMembers({ manifest, host, callbackForm }) {
    const isArray = Array.isArray, parse = JSON.parse, isInteger = Number.isInteger, Pattern = RegExp;
    const rulesets = isArray(manifest.declarative_net_request?.rule_resources) ? manifest.declarative_net_request.rule_resources : [];
    const read = (kind, fallback) => {
        const text = host.keep('net-request-' + kind, '');
        if (typeof text !== 'string' || text === '') return fallback;
        try { return parse(text); } catch { return fallback; }
    };
    const failure = (call, why) => Promise.reject(new Error(`Invalid call to declarativeNetRequest.${call}(). ${why}`));
    // A rule as Safari takes it: a whole-number id of at least 1, an action with a type, and a
    // condition object.
    const problem = (rule) => {
        if (rule === null || typeof rule !== 'object') return 'A rule is expected to be an object.';
        if (!isInteger(rule.id) || rule.id < 1) return 'A rule\'s id is expected to be a whole number of at least 1.';
        if (typeof rule.action?.type !== 'string') return `Rule ${rule.id}: 'action.type' is expected to be a string.`;
        if (rule.condition === null || typeof rule.condition !== 'object') return `Rule ${rule.id}: 'condition' is expected to be an object.`;
        return undefined;
    };
    const update = (kind, call) => callbackForm((options = {}) => {
        const removing = new Set(isArray(options?.removeRuleIds) ? options.removeRuleIds : []);
        const adding = isArray(options?.addRules) ? options.addRules : [];
        for (const rule of adding) {
            const why = problem(rule);
            if (why !== undefined) return failure(call, why);
        }
        const kept = read(kind, []).filter((rule) => !removing.has(rule.id));
        const ids = new Set(kept.map((rule) => rule.id));
        for (const rule of adding) {
            if (ids.has(rule.id)) return failure(call, `Rule with id ${rule.id} is already in use.`);
            ids.add(rule.id);
        }
        host.keep('net-request-' + kind, jsonText([...kept, ...adding], 'the rules'));
        return Promise.resolve(undefined);
    });
    const get = (kind) => callbackForm((filter = {}) => {
        const wanted = isArray(filter?.ruleIds) ? new Set(filter.ruleIds) : null;
        return Promise.resolve(read(kind, []).filter((rule) => wanted === null || wanted.has(rule.id)));
    });
    const enabled = () => read('enabled', rulesets.filter((ruleset) => ruleset?.enabled === true).map((ruleset) => String(ruleset.id)));
    return {
        updateDynamicRules: update('dynamic', 'updateDynamicRules'),
        getDynamicRules: get('dynamic'),
        updateSessionRules: update('session', 'updateSessionRules'),
        getSessionRules: get('session'),
        getEnabledRulesets: callbackForm(() => Promise.resolve(enabled())),
        updateEnabledRulesets: callbackForm((options = {}) => {
            const known = new Set(rulesets.map((ruleset) => String(ruleset?.id)));
            const named = [...(options?.enableRulesetIds ?? []), ...(options?.disableRulesetIds ?? [])].map(String);
            const unknown = named.find((id) => !known.has(id));
            if (unknown !== undefined) return failure('updateEnabledRulesets', `Invalid ruleset id: ${unknown}.`);
            const off = new Set((options?.disableRulesetIds ?? []).map(String));
            const on = [...new Set([...enabled(), ...(options?.enableRulesetIds ?? []).map(String)])].filter((id) => !off.has(id));
            host.keep('net-request-enabled', jsonText(on, 'the rulesets'));
            return Promise.resolve(undefined);
        }),
        // No request is made here, so none matched a rule.
        getMatchedRules: callbackForm(() => Promise.resolve({ rulesMatchedInfo: [] })),
        isRegexSupported: callbackForm((options) => {
            let isSupported = typeof options?.regex === 'string';
            if (isSupported) { try { new Pattern(options.regex); } catch { isSupported = false; } }
            return Promise.resolve(isSupported ? { isSupported } : { isSupported, reason: 'syntaxError' });
        }),
    };
}
