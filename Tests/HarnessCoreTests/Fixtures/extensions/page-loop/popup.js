// Each ping changes storage, whose change the options page answers with another ping.
let n = 0;
browser.runtime.onMessage.addListener((message) => { if (message === 'ping') browser.storage.local.set({ n: ++n }); });
browser.storage.local.set({ n: 0 });
