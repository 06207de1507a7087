// Node looks the formatter up on the global Error: no script replaces it.
Object.defineProperty(globalThis, 'Error', { get() { for (;;) {} } });
