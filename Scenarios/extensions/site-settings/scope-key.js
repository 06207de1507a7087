// The key of a site record (SiteSettings' ScopeKey.swift): which pages a record applies to.
//   host    `docs.example.com`        that host only (IP addresses are keys only this way)
//   domain  `.example.org`            the registrable domain and every host under it
//   page    `example.net/tools/edit`  one host and one exact path (no query or fragment)
// A key is `{kind, text, host, path}`; `text` is its canonical form, which equality uses.

import { parseHost } from './hosts.js';
import { registrableDomain } from './public-suffix.js';
import { canonicalPath, utf8 } from './url-path.js';

export class ScopeKeyError extends Error {
  name = 'ScopeKeyError';
}

/** The longest path a page key may have, in bytes. */
export const maximumPathBytes = 2048;

const key = (kind, text, host, path = null) => Object.freeze({ kind, text, host, path });

export const hostKey = (host) => key('host', host.text, host.text);
export const pageKey = (host, path) => key('page', host.text + path, host.text, path);

/** The domain key of a host's registrable domain; null for an address, a public suffix or one label. */
export function domainKey(host) {
  if (host.kind !== 'name') return null;
  const registrable = registrableDomain(host.text);
  return registrable === null ? null : key('domain', '.' + registrable, registrable);
}

/**
 * Parses a key as a person or a stored document writes it into its canonical form
 * (`Docs.Example.COM.` becomes `docs.example.com`, `a.example/x/../y` becomes `a.example/y`).
 * Throws a ScopeKeyError (or the HostError of its host) for anything else.
 */
export function parseScopeKey(text) {
  if (text.length === 0) throw new ScopeKeyError('empty scope key');
  const query = text.search(/[?#]/);
  if (query >= 0) throw new ScopeKeyError(`'${text[query]}' not allowed: a page key has no query or fragment`);
  if (text.startsWith('.')) {
    const name = text.slice(1);
    if (name.includes('/')) throw new ScopeKeyError('a domain key has no path');
    const host = parseHost(name);
    if (host.kind !== 'name') throw new ScopeKeyError(`an IP address (${host.text}) can only be a host key, not a domain key`);
    const registrable = registrableDomain(host.text);
    if (registrable === null) throw new ScopeKeyError(`'${host.text}' is a public suffix, not a registrable domain`);
    if (registrable !== host.text) {
      throw new ScopeKeyError(`'.${host.text}' is not a registrable domain; did you mean '.${registrable}'?`);
    }
    return key('domain', '.' + host.text, host.text);
  }
  const slash = firstSlash(text);
  const hostPart = slash < 0 ? text : text.slice(0, slash);
  if (hostPart.length === 0) throw new ScopeKeyError('no host before the path');
  const host = parseHost(hostPart);
  if (slash < 0) return hostKey(host);
  return pageKey(host, canonicalKeyPath(text.slice(slash)));
}

// The first `/` that is a character of its own: a combining mark after a slash makes one
// character with it, as Swift's String reads characters.
function firstSlash(text) {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.indexOf('/');
  for (const { segment, index } of new Intl.Segmenter().segment(text)) if (segment === '/') return index;
  return -1;
}

// Keys are typed by people, so control characters, spaces and `\` are refused rather than
// silently encoded.
function canonicalKeyPath(path) {
  const bad = [...path].find((c) => c.codePointAt(0) < 0x21 || c === '\x7f' || c === '\\');
  if (bad !== undefined) throw new ScopeKeyError(`invalid character U+${bad.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} in path`);
  const canonical = canonicalPath(path);
  const bytes = utf8(canonical).length;
  if (bytes > maximumPathBytes) throw new ScopeKeyError(`path of ${bytes} bytes is longer than ${maximumPathBytes}`);
  return canonical;
}
