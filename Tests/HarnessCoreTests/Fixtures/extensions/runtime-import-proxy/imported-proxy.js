throw new Proxy({}, { get() { for (;;) {} } });
