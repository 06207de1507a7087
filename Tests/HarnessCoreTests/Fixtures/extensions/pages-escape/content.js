// A rejection nobody handles is said as its own page's, when one input runs several pages.
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { Promise.reject(new Error('dark in ' + location.href)); });
// Every way out to the page host's realm (where `process` is) ends in a refusal to make code
// from a string, because everything a page's script can reach belongs to its page's realm.
const escape = (reach) => { try { return typeof reach()('return process')(); } catch (error) { return error.name; } };
console.log('escapes', [
  () => globalThis.constructor.constructor,
  () => valueOf.constructor,
  () => Object.getPrototypeOf(globalThis).constructor.constructor,
  () => document.constructor.constructor,
  () => browser.runtime.getManifest().constructor.constructor,
  // The manifest's Safari id is not a string: the page gets the extension's default id.
  () => browser.runtime.id.constructor.constructor,
].map(escape).join(' '));
// The errors a script gets back from the runtime's functions at the stack's limit are its
// realm's own, never the host's.
const atTheLimit = (call) => {
  const constructors = new Set();
  const deep = () => {
    try { deep(); } catch {}
    try { call(); } catch (error) { constructors.add(error.constructor); }
  };
  deep();
  return [...new Set([...constructors].map((made) => escape(() => made.constructor)))].join('+');
};
console.log('at the limit', atTheLimit(() => Date.now()), atTheLimit(() => Math.random()), browser.runtime.id);
// import() is node's own code: what it throws or rejects with is the host's realm's, whose
// Function refuses to make code from a string too (the host runs with
// --disallow-code-generation-from-strings), at the stack's limit or not.
if (location.href === 'https://a.example/') {
  const refused = new Set();
  let told = false;
  const rejection = (error) => {
    refused.add(escape(() => error.constructor.constructor));
    if (told) return;
    told = true;
    Promise.resolve().then(() => Promise.resolve()).then(() => console.log('import refused', [...refused].join('+')));
  };
  import('node:fs').catch(rejection);
  // Only the deepest calls, where the limit bites: import() is slow, and the watchdog short.
  let calls = 64;
  console.log('import at the limit', atTheLimit(() => { if (calls-- > 0) import('node:fs').catch(rejection); }));
}
// Time is the frames': no Date reads the machine's clock, Intl formats the frames' time, and
// nothing depends on the collector.
console.log('clock', Object.getPrototypeOf(Date) === Function.prototype, new Date().constructor === Date, Date(),
  new Intl.DateTimeFormat('en', { timeZone: 'UTC', timeStyle: 'short' }).format(), typeof new WeakRef({}).deref());
