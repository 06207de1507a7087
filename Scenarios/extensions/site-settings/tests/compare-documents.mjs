// Compares this extension's reading and writing of settings documents with the Swift
// harness's (`harness normalize FILE`): the normalized JSON, or that both refuse it. Scope keys
// are read through documents too. Run from the extension's folder after `swift build`:
//   node tests/compare-documents.mjs [path/to/harness]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeDocument, encodeDocument } from '../document.js';

const harness = process.argv[2] ?? '../../../.build/debug/harness';
const folder = mkdtempSync(join(tmpdir(), 'documents-'));

const keys = [
  'docs.example.com', 'Docs.Example.COM.', '.example.com', '.docs.example.com', '.co.uk', '.192.0.2.1', '.example.com/x',
  'a.example/x/../y', 'a.example/x?y', 'a.example/#', '/x', 'a.example/a b', 'a.example/a\\b', 'a.example/ü',
  'a.example/%2e%2e/x', '192.0.2.1/x', '[::1]/x', 'bücher.example/x', '.bücher.example', 'a.example/x/\u0301y',
  'a.example/\u0301', 'b.example\u0301/x', '.b.ck', '.www.ck', 'example.com:80', '.', '', 'a..b', 'xn--bcher-kva.example',
];
const documents = [
  ...keys.map((key) => ({ sites: { [key]: { theme: 'sepia', modifiedAt: 1783936800 } } })),
  {},
  { defaults: { mode: 'on', theme: 'midnight' }, revision: 3, documentId: 'abc' },
  { defaults: { mode: 'weird', nativeDarkPolicy: null, schedule: { start: '21:30', end: '05:00' }, extra: 1 } },
  { defaults: { schedule: { start: '24:00', end: '05:00' } } },
  { defaults: { changedAt: { theme: { at: 1783930000000, by: 'app', edit: 41 }, nope: 1 }, theme: 'gray' } },
  {
    schemaVersion: 1, documentId: '94899342-6212-4B14-A579-6740AE068B63', revision: 42,
    defaults: { mode: 'auto', theme: 'gray', nativeDarkPolicy: 'respect', schedule: { start: '20:00', end: '06:00' } },
    sites: {
      '.example.org': { mode: 'off', modifiedAt: 1783936920000 },
      'docs.example.com': {
        changedAt: { mode: { at: 1783939999000, by: 'extension', edit: 1 }, theme: { at: 1783938000000, by: 'app', edit: 40 } },
        modifiedAt: 1783939999000, theme: 'sepia',
      },
      'example.net/tools/editor': { modifiedAt: 1783937000000, nativeDarkPolicy: 'override' },
    },
    tombstones: { 'news.example': { changedAt: { theme: { at: 1783938500000, by: 'extension', edit: 3 } } }, 'studio.example': 1783937100000 },
  },
  { sites: { 'A.example': { theme: 'sepia', modifiedAt: 1 }, 'a.example.': { theme: 'gray', modifiedAt: 2 } } },
  { sites: { 'a.example': { mode: null, theme: null, modifiedAt: 5 } } },
  { sites: { 'a.example': { mode: 'on', modifiedAt: 5 } }, tombstones: { 'a.example': 6 } },
  { sites: { 'a.example': { mode: 'on', modifiedAt: 7 } }, tombstones: { 'a.example': 6 } },
  { sites: { 'a.example': { mode: 'on' } } },
  { sites: { 'a.example': { mode: 'on', modifiedAt: -1 } } },
  { sites: { 'a.example': { mode: 'on', modifiedAt: 1.5 } } },
  { sites: { 'a.example': { mode: 'on', changedAt: { mode: { at: 5, by: 'nobody' } } } } },
  { sites: { 'a.example': { mode: 'on', changedAt: { mode: { at: 1783939999000, by: 'imported', edit: 0 } }, modifiedAt: 1783939999000 } } },
  { sites: { 'a.example': { theme: 'sepia', changedAt: { mode: 1783939999000 }, modifiedAt: 1783939999 } } },
  { tombstones: { 'a.example': { changedAt: { mode: 1783939999000 }, junk: 1 } } },
  { tombstones: { 'a.example': { at: 1783939999000, by: 'extension', edit: 2 } } },
  { schemaVersion: 2, defaults: { mode: 'on' } },
  { schemaVersion: 0 },
  { revision: -1 },
  { documentId: '' },
  { documentId: 'has space' },
  { sites: [] },
  [],
];

let failures = 0;
documents.forEach((document, index) => {
  const file = join(folder, `${index}.json`);
  writeFileSync(file, JSON.stringify(document));
  let expected = null;
  try {
    expected = JSON.parse(execFileSync(harness, ['normalize', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {}
  let actual = null;
  try {
    actual = encodeDocument(decodeDocument(JSON.parse(readFileSync(file, 'utf8'))));
  } catch {}
  // The Swift reader refuses a newer schema to write it back; this one reads it (read-only).
  if (expected === null && actual?.schemaVersion > 1) actual = null;
  if (JSON.stringify(expected) !== JSON.stringify(actual)) {
    failures += 1;
    console.log(`${JSON.stringify(document)}\n  swift ${JSON.stringify(expected)}\n  js    ${JSON.stringify(actual)}`);
  }
});
console.log(`${documents.length - failures} of ${documents.length} documents read the same`);
rmSync(folder, { recursive: true });
process.exit(failures === 0 ? 0 : 1);
