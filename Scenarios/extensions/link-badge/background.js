// Puts each tab's count of links on the toolbar item. Safari keeps what it sets for the tab, so
// the badge stays when Safari unloads this worker; the worker answers the page what Safari holds.
chrome.runtime.onInstalled.addListener(({ reason }) => {
  if (reason === 'install') chrome.action.setBadgeText({ text: 'new' });
});

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message?.type !== 'links' || typeof sender.tab?.id !== 'number') return false;
  const tabId = sender.tab.id;
  (async () => {
    await chrome.action.setBadgeText({ tabId, text: message.count > 0 ? String(message.count) : '' });
    await chrome.action.setTitle({ tabId, title: `${message.count} links on this page` });
    if (message.count === 0) await chrome.action.disable(tabId);
    sendResponse({ badge: await chrome.action.getBadgeText({ tabId }) });
  })();
  return true;
});
