// The worker hears every message and answers none.
chrome.runtime.onMessage.addListener((message) => { console.log(`worker heard ${message}`); });
