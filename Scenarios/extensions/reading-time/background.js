// Reading time's background: the popup's "abridge" goes to the content script of the front tab.

browser.runtime.onMessage.addListener((message) => {
  if (message?.type !== 'abridge') return;
  return browser.tabs.query({ active: true, currentWindow: true }).then(([tab]) => {
    if (tab) browser.tabs.sendMessage(tab.id, { type: 'abridge' });
    return { sent: Boolean(tab) };
  });
});
