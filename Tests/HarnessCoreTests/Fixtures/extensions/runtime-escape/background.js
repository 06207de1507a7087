// Every way out to the runtime's own realm (where `process` is) ends in a refusal to make code
// from a string, because everything a script can reach belongs to its own realm.
const escapes = [
  () => browser.constructor.constructor('return process')(),
  () => browser.runtime.onMessage.addListener.constructor('return process')(),
  () => browser.runtime.getManifest().constructor.constructor('return process')(),
  () => { try { setTimeout('x'); } catch (error) { return error.constructor.constructor('return process')(); } },
  () => { try { browser.windows.create(); } catch (error) { return error.constructor.constructor('return process')(); } },
  // A value that is not JSON fails with this realm's error.
  () => { try { browser.tabs.sendMessage('t1', { type: 'decision', decision: () => 1 }); } catch (error) { return error.constructor.constructor('return process')(); } },
];
console.log('escapes', escapes.map((escape) => { try { return typeof escape(); } catch (error) { return error.name; } }).join(' '));
try { browser.runtime.getBackgroundPage(); } catch (error) { console.log('missing member', error instanceof Error, error.message); }
console.log('absent', typeof browser.storage, typeof browser.then, typeof browser.windows.then, typeof browser.bookmarks);
try { Object.defineProperty(globalThis, '__runtimeTurn', { value() {} }); } catch (error) { console.log('turn kept', error.name); }
console.log('clock', Date(), new Date().getTimezoneOffset(), Object.getPrototypeOf(Date) === Function.prototype,
  new Intl.DateTimeFormat('en', { timeZone: 'UTC', timeStyle: 'short' }).format());
// Delays as browsers read them: a fraction truncated, past 2^31-1 or not a number read as 0;
// an interval runs at most once a millisecond.
setTimeout(() => {}, 0.5);
setTimeout(() => {}, 1e300);
setTimeout(() => {}, 'soon');
setInterval(() => {}, 0);
// A listener removed while the background loads does not wake it.
const gone = () => {};
browser.tabs.onRemoved.addListener(gone);
browser.tabs.onRemoved.removeListener(gone);
// A stack names the scripts' frames only, and no script can make reading one loop.
Error.prepareStackTrace = () => { for (;;) {} };
function where() { return new Error('here').stack; }
console.log('stack', where().split('\n').join(' |'));
// Built-ins a stack's formatting could use, replaced by loops: a rejection nobody handles is
// still described, with its place, without running them.
String.prototype.startsWith = function () { for (;;) {} };
RegExp.prototype.exec = function () { for (;;) {} };
Object.getOwnPropertyDescriptor = function () { for (;;) {} };
Object.prototype.valueOf = function () { for (;;) {} };
Promise.reject(new Error('later'));
// A thrown object whose name loops is described without running it.
throw { message: 'loops', get name() { for (;;) {} } };
