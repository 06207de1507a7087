// Tells the event page of this visit, and shows the site's count of pages seen when it answers,
// and again whenever another of the site's pages changes it.
function show(pages) {
  document.documentElement.dataset.pages = String(pages);
}

chrome.runtime.sendMessage({ type: 'visited' }, (answer) => {
  if (chrome.runtime.lastError || !answer) return;
  show(answer.pages);
});

chrome.runtime.onMessage.addListener((message) => {
  if (message?.type === 'count') show(message.pages);
});
