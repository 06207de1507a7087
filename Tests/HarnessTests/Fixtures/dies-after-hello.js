// A process of the frame protocol that starts well and then dies of itself: it says its hello
// for the role it is given, and as soon as its first input comes it exits with the code it is
// given, or takes the signal it is given (SIGKILL, as the system's out-of-memory killer sends
// it), or, given `hang`, never answers. The harness adds its own arguments after these.
//   node dies-after-hello.js ROLE CODE|SIGNAL|hang
'use strict';
const [role, code] = process.argv.slice(2);

const payload = Buffer.from(JSON.stringify({ kind: 'hello', protocol: 1, role }));
const header = Buffer.alloc(4);
header.writeUInt32LE(payload.length);
process.stdout.write(Buffer.concat([header, payload]));
process.stdin.once('data', () => {
    if (code === 'hang') return;
    if (code.startsWith('SIG')) process.kill(process.pid, code); else process.exit(Number(code));
});
