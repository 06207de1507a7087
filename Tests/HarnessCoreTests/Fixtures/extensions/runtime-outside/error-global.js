// Node looks the stack formatter up on the global Error when a stack is first read, which may be
// in the runtime, outside the watchdog: no script replaces it.
Object.defineProperty(globalThis, 'Error', { get() { for (;;) {} } });
throw new TypeError('read outside the watchdog');
