// Checks of the background's machine without a browser, after cases of
// Tests/ProcessKitTests/BackgroundMachineTests.swift: cache first, the outbox, timeouts.
//   node tests/machine.mjs
import assert from 'node:assert/strict';
import { decodeDocument } from '../document.js';
import { BackgroundMachine } from '../machine.js';
import { Outbox, confirmed, replaces } from '../outbox.js';

process.env.TZ = 'UTC';
const now = 1_783_940_000_000;
const cached = decodeDocument({
  documentId: 'D', revision: 42,
  defaults: { mode: 'on', theme: 'gray', nativeDarkPolicy: 'respect', schedule: { start: '20:00', end: '06:00' } },
  sites: { 'docs.example.com': { theme: 'sepia', modifiedAt: 1783936800000 } },
});
const local = (cache) => ({ cache, snapshotVersion: cache && { documentId: 'D', revision: 42 }, outbox: [], nextEdit: 1 });
const types = (directives) => directives.map((d) => d.type);

function started(tabs = [['t1', 'https://docs.example.com/guide']], stored = local(cached)) {
  const machine = new BackgroundMachine();
  assert.deepEqual(types(machine.handle({ type: 'started', now, appearance: 'light', tabs, appMessages: false })), ['loadStorage']);
  return { machine, loaded: machine.handle({ type: 'storageLoaded', now, local: stored, session: null }) };
}

// Cache first: the tab is answered from the cache before any native request.
{
  const machine = new BackgroundMachine();
  machine.handle({ type: 'started', now, appearance: 'light', tabs: [], appMessages: false });
  assert.deepEqual(machine.handle({ type: 'tabRequestedDecision', now, tab: 't1', url: 'https://docs.example.com/guide', nativeDark: false }), []);
  const directives = machine.handle({ type: 'storageLoaded', now, local: local(cached), session: null });
  assert.deepEqual(types(directives), ['sendDecision', 'sendNative', 'setTimer']);
  assert.equal(directives[0].decision.theme, 'sepia');
  assert.deepEqual(directives[1].message, { known: { documentId: 'D', revision: 42 }, type: 'getSnapshot' });
  assert.equal(directives[2].at, now + 5000);
}

// Nothing cached: the tab waits for the snapshot, and gets the built-in defaults at the timeout.
{
  const { machine, loaded } = started(undefined, local(null));
  assert.deepEqual(types(loaded), ['sendNative', 'setTimer']);
  const timedOut = machine.handle({ type: 'nativeTimedOut', now: now + 5000, request: 1 });
  assert.deepEqual(types(timedOut), ['sendDecision']);
  assert.equal(timedOut[0].decision.theme, 'dark');
  assert.equal(timedOut[0].decision.reason, 'autoLight');
  // The next event is a reconciliation point: a new request with a whole timeout.
  const next = machine.handle({ type: 'tabActivated', now: now + 6000, tab: 't1' });
  assert.deepEqual(next.find((d) => d.type === 'setTimer').at, now + 11000);
}

// A popup change: saved with the cache in one write, answered and sent once the save is done, acknowledged by the handler.
{
  const { machine } = started();
  machine.handle({ type: 'nativeReplyArrived', now, request: 1, reply: { type: 'notModified', documentId: 'D', revision: 42 } });
  machine.handle({ type: 'popupOpened', now, tab: 't1' });
  const edited = machine.handle({ type: 'popupEdited', now, set: { mode: 'off' }, reset: ['theme'], message: 1, at: now - 1 });
  assert.deepEqual(types(edited), ['saveLocal']);
  assert.deepEqual(edited[0].local.outbox[0].request, {
    at: now - 1, edit: 1, reset: ['theme'], scope: 'docs.example.com', set: { mode: 'off' }, type: 'patch',
  });
  const saved = machine.handle({ type: 'localStorageSaved', now, token: edited[0].token });
  assert.deepEqual(types(saved), ['popupAnswer', 'sendDecision', 'showPopup', 'sendNative', 'setTimer']);
  assert.deepEqual(saved[0], { type: 'popupAnswer', message: 1, saved: true, scope: 'docs.example.com' });
  assert.equal(saved[1].decision.reason, 'modeOff');
  const applied = machine.handle({ type: 'nativeReplyArrived', now, request: 2, reply: { type: 'applied', changed: true, documentId: 'D', revision: 43 } });
  assert.deepEqual(types(applied), ['cancelTimer', 'saveLocal', 'showPopup']);
  assert.deepEqual(applied[1].local.snapshotVersion, { documentId: 'D', revision: 43 });
  assert.deepEqual(applied[1].local.outbox, []);
}

// The outbox keeps one change per record and field: a later change that covers an earlier one replaces it.
{
  const patch = (edit, set, reset = []) => ({ edit, message: 0, request: { type: 'patch', scope: 'a.example', set, reset, at: now, edit } });
  assert.equal(replaces(patch(2, { mode: 'on', theme: 'gray' }), patch(1, { mode: 'off' })), true);
  assert.equal(replaces(patch(2, { mode: 'on' }), patch(1, { mode: 'off', theme: 'gray' })), false);
  assert.equal(replaces({ edit: 2, message: 0, request: { type: 'deleteSite', scope: 'a.example', at: now, edit: 2 } }, patch(1, {}, ['theme'])), true);
  const outbox = Outbox.stored([patch(1, { mode: 'off' })], 2);
  outbox.add(patch(2, { mode: 'on' }), confirmed);
  assert.deepEqual(outbox.entries.map((e) => e.edit), [2]);
  assert.equal(outbox.nextEdit, 3);
}
console.log('machine checks pass');
