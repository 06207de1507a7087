// V8 formats a stack when it is first read, which may be in the host, outside the watchdog:
// no script's code formats one.
Error.prepareStackTrace = () => { for (;;) {} };
throw new Error('formatted without the script');
