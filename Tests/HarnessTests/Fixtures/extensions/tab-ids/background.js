// Answers a page with its tab's id and the id's type, logs the ids of every open tab, and says
// which tab closed; a message back to the tab goes by its id.
browser.runtime.onMessage.addListener(async (message, sender) => {
  const ids = (await browser.tabs.query({})).map((tab) => tab.id);
  console.log('open tabs', JSON.stringify(ids));
  browser.tabs.sendMessage(sender.tab.id, { type: 'hello', id: sender.tab.id }).catch(() => {});
  return { id: sender.tab.id, kind: typeof sender.tab.id };
});
browser.tabs.onRemoved.addListener((tabId) => console.log('closed', typeof tabId, tabId));
