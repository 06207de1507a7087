// A page host that answers its first input with a log and an output the page host never
// writes ({"type": "foo"}), for PageHostCodecTests.
process.stdin.once('data', () => {
    const json = Buffer.from(JSON.stringify({ outputs: [{ type: 'log', page: 'popup', level: 'log', text: 't' }, { type: 'foo' }] }), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32LE(json.length);
    process.stdout.write(Buffer.concat([header, json]));
});
