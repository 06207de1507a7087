// A script that never yields: the watchdog ends the turn, and the runtime with it.
for (;;) {}
