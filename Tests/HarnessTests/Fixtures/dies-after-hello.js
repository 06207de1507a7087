// A process of the frame protocol that starts well and then dies of itself: it says its hello
// for the role it is given, and exits with the code it is given as soon as its first input
// comes. The harness adds its own arguments after these.
//   node dies-after-hello.js ROLE CODE
'use strict';
const [role, code] = process.argv.slice(2);

const payload = Buffer.from(JSON.stringify({ kind: 'hello', protocol: 1, role }));
const header = Buffer.alloc(4);
header.writeUInt32LE(payload.length);
process.stdout.write(Buffer.concat([header, payload]));
process.stdin.once('data', () => process.exit(Number(code)));
