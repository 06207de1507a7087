// Word Watch's worker. A click on the toolbar item opens a port to the page of the tab it is
// over (tabs.connect); the page says its words when the port opens, and again each time the
// worker asks on it (a later click over the same tab, while the worker still holds the port).
// Each count goes on that tab's badge. A page with no listener for the port (a site the content
// script does not match) gets "?" on its badge, and the reason is logged.
const ports = new Map();

browser.action.onClicked.addListener((tab) => {
  const open = ports.get(tab.id);
  if (open) {
    open.postMessage({ type: 'count' });
    return;
  }
  const port = browser.tabs.connect(tab.id, { name: 'words' });
  ports.set(tab.id, port);
  port.onMessage.addListener((message) => {
    console.log(`tab ${tab.id} has ${message.words} words (answer ${message.answer})`);
    browser.action.setBadgeText({ tabId: tab.id, text: String(message.words) });
  });
  port.onDisconnect.addListener(() => {
    ports.delete(tab.id);
    const error = browser.runtime.lastError;
    if (error) {
      console.log(`tab ${tab.id} cannot count: ${error.message}`);
      browser.action.setBadgeText({ tabId: tab.id, text: '?' });
    } else {
      console.log(`tab ${tab.id} closed its port`);
    }
  });
});
