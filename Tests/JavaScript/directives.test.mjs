// The wire's objects as directives.mjs builds them: the members each has, and those it leaves
// out. (RuntimeWireTests reads every one of them with ExtensionWire's codec.)
//
// node --experimental-vm-modules --test Tests/JavaScript

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { directive, frame, eventInputs, inputs } from '../../Sources/HarnessCore/Extension/JavaScript/directives.mjs';
import { samples } from './wire-samples.mjs';

test('a member with nothing to say is left out', () => {
    assert.deepEqual(directive.answerPage(1, undefined), { type: 'answerPage', id: 1 });
    assert.deepEqual(directive.answerPage(1, null), { type: 'answerPage', id: 1, answer: null });
    assert.deepEqual(directive.setAlarm(5, '', 0), { type: 'setAlarm', at: 5 });
    assert.deepEqual(directive.setAlarm(5, 'a', 60000), { type: 'setAlarm', at: 5, name: 'a', period: 60000 });
    assert.equal(JSON.stringify(directive.popupAnswer(3, undefined, undefined)), '{"type":"popupAnswer","message":3}');
    assert.deepEqual(frame.log('log', 'hi', undefined), { kind: 'log', level: 'log', message: 'hi' });
    assert.deepEqual(frame.log('error', 'Uncaught', 'background.js:1:2'), { kind: 'log', level: 'error', message: 'Uncaught', at: 'background.js:1:2' });
});

test('a script timer is named as a script\'s, and a tab by its name as text', () => {
    assert.deepEqual(directive.setTimer(2, 10), { type: 'setTimer', timer: { script: 2 }, at: 10 });
    assert.deepEqual(directive.sendDecision('t1', {}), { type: 'sendDecision', tab: 't1', decision: {} });
});

test('a host reads the end of an incarnation by its first bytes, and a request to retire whole', () => {
    assert.equal(JSON.stringify(frame.ended(1)), '{"kind":"ended","code":1}');
    assert.equal(JSON.stringify(frame.retire()), '{"kind":"retire"}');
});

test('every builder has a sample, and the events are inputs', () => {
    const { directives, frames } = samples();
    assert.equal(directives.length, Object.keys(directive).length);
    assert.equal(frames.length, Object.keys(frame).length);
    for (const name of eventInputs) assert.ok(inputs.has(name));
    assert.ok(!eventInputs.has('started') && inputs.has('started'));
});
