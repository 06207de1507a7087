// Answers a page's greeting; the listener is registered as the script starts.
browser.runtime.onMessage.addListener((message) => (message === 'hello' ? Promise.resolve('hi') : undefined));
