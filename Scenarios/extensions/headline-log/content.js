// Tells the event page this page's headline (its heading's HTML), and shows how many headlines
// the event page holds: its answer, and each count it sends later.
function show(count) {
  document.documentElement.dataset.headlines = String(count);
}

const heading = document.querySelector('h1');
chrome.runtime.sendMessage({ type: 'headline', html: heading ? heading.outerHTML : '<h1>(untitled)</h1>' }, (answer) => {
  if (chrome.runtime.lastError || !answer) return;
  show(answer.count);
});

chrome.runtime.onMessage.addListener((message) => {
  if (message?.type === 'count') show(message.count);
});
