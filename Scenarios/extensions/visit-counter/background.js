// An event page (Manifest V2, not persistent): it keeps the pages seen on each site in its own
// localStorage, which outlives the page when Safari unloads it, answers each page its site's
// count and tells the site's other tabs the new one.
window.addEventListener('load', () => console.log('event page loaded'));

function pagesOf(host) {
  return JSON.parse(localStorage.getItem('pages:' + host) ?? '[]');
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only a tab's content script counts (a common check, which needs tab ids to be numbers).
  if (message?.type !== 'visited' || typeof sender.tab?.id !== 'number') return false;
  const url = new URL(sender.url);
  const pages = pagesOf(url.hostname);
  if (!pages.includes(url.pathname)) {
    pages.push(url.pathname);
    localStorage.setItem('pages:' + url.hostname, JSON.stringify(pages));
    console.log('tab', sender.tab.id, 'page', pages.length, 'on', url.hostname);
    chrome.tabs.query({ url: `*://${url.hostname}/*` }, (tabs) => {
      for (const tab of tabs) if (tab.id !== sender.tab.id) chrome.tabs.sendMessage(tab.id, { type: 'count', pages: pages.length });
    });
  }
  localStorage.setItem('last', url.hostname);
  sendResponse({ pages: pages.length });
  return false;
});
