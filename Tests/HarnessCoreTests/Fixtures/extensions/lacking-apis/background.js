// What this background reaches for that the runtime may lack; new URL('x') in a comment is not
// a use.
browser.runtime.onMessage.addListener((message) => {
  if (message === 'open') browser.windows.create({ url: new URL('https://example.com/').href });
  return chrome.storage.sync.get('x');
});
browser.storage.local.get('x');
