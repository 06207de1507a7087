// A native handler of another design than the built-in one, speaking the frame protocol:
// it answers `{"type": "getDefault", "key": K}` with `{"key": K, "value": "sepia"}`, completes `{"type":
// "nothing"}` with no message, cancels `{"type": "cancel"}`, and echoes anything else. It
// serves one request and ends, as the system runs a handler. The harness adds its own
// arguments after the script's path.
'use strict';

function write(frame) {
  const payload = Buffer.from(JSON.stringify(frame));
  const header = Buffer.alloc(4);
  header.writeUInt32LE(payload.length);
  process.stdout.write(Buffer.concat([header, payload]));
}

function answer(message) {
  if (message?.type === 'getDefault') return { type: 'reply', message: { key: message.key, value: 'sepia' } };
  if (message?.type === 'nothing') return { type: 'reply' };
  if (message?.type === 'cancel') return { type: 'cancel' };
  return { type: 'reply', message };
}

write({ kind: 'hello', protocol: 1, role: 'handler' });
let buffered = Buffer.alloc(0);
process.stdin.on('data', (data) => {
  buffered = Buffer.concat([buffered, data]);
  while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32LE(0)) {
    const frame = JSON.parse(buffered.subarray(4, 4 + buffered.readUInt32LE(0)).toString('utf8'));
    buffered = buffered.subarray(4 + buffered.readUInt32LE(0));
    if (frame.kind === 'input') write({ kind: 'done', directives: [answer(frame.input.message)] });
  }
});
process.stdin.on('end', () => process.exit(0));
