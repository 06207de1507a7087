// Tells the worker how many links the page has, and marks the page with the badge it got.
chrome.runtime.sendMessage({ type: 'links', count: document.links.length }).then((answer) => {
  document.documentElement.dataset.badge = answer?.badge ?? '';
});
