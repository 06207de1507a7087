// A script that throws: the microtasks it queued still run before the page is read.
Promise.resolve().then(() => document.documentElement.classList.add('late'));
throw new Error('late throws');
