// Compares this extension's decisions with the Swift harness's (`harness resolve`) for a few
// documents, URLs, appearances, times, time zones, pauses and native-dark signals. Run from the
// extension's folder after `swift build`:
//   node tests/compare-decisions.mjs [path/to/harness]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeDocument } from '../document.js';
import { Resolver, decisionJSON } from '../resolver.js';

const harness = process.argv[2] ?? '../../../.build/debug/harness';
const folder = mkdtempSync(join(tmpdir(), 'decisions-'));

const documents = [
  { defaults: { mode: 'scheduled', theme: 'gray', schedule: { start: '20:00', end: '06:00' } },
    sites: { 'docs.example.com/guide': { theme: 'sepia', modifiedAt: 1 }, 'docs.example.com': { mode: 'on', modifiedAt: 1 },
             '.example.com': { nativeDarkPolicy: 'override', theme: 'midnight', modifiedAt: 1 }, '192.0.2.1': { mode: 'off', modifiedAt: 1 } } },
  { defaults: { mode: 'auto', theme: 'midnight', nativeDarkPolicy: 'respect', schedule: { start: '08:00', end: '08:00' } },
    sites: { '.example.org': { mode: 'scheduled', modifiedAt: 1 }, 'b.example.org': { theme: 'invert', modifiedAt: 1 } } },
];
const urls = ['https://docs.example.com/guide', 'https://docs.example.com/guide/', 'https://api.example.com/', 'https://docs.example.com/',
  'https://192.0.2.1/', 'https://a.example.org/x', 'https://b.example.org/', 'about:blank', 'https://other.test/'];
const contexts = [
  { appearance: 'light', now: '2026-03-01T09:00:00Z', offset: '+00:00' },
  { appearance: 'dark', now: '2026-03-01T19:30:00Z', offset: '+01:00', nativeDark: true },
  { appearance: 'dark', now: '2026-03-01T00:29:00Z', offset: '+05:30' },
  { appearance: 'dark', now: '2026-03-01T00:30:00Z', offset: '+05:30' },
  { appearance: 'light', now: '2026-03-01T07:00:00Z', offset: '+01:00', paused: '2026-03-01T07:00:01Z' },
  { appearance: 'light', now: '2026-03-01T07:00:01Z', offset: '+01:00', paused: '2026-03-01T07:00:01Z' },
];

// A fixed offset as a time zone node knows (Etc/GMT signs are reversed), when there is one.
const zone = (offset) => {
  const [sign, hours, minutes] = [offset[0], Number(offset.slice(1, 3)), Number(offset.slice(4))];
  if (minutes !== 0) return offset === '+05:30' ? 'Asia/Kolkata' : null;
  return hours === 0 ? 'UTC' : `Etc/GMT${sign === '+' ? '-' : '+'}${hours}`;
};

// JSON with sorted keys, so that member order does not count.
const canonical = (value) => JSON.stringify(value, (_, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));

let failures = 0;
let count = 0;
documents.forEach((document, index) => {
  const file = join(folder, `${index}.json`);
  writeFileSync(file, JSON.stringify(document));
  const resolver = new Resolver(decodeDocument(document));
  for (const url of urls) {
    for (const context of contexts) {
      const tz = zone(context.offset);
      if (tz === null) continue;
      process.env.TZ = tz;
      const args = ['resolve', '--document', file, '--url', url, '--appearance', context.appearance, '--now', context.now, '--utc-offset', context.offset];
      if (context.nativeDark) args.push('--native-dark');
      if (context.paused) args.push('--paused-until', context.paused);
      const expected = JSON.parse(execFileSync(harness, args, { encoding: 'utf8' }));
      const actual = decisionJSON(resolver.decide(url, {
        appearance: context.appearance, now: Date.parse(context.now),
        pausedUntil: context.paused ? Date.parse(context.paused) : null, pageIsNativelyDark: context.nativeDark === true,
      }));
      count += 1;
      const same = canonical(expected) === canonical(actual);
      if (!same) {
        failures += 1;
        console.log(`${url} ${JSON.stringify(context)}\n  swift ${JSON.stringify(expected)}\n  js    ${JSON.stringify(actual)}`);
      }
    }
  }
});
rmSync(folder, { recursive: true });
console.log(`${count - failures} of ${count} decisions the same`);
process.exit(failures === 0 ? 0 : 1);
