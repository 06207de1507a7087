// Opens a notes tab behind a page that asks for one (or finds the one it opened before), and
// answers the page its id.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message?.type !== 'companion') return false;
  (async () => {
    const [open] = await chrome.tabs.query({ url: 'https://docs.example.com/notes' });
    const tab = open ?? await chrome.tabs.create({ url: 'https://docs.example.com/notes#companion', active: false });
    console.log(open ? 'found' : 'opened', tab.id, 'for', sender.tab.id);
    sendResponse({ opened: tab.id });
  })();
  return true;
});
