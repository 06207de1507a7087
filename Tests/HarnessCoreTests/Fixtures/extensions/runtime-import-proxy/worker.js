// A script importScripts runs throws a proxy whose trap loops: the watchdog still ends the turn
// of a script that then never yields.
try { importScripts('imported-proxy.js'); } catch (error) { console.log('imported threw', typeof error); }
for (;;) {}
