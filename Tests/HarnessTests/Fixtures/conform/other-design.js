// A native handler of another design than this project's, kept to the frame protocol: it
// serves requests in turn, answers each with an echo of its message, writes nothing to the
// container, and answers a frame it cannot read with an error frame. The harness adds its own
// arguments after the script's path.
'use strict';

function write(frame) {
  const payload = Buffer.from(JSON.stringify(frame));
  const header = Buffer.alloc(4);
  header.writeUInt32LE(payload.length);
  process.stdout.write(Buffer.concat([header, payload]));
}

write({ kind: 'hello', protocol: 1, role: 'handler' });
let buffered = Buffer.alloc(0);
process.stdin.on('data', (data) => {
  buffered = Buffer.concat([buffered, data]);
  while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32LE(0)) {
    const text = buffered.subarray(4, 4 + buffered.readUInt32LE(0)).toString('utf8');
    buffered = buffered.subarray(4 + buffered.readUInt32LE(0));
    let frame;
    try { frame = JSON.parse(text); } catch { write({ kind: 'error', message: 'a frame that is not JSON' }); continue; }
    if (frame.kind === 'input') write({ kind: 'done', directives: [{ type: 'reply', message: { echo: frame.input.message } }] });
  }
});
