// A persistent background page: it keeps when it started in a global, which lives as long as
// the page does, and tells each page.
const startedAt = Date.now();
console.log('background page started', startedAt);

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message?.type === 'since') sendResponse({ since: startedAt });
});
