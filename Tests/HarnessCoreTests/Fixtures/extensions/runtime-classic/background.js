// Registered while the background loads (its top-level code and the microtasks after it):
// these wake it.
browser.runtime.onMessage.addListener(() => {});
Promise.resolve().then(() => browser.tabs.onActivated.addListener(() => {}));
// Registered in a timer's turn: too late to wake it.
setTimeout(() => {
  browser.windows.onFocusChanged.addListener(() => {});
  console.log('timer', Date.now(), performance.now());
}, 1000);
console.log('random', Math.random(), crypto.randomUUID());
console.log('time', Date.now(), new Date().toISOString(), performance.now());
console.log('globals', typeof process, typeof require, typeof Buffer, typeof browser.alarms, typeof WeakRef);
try { eval('1'); } catch (error) { console.log('eval', error.name); }
try { browser.windows.create({}); } catch (error) { console.log('missing', error.message); }
importScripts('lib.js');
Promise.reject(new Error('nobody catches this'));
null.missing;
