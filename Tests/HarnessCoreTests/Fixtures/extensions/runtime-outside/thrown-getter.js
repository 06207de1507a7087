// Node reads the stack of what a script throws to add the line it came from, after the
// watchdog stopped: not here, so no getter of a thrown value runs there.
throw { get stack() { for (;;) {} } };
