// The popup asks the front tab's content script what size its page shows, and its one control
// opens the options page.
const here = document.getElementById('here');
browser.tabs.query({ active: true, currentWindow: true })
    .then(([tab]) => browser.tabs.sendMessage(tab.id, { type: 'size?' }))
    .then((size) => { here.textContent = size === undefined ? 'This page has no text size' : `This page: ${size}`; });
document.getElementById('settings').addEventListener('click', () => browser.runtime.openOptionsPage());
