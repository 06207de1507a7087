// The popup asks the front tab's content script what size its page shows; its controls open the
// options page, and the help site in a new tab.
const here = document.getElementById('here');
browser.tabs.query({ active: true, currentWindow: true })
    .then(([tab]) => (tab === undefined ? undefined : browser.tabs.sendMessage(tab.id, { type: 'size?' })))
    .then((size) => { here.textContent = size === undefined ? 'This page has no text size' : `This page: ${size}`; });
// Whether the settings are open: the options page answers, if one is open (the worker does not).
browser.runtime.sendMessage({ type: 'editing?' }).then((tab) => {
    document.getElementById('editing').textContent = tab === undefined ? 'Settings are closed' : `Settings are open in tab ${tab}`;
});
// The popup is in no tab of its own.
browser.tabs.getCurrent().then((tab) => console.log(`the popup is in ${tab === undefined ? 'no tab' : `tab ${tab.id}`}`));
document.getElementById('settings').addEventListener('click', () => browser.runtime.openOptionsPage());
document.getElementById('help').addEventListener('click', async () => {
    const tab = await browser.tabs.create({ url: 'https://help.example.com/text-size' });
    console.log(`help opened in tab ${tab.id}, active ${tab.active}`);
});
