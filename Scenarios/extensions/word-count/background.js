// At install the marker is registered for news pages: Safari keeps it, and runs it at each load.
chrome.runtime.onInstalled.addListener(async () => {
  await chrome.scripting.registerContentScripts([
    { id: 'marker', matches: ['https://news.example.com/*'], js: ['marker.js'] },
  ]);
});

// The page's own style, as a script run in it reads it.
const outline = async (tabId) => {
  const [{ result }] = await chrome.scripting.executeScript({
    target: { tabId },
    func: () => getComputedStyle(document.body).getPropertyValue('outline-style') || 'none',
  });
  return result;
};

// The command counts the words of the page in front, shows the count on the toolbar item for
// that tab, and outlines the page while it is counted.
chrome.commands.onCommand.addListener(async (name, tab) => {
  if (name !== 'count-words') return;
  const [{ result: words }] = await chrome.scripting.executeScript({
    target: { tabId: tab.id },
    func: (selector) => document.querySelector(selector).textContent.trim().split(/\s+/).length,
    args: ['article'],
  });
  await chrome.action.setBadgeText({ tabId: tab.id, text: String(words) });
  await chrome.scripting.insertCSS({ target: { tabId: tab.id }, css: 'body { outline-style: solid; outline-color: orange; }' });
  console.log('counted', words, 'words in tab', tab.id, 'outline', await outline(tab.id));
  await chrome.scripting.removeCSS({ target: { tabId: tab.id }, css: 'body { outline-style: solid; outline-color: orange; }' });
  console.log('outline after', await outline(tab.id));
});
