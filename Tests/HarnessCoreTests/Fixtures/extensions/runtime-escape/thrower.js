// A thrown object whose code loops: the runtime asks whether it is its watchdog's timeout
// without running it.
throw { get code() { for (;;) {} } };
