// Keeps each news page that finished loading; the filter leaves every other site out.
chrome.webNavigation.onCompleted.addListener(async ({ url, tabId }) => {
  const { visits = [] } = await chrome.storage.local.get('visits');
  await chrome.storage.local.set({ visits: [...visits, url] });
  console.log('visit', url, 'in tab', tabId);
}, { url: [{ hostSuffix: 'news.example.com' }] });
