// The Public Suffix List, as publicsuffix.org defines its use and SiteSettings'
// PublicSuffixList.swift looks it up: a rule matches a host's rightmost labels, `*` matching one
// label; an exception rule (`!`) prevails, else the matching rule with the most labels, else the
// implicit rule `*`. The registrable domain is the public suffix plus one more label.

import { rules } from './public-suffix-data.js';

const RULE = 1;
const WILDCARD = 2;
const EXCEPTION = 4;

// Each key (a rule's name without `!` or `*.`) to its flags. Every suffix of a key is a key
// too (flags 0 when it is no rule), so a walk from the right may stop at the first suffix of a
// host that is not a key: no longer one can be. Every key ends in its rule's top-level label,
// so the keys are read one top-level label at a time, when a host under it is first looked up:
// a background that Safari wakes again and again reads only the few it meets (reading the
// whole list took 8 ms of each start).
const keys = new Map();
const unread = new Map();
for (const line of rules.split('\n')) {
  const colon = line.indexOf(':');
  unread.set(line.slice(0, colon), line.slice(colon + 1));
}

/** Reads the rules under one top-level label into `keys`, once. */
function readTopLevel(topLevel) {
  const names = unread.get(topLevel);
  if (names === undefined) return;
  unread.delete(topLevel);
  for (const name of names.split(',')) {
    const flag = name.startsWith('!') ? EXCEPTION : name.startsWith('*') ? WILDCARD : RULE;
    const labels = name.replace(/^[!*]\.?/, '');
    const rule = labels === '' ? topLevel : `${labels}.${topLevel}`;
    keys.set(rule, (keys.get(rule) ?? 0) | flag);
    for (let dot = rule.indexOf('.'); dot >= 0; dot = rule.indexOf('.', dot + 1)) {
      const suffix = rule.slice(dot + 1);
      if (!keys.has(suffix)) keys.set(suffix, 0);
    }
  }
}

/**
 * Where the public suffix of a canonical host name (lower case, A-labels, no trailing dot, not
 * an address) starts, walking its labels from the right.
 */
function publicSuffixStart(host) {
  readTopLevel(host.slice(host.lastIndexOf('.') + 1));
  let labelEnd = host.length;
  let restStart = host.length;
  let suffixStart = -1;
  let parentHasWildcard = false;
  for (;;) {
    const labelStart = host.lastIndexOf('.', labelEnd - 1) + 1;
    if (suffixStart < 0) suffixStart = labelStart; // the implicit rule "*"
    const flags = keys.get(host.slice(labelStart));
    if (flags === undefined) return parentHasWildcard ? labelStart : suffixStart;
    if (flags & EXCEPTION) return restStart;
    if (flags & RULE || parentHasWildcard) suffixStart = labelStart;
    if (labelStart === 0) return suffixStart;
    parentHasWildcard = (flags & WILDCARD) !== 0;
    restStart = labelStart;
    labelEnd = labelStart - 1;
  }
}

/** The public suffix of a canonical host name. */
export function publicSuffix(host) {
  return host.slice(publicSuffixStart(host));
}

/** The registrable domain of a canonical host name, or null when the host is itself a public suffix. */
export function registrableDomain(host) {
  const suffixStart = publicSuffixStart(host);
  if (suffixStart < 2 || suffixStart >= host.length) return null;
  const labelStart = host.lastIndexOf('.', suffixStart - 2) + 1;
  return labelStart < suffixStart - 1 ? host.slice(labelStart) : null;
}
