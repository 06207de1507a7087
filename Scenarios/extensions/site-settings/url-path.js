// Canonical URL paths, shared by page keys and by reading a page's URL so that both reach the
// same record (SiteSettings' URLPath.swift): dot segments removed (`%2e` counts as a dot, as
// browsers do), control bytes, space, non-ASCII bytes and "<>`{} percent-encoded, existing
// escapes written with upper-case hex, and always a leading `/`.

/** The UTF-8 bytes of a string (a lone surrogate becomes U+FFFD, as TextEncoder does). */
export function utf8(text) {
  const bytes = [];
  for (const character of text) {
    let cp = character.codePointAt(0);
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return bytes;
}

const needsEncoding = (b) => b <= 0x20 || b >= 0x7f || '"<>`{}'.includes(String.fromCharCode(b));
const isHex = (b) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
const hexDigits = '0123456789ABCDEF';

/** The canonical form of a path given as a string (its UTF-8 bytes are what counts). */
export function canonicalPath(path) {
  if (isAlreadyCanonical(path)) return path;
  const bytes = utf8(path);
  const segments = [];
  let current = [];
  let trailingSlash = false;
  const endSegment = (isLast) => {
    const dots = dotCount(current);
    if (dots === 1) {
      trailingSlash = isLast;
    } else if (dots === 2) {
      segments.pop();
      trailingSlash = isLast;
    } else {
      segments.push(String.fromCharCode(...current));
    }
    current = [];
  };
  for (let i = bytes[0] === 0x2f ? 1 : 0; i < bytes.length; i++) {
    if (bytes[i] === 0x2f) endSegment(false);
    else appendEncoded(bytes[i], current);
  }
  endSegment(true);
  return '/' + segments.join('/') + (trailingSlash && segments.length > 0 ? '/' : '');
}

// Most real paths need no change: a leading `/`, no `.` right after a `/`, no `%`, `\` or byte
// that would be encoded.
function isAlreadyCanonical(path) {
  if (path[0] !== '/') return false;
  for (let i = 0; i < path.length; i++) {
    const b = path.charCodeAt(i);
    if (needsEncoding(b) || b === 0x25 /* % */ || b === 0x5c /* \ */) return false;
    if (b === 0x2e && path.charCodeAt(i - 1) === 0x2f) return false;
  }
  return true;
}

// 1 for `.` or `%2E`, 2 for `..` and its encoded forms, 0 for any other segment. (Escapes are
// already upper case here.)
function dotCount(segment) {
  let i = 0;
  let dots = 0;
  while (i < segment.length) {
    if (segment[i] === 0x2e) {
      i += 1;
    } else if (segment[i] === 0x25 && i + 2 < segment.length && segment[i + 1] === 0x32 && segment[i + 2] === 0x45) {
      i += 3;
    } else {
      return 0;
    }
    dots += 1;
    if (dots > 2) return 0;
  }
  return dots;
}

// Appends one byte, percent-encoding what a browser would, and upper-casing the hex digits of
// an escape already present (the two bytes after a `%`).
function appendEncoded(byte, out) {
  const n = out.length;
  const inEscape = (n >= 1 && out[n - 1] === 0x25) || (n >= 2 && out[n - 2] === 0x25 && isHex(out[n - 1]));
  if (needsEncoding(byte)) {
    out.push(0x25, hexDigits.charCodeAt(byte >> 4), hexDigits.charCodeAt(byte & 15));
  } else if (byte >= 0x61 && byte <= 0x66 && inEscape) {
    out.push(byte - 32);
  } else {
    out.push(byte);
  }
}
