// Canonical host names, as SiteSettings' HostName.swift reads them: lower case, no trailing
// dot, no port, internationalized labels as `xn--` A-labels; or a dotted-decimal IPv4
// address; or an IPv6 address in brackets in RFC 5952 form. Spellings of one host that differ
// in case, a trailing dot, the dot character (U+3002, U+FF0E, U+FF61), full-width ASCII or
// U-label against A-label parse to the same host. Like the Swift reading, and on purpose, it
// applies no NFC and no UTS 46 mapping beyond those.

import * as punycode from './punycode.js';

export class HostError extends Error {
  name = 'HostError';
}

/** A parsed host: `{text, kind}` with kind `name`, `ipv4` or `ipv6`. */
const host = (text, kind) => Object.freeze({ text, kind });

const isNameCode = (c) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d /* - */ || c === 0x5f; /* _ */

const hasALabelPrefix = (label) => /^xn--/i.test(label);

/** Parses a host as it appears in a URL's authority (port removed) or in a scope key. */
export function parseHost(input) {
  if (input.length === 0) throw new HostError('empty host');
  if (input[0] === '[') return parseIPv6(input);
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(input)) return parseInternational(input);
  return parseASCII(input, input);
}

// MARK: Names and IPv4

function parseASCII(text, input) {
  const end = text.endsWith('.') ? text.length - 1 : text.length;
  let labelStart = 0;
  let hasALabel = false;
  let lastLabelIsNumeric = true;
  const endLabel = (to) => {
    if (to === labelStart) throw new HostError('empty label in host');
    const label = text.slice(labelStart, to);
    if (label.length > 63) throw new HostError(`label '${label.toLowerCase()}' is longer than 63 bytes`);
    hasALabel ||= hasALabelPrefix(label);
  };
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f || (c >= 0x41 && c <= 0x5a)) {
      lastLabelIsNumeric = false;
    } else if (c >= 0x30 && c <= 0x39) {
      // digits keep a label numeric
    } else if (c === 0x2e) {
      endLabel(i);
      labelStart = i + 1;
      lastLabelIsNumeric = true;
    } else if (c === 0x3a) {
      throw new HostError(`':' in host '${input}': remove the port, or write an IPv6 address in brackets`);
    } else {
      throw new HostError(`invalid character '${text[i]}' in host`);
    }
  }
  endLabel(end);

  const name = text.slice(0, end);
  // A last label that URL parsers read as a number makes the host an IPv4 address or nothing.
  if (lastLabelIsNumeric || /^0x[0-9a-f]*$/i.test(name.slice(labelStart))) {
    const address = ipv4Address(name);
    if (address === undefined) throw new HostError(`invalid IPv4 address '${input}'`);
    if (address === null) throw new HostError(`invalid IPv4 address '${input}': a part has a leading zero`);
    return host(name, 'ipv4');
  }
  if (end > 253) throw new HostError(`host of ${end} bytes is longer than 253`);
  const lower = name.toLowerCase();
  if (hasALabel) {
    const bad = lower.split('.').find((label) => hasALabelPrefix(label) && !isValidALabel(label));
    if (bad !== undefined) throw new HostError(`invalid xn-- label '${bad}': not the punycode of a lower-case non-ASCII label`);
  }
  return host(lower, 'name');
}

/**
 * A strict dotted-decimal IPv4 address (four parts of 0...255, no leading zeros) as a number;
 * null when well formed but for a leading zero; undefined when malformed.
 */
function ipv4Address(text) {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^[0-9]+$/.test(part))) return undefined;
  if (parts.some((part) => part.length > 1 && part[0] === '0')) return null;
  if (parts.some((part) => part.length > 3 || Number(part) > 255)) return undefined;
  return parts.reduce((address, part) => address * 256 + Number(part), 0);
}

// MARK: Internationalized names

const codePoints = (text) => Array.from(text, (c) => c.codePointAt(0));

// What one code point maps to: the ideographic and full-width dots become `.`, full-width
// ASCII becomes ASCII, and letters become lower case (the full lower-case mapping, per code
// point, with no context).
function mapped(cp) {
  if (cp === 0x3002 || cp === 0xff0e || cp === 0xff61) return [0x2e];
  if (cp >= 0xff01 && cp <= 0xff5e) cp -= 0xfee0;
  if (cp < 0x80) return [cp >= 0x41 && cp <= 0x5a ? cp | 0x20 : cp];
  return codePoints(String.fromCodePoint(cp).toLowerCase());
}

// Controls, separators, private use, surrogates, noncharacters and format characters (but for
// the joiners U+200C and U+200D) are refused. Unassigned code points are accepted.
const refusedCategory = /[\p{Cc}\p{Zs}\p{Zl}\p{Zp}\p{Co}\p{Cs}]/u;
const formatCategory = /\p{Cf}/u;

function isAllowedNonASCII(cp) {
  const character = String.fromCodePoint(cp);
  if (refusedCategory.test(character)) return false;
  if (formatCategory.test(character)) return cp === 0x200c || cp === 0x200d;
  const isNoncharacter = (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
  return !isNoncharacter;
}

function parseInternational(input) {
  const all = codePoints(input).flatMap(mapped);
  if (all.at(-1) === 0x2e) all.pop();

  const labels = [];
  let label = [];
  const endLabel = () => {
    if (label.length === 0) throw new HostError('empty label in host');
    let ascii = true;
    for (const cp of label) {
      if (cp < 0x80) {
        if (isNameCode(cp)) continue;
        if (cp === 0x3a) throw new HostError(`':' in host '${input}': remove the port, or write an IPv6 address in brackets`);
        throw new HostError(`invalid character '${String.fromCodePoint(cp)}' in host`);
      }
      if (!isAllowedNonASCII(cp)) throw new HostError(`invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} in host`);
      ascii = false;
    }
    if (ascii) {
      labels.push(String.fromCodePoint(...label));
    } else {
      const encoded = label.length <= 63 ? punycode.encode(label) : null;
      if (encoded === null) throw new HostError(`label '${String.fromCodePoint(...label)}' is longer than 63 bytes`);
      const asciiPart = String.fromCharCode(...label.map((cp) => (cp < 0x80 ? cp : 0)));
      if (hasALabelPrefix(asciiPart)) throw new HostError(`invalid xn-- label '${String.fromCodePoint(...label)}'`);
      labels.push('xn--' + encoded);
    }
    label = [];
  };
  for (const cp of all) {
    if (cp === 0x2e) endLabel();
    else label.push(cp);
  }
  endLabel();
  return parseASCII(labels.join('.'), input);
}

// A valid A-label decodes, holds a non-ASCII character, consists of characters the mapping
// leaves as they are, and encodes back to itself.
function isValidALabel(label) {
  const encoded = label.slice(4);
  const decoded = punycode.decode(encoded);
  return (
    decoded !== null &&
    decoded.some((cp) => cp >= 0x80) &&
    decoded.every(isCanonicalCodePoint) &&
    punycode.encode(decoded) === encoded
  );
}

function isCanonicalCodePoint(cp) {
  if (cp < 0x80) return isNameCode(cp);
  if (cp === 0x3002 || cp === 0xff0e || cp === 0xff61 || (cp >= 0xff01 && cp <= 0xff5e)) return false;
  if (!isAllowedNonASCII(cp)) return false;
  const lower = codePoints(String.fromCodePoint(cp).toLowerCase());
  return lower.length === 1 && lower[0] === cp;
}

// MARK: IPv6

function parseIPv6(input) {
  const pieces = input.length >= 2 && input.endsWith(']') ? ipv6Pieces(input.slice(1, -1)) : null;
  if (pieces === null) throw new HostError(`invalid IPv6 address '${input}'`);
  return host(ipv6Text(pieces), 'ipv6');
}

/** The eight 16-bit pieces of an IPv6 address (hex groups, at most one `::`, maybe a dotted IPv4 tail); null otherwise. */
function ipv6Pieces(text) {
  if (text.length > 45) return null;
  const pieces = [];
  let compressAt = null;
  let index = 0;
  const end = text.length;
  const hex = (i) => (i < end && /[0-9a-fA-F]/.test(text[i]) ? parseInt(text[i], 16) : null);

  if (index < end && text[index] === ':') {
    if (index + 1 >= end || text[index + 1] !== ':') return null;
    compressAt = 0;
    index += 2;
  }
  while (index < end) {
    if (pieces.length >= 8) return null;
    const groupStart = index;
    let value = 0;
    for (let digit = hex(index); digit !== null; digit = hex(index)) {
      if (index - groupStart >= 4) return null;
      value = (value << 4) | digit;
      index += 1;
    }
    if (index < end && text[index] === '.') {
      const address = pieces.length <= 6 ? ipv4Address(text.slice(groupStart)) : undefined;
      if (address === undefined || address === null) return null;
      pieces.push(Math.floor(address / 65536), address % 65536);
      break;
    }
    if (index === groupStart) return null;
    pieces.push(value);
    if (index === end) break;
    if (text[index] !== ':' || index + 1 >= end) return null;
    index += 1;
    if (text[index] === ':') {
      if (compressAt !== null) return null;
      compressAt = pieces.length;
      index += 1;
    }
  }
  if (compressAt === null) return pieces.length === 8 ? pieces : null;
  if (pieces.length >= 8) return null;
  const zeros = new Array(8 - pieces.length).fill(0);
  return [...pieces.slice(0, compressAt), ...zeros, ...pieces.slice(compressAt)];
}

// RFC 5952: lower-case hex without leading zeros, the first longest run of two or more zero
// pieces written as `::`.
function ipv6Text(pieces) {
  let bestStart = -1;
  let bestLength = 1;
  let runStart = 0;
  let runLength = 0;
  pieces.forEach((piece, index) => {
    if (piece !== 0) {
      runLength = 0;
      return;
    }
    if (runLength === 0) runStart = index;
    runLength += 1;
    if (runLength > bestLength) {
      bestStart = runStart;
      bestLength = runLength;
    }
  });
  let text = '[';
  for (let index = 0; index < 8; ) {
    if (index === bestStart) {
      text += '::';
      index += bestLength;
      continue;
    }
    if (index > 0 && index !== bestStart + bestLength) text += ':';
    text += pieces[index].toString(16);
    index += 1;
  }
  return text + ']';
}
