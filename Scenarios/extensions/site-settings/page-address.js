// The parts of a page's URL that settings depend on: its host and canonical path (SiteSettings'
// PageAddress.swift). Scheme, port, user information, query and fragment choose no record.
// Only http and https pages are supported; anything else reads as null, which the decision
// turns into "off".

import { parseHost } from './hosts.js';
import { canonicalPath } from './url-path.js';
import { domainKey, hostKey, pageKey } from './scope-key.js';

/**
 * Parses an absolute URL as a browser reads what matters here: surrounding spaces ignored,
 * scheme and host case-insensitive, `\` read as `/`, any number of slashes after the scheme,
 * the last `@` ending the user information. Returns `{host, path}` or null.
 */
export function parsePageAddress(url) {
  let start = 0;
  let end = url.length;
  while (start < end && url.charCodeAt(start) <= 0x20) start += 1;
  while (end > start && url.charCodeAt(end - 1) <= 0x20) end -= 1;

  const colon = url.indexOf(':', start);
  if (colon < 0 || colon >= end || colon === start) return null;
  const scheme = url.slice(start, colon);
  if (!/^[a-z0-9+.-]+$/i.test(scheme) || !/^https?$/i.test(scheme)) return null;

  let i = colon + 1;
  while (i < end && (url[i] === '/' || url[i] === '\\')) i += 1;
  const authorityStart = i;
  while (i < end && !'/\\?#'.includes(url[i])) i += 1;
  const authorityEnd = i;

  const at = url.lastIndexOf('@', authorityEnd - 1);
  const hostStart = at >= authorityStart ? at + 1 : authorityStart;
  let hostEnd = authorityEnd;
  if (hostStart < authorityEnd && url[hostStart] === '[') {
    const close = url.indexOf(']', hostStart);
    hostEnd = close < 0 || close >= authorityEnd ? authorityEnd : close + 1;
    if (hostEnd < authorityEnd && (url[hostEnd] !== ':' || !isPort(url.slice(hostEnd + 1, authorityEnd)))) return null;
  } else {
    const portColon = url.lastIndexOf(':', authorityEnd - 1);
    if (portColon >= hostStart) {
      if (!isPort(url.slice(portColon + 1, authorityEnd))) return null;
      hostEnd = portColon;
    }
  }
  if (hostStart === hostEnd) return null;
  let host;
  try {
    host = parseHost(url.slice(hostStart, hostEnd));
  } catch {
    return null;
  }

  let pathEnd = authorityEnd;
  while (pathEnd < end && url[pathEnd] !== '?' && url[pathEnd] !== '#') pathEnd += 1;
  const path = canonicalPath(url.slice(authorityEnd, pathEnd).replaceAll('\\', '/'));
  return Object.freeze({ host, path });
}

const isPort = (text) => /^[0-9]{0,5}$/.test(text) && Number(text) <= 65535;

/** The keys a record for this address could have, most specific first: page, host, domain. */
export function scopeKeysOf(address) {
  const domain = domainKey(address.host);
  return [pageKey(address.host, address.path), hostKey(address.host), ...(domain ? [domain] : [])];
}
