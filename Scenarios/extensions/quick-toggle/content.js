// Marks the page dark or light as storage.local says, and again whenever it changes.
function mark(dark) {
  document.documentElement.dataset.dark = String(dark === true);
}

chrome.storage.local.get('dark').then(({ dark }) => mark(dark));
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes.dark) mark(changes.dark.newValue);
});
