// Saves a counter every 20 seconds with its own timer (which keeps nothing loaded), and listens
// for storage changes (which Safari wakes a background for).
browser.storage.onChanged.addListener((changes) => console.log('saved', changes.count?.newValue));
let count = 0;
setInterval(() => browser.storage.local.set({ count: ++count }), 20000);
