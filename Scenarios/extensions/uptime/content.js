// Marks the page with the time the background page started.
chrome.runtime.sendMessage({ type: 'since' }, (answer) => {
  if (answer) document.documentElement.dataset.since = String(answer.since);
});
