// The page's text takes the chosen size now, and again whenever the setting changes.
const apply = (size) => { document.documentElement.dataset.size = size ?? 'medium'; };
chrome.storage.sync.get('size').then(({ size }) => apply(size));
chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'sync' && changes.size) apply(changes.size.newValue);
});
// The popup asks what size the page shows.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (message?.type === 'size?') sendResponse(document.documentElement.dataset.size);
});
