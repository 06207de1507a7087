// Any stack text a script gives its error is read quickly.
const long = new Error('a long stack');
Object.defineProperty(long, 'stack', { value: 'x'.repeat(200000) });
throw long;
