// A stack's first line is the error's own message, read without running its getter.
const error = new Error();
Object.defineProperty(error, 'message', { get() { for (;;) {} } });
throw error;
