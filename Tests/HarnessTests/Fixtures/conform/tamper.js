// Stands between the harness and a process of the frame protocol and breaks the protocol in
// one way, to show that `harness conform` sees it:
//   node tamper.js skip-yield PROCESS ARG...        answers the process's `rename` yields itself
//   node tamper.js frame-after-done PROCESS ARG...  sends an error frame after every done
//   node tamper.js refuse-inputs PROCESS ARG...     answers every input with an error frame
'use strict';
const { spawn } = require('node:child_process');

const [mode, executable, ...args] = process.argv.slice(2);
const child = spawn(executable, args, { stdio: ['pipe', 'pipe', 'inherit'] });
let now = 0;
// The process's hello goes out first; refusals wait for it.
let helloForwarded = false;
let refusalsWaiting = 0;

function refuse() {
  write(process.stdout, Buffer.from(JSON.stringify({ kind: 'error', message: 'refused' })));
}

// Calls `onFrame` with each whole frame (4-byte little-endian length, then the payload).
function frames(stream, onFrame) {
  let buffered = Buffer.alloc(0);
  stream.on('data', (data) => {
    buffered = Buffer.concat([buffered, data]);
    while (buffered.length >= 4) {
      const length = buffered.readUInt32LE(0);
      if (buffered.length < 4 + length) break;
      onFrame(buffered.subarray(4, 4 + length));
      buffered = buffered.subarray(4 + length);
    }
  });
}

function write(stream, payload) {
  const header = Buffer.alloc(4);
  header.writeUInt32LE(payload.length);
  stream.write(Buffer.concat([header, payload]));
}

frames(process.stdin, (payload) => {
  let frame = null;
  try {
    frame = JSON.parse(payload.toString('utf8'));
    if (typeof frame.now === 'number') now = frame.now;
  } catch (error) {
    // Not JSON: the process answers it.
  }
  if (mode === 'refuse-inputs' && frame !== null && frame.kind === 'input') {
    if (helloForwarded) refuse(); else refusalsWaiting += 1;
    return;
  }
  write(child.stdin, payload);
});

frames(child.stdout, (payload) => {
  const frame = JSON.parse(payload.toString('utf8'));
  if (mode === 'skip-yield' && frame.kind === 'yield' && frame.point === 'rename') {
    write(child.stdin, Buffer.from(JSON.stringify({ kind: 'continue', now })));
    return;
  }
  write(process.stdout, payload);
  if (frame.kind === 'hello') {
    helloForwarded = true;
    for (; refusalsWaiting > 0; refusalsWaiting -= 1) refuse();
  }
  if (mode === 'frame-after-done' && frame.kind === 'done') {
    write(process.stdout, Buffer.from(JSON.stringify({ kind: 'error', message: 'a frame after done' })));
  }
});

process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code, signal) => process.exit(code === null ? 1 : code));
