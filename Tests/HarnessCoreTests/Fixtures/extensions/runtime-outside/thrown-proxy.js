// Nor does a thrown proxy's trap.
throw new Proxy(new Error('a proxy'), { get() { for (;;) {} } });
