import { answer } from './lib/answer.js';

browser.runtime.onMessage.addListener(() => answer);
await null;
// Still part of the load: a top-level await's continuation is a microtask of it.
browser.alarms.onAlarm.addListener(() => {});
console.log('loaded', answer);
// A script that never yields.
setTimeout(() => { for (;;) {} }, 10);
