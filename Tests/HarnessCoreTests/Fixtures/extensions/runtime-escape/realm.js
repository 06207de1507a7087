// The global object is the scripts' realm's, prototype and all: its constructor is this realm's
// Object, whose Function refuses to make code from a string.
{
  const escape = (reach) => { try { return typeof reach()('return process')(); } catch (error) { return error.name; } };
  console.log('global escapes', [
    () => globalThis.constructor.constructor,
    () => valueOf.constructor,
    () => Object.getPrototypeOf(globalThis).constructor.constructor,
    () => self.constructor.constructor,
  ].map(escape).join(' '));
  // The errors a script gets back from the runtime's functions at the stack's limit are its
  // realm's own, never the runtime's.
  const atTheLimit = (call) => {
    const constructors = new Set();
    const deep = () => {
      try { deep(); } catch {}
      try { call(); } catch (error) { constructors.add(error.constructor); }
    };
    deep();
    return [...new Set([...constructors].map((made) => escape(() => made.constructor)))].join('+');
  };
  console.log('at the limit', atTheLimit(() => Date.now()), atTheLimit(() => Math.random()), atTheLimit(() => performance.now()),
    atTheLimit(() => new Date().getHours()), atTheLimit(() => browser.runtime.getPlatformInfo()));
}
// import() is refused with the scripts' realm's own error (node's refusal is its realm's).
import('./background.js').catch((error) => {
  console.log('import', error.name, (() => { try { return typeof error.constructor.constructor('return process')(); } catch (refusal) { return refusal.name; } })());
});
// import() at the stack's limit: node's own import code throws or rejects with its realm's
// RangeError, whose Function refuses to make code from a string (node runs with
// --disallow-code-generation-from-strings).
{
  const escape = (reach) => { try { return typeof reach()('return process')(); } catch (error) { return error.name; } };
  const thrown = new Set(), rejected = new Set();
  let reported = false;
  const rejection = (error) => {
    rejected.add(error.constructor);
    if (reported) return;
    reported = true;
    Promise.resolve().then(() => Promise.resolve()).then(() => console.log('import rejections at the limit',
      [...new Set([...rejected].map((made) => escape(() => made.constructor)))].join('+')));
  };
  // Only the deepest calls, where the limit bites: import() is slow, and the watchdog short.
  let calls = 64;
  const deep = () => {
    try { deep(); } catch {}
    if (calls-- <= 0) return;
    try { import('x').catch(rejection); } catch (error) { thrown.add(error.constructor); }
  };
  deep();
  console.log('import at the limit', [...new Set([...thrown].map((made) => escape(() => made.constructor)))].join('+'));
}
