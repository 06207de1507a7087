console.log('imported', typeof browser.runtime.onMessage);
// What importScripts fails with is this realm's error: outside the extension, or a script that
// does not compile.
console.log('import escapes', [
  () => { try { importScripts('../outside.js'); } catch (error) { return error.constructor.constructor('return process')(); } },
  () => { try { importScripts('broken.js'); } catch (error) { return error.constructor.constructor('return process')(); } },
].map((escape) => { try { return typeof escape(); } catch (error) { return error.name; } }).join(' '));
