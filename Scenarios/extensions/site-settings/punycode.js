// RFC 3492 Punycode, the encoding behind `xn--` labels, as SiteSettings' Punycode.swift does
// it: 32-bit arithmetic that fails on overflow (section 6.4), lower-case digits out, either case
// in. Neither side includes the `xn--` prefix.

const base = 36;
const tMin = 1;
const tMax = 26;
const skew = 38;
const damp = 700;
const initialBias = 72;
const initialN = 0x80;
const maxUInt32 = 0xffffffff;

// The threshold for digit position k (section 3.3).
const threshold = (k, bias) => (k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias);

// The bias adaptation of section 6.1.
function adapt(delta, count, first) {
  delta = first ? Math.floor(delta / damp) : Math.floor(delta / 2);
  delta += Math.floor(delta / count);
  let k = 0;
  while (delta > ((base - tMin) * tMax) / 2) {
    delta = Math.floor(delta / (base - tMin));
    k += base;
  }
  return k + Math.floor(((base - tMin + 1) * delta) / (delta + skew));
}

// Digits 0...25 are a...z, 26...35 are 0...9.
const digitCharacter = (digit) => String.fromCharCode(digit < 26 ? digit + 0x61 : digit + 0x16);

function digitValue(code) {
  if (code >= 0x61 && code <= 0x7a) return code - 0x61;
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  if (code >= 0x30 && code <= 0x39) return code - 0x30 + 26;
  return null;
}

/**
 * Encodes a label's code points (an array of numbers); returns the basic string, or null on
 * overflow. Basic code points are copied in order, followed by `-` when there are any.
 */
export function encode(codePoints) {
  let output = '';
  for (const cp of codePoints) if (cp < 0x80) output += String.fromCharCode(cp);
  const basicCount = output.length;
  if (basicCount > 0) output += '-';

  let n = initialN;
  let delta = 0;
  let bias = initialBias;
  let handled = basicCount;
  while (handled < codePoints.length) {
    let m = Infinity;
    for (const cp of codePoints) if (cp >= n && cp < m) m = cp;

    delta += (m - n) * (handled + 1);
    if (delta > maxUInt32) return null;
    n = m;

    for (const cp of codePoints) {
      if (cp < n && ++delta > maxUInt32) return null;
      if (cp !== n) continue;
      let q = delta;
      for (let k = base; ; k += base) {
        const t = threshold(k, bias);
        if (q < t) break;
        output += digitCharacter(t + ((q - t) % (base - t)));
        q = Math.floor((q - t) / (base - t));
      }
      output += digitCharacter(q);
      bias = adapt(delta, handled + 1, handled === basicCount);
      delta = 0;
      handled += 1;
    }
    if (++delta > maxUInt32) return null;
    n += 1;
  }
  return output;
}

/**
 * Decodes a basic string into code points; null when it is not valid Punycode (a non-ASCII
 * character, a missing digit, overflow, or a value that is not a Unicode scalar). Everything
 * before the last `-` is copied as it is, so `a-` decodes to "a".
 */
export function decode(encoded) {
  const output = [];
  let position = 0;
  const last = encoded.lastIndexOf('-');
  if (last > 0) {
    for (let i = 0; i < last; i++) {
      const code = encoded.charCodeAt(i);
      if (code >= 0x80) return null;
      output.push(code);
    }
    position = last + 1;
  }

  let n = initialN;
  let i = 0;
  let bias = initialBias;
  while (position < encoded.length) {
    const oldI = i;
    let weight = 1;
    for (let k = base; ; k += base) {
      const digit = position < encoded.length ? digitValue(encoded.charCodeAt(position)) : null;
      if (digit === null) return null;
      position += 1;
      i += digit * weight;
      if (digit * weight > maxUInt32 || i > maxUInt32) return null;
      const t = threshold(k, bias);
      if (digit < t) break;
      weight *= base - t;
      if (weight > maxUInt32) return null;
    }
    const count = output.length + 1;
    bias = adapt(i - oldI, count, oldI === 0);
    n += Math.floor(i / count);
    if (n > maxUInt32 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return null;
    i %= count;
    output.splice(i, 0, n);
    i += 1;
  }
  return output;
}
