// The options page shows the size kept, and keeps the one the user picks.
const select = document.getElementById('size');
const current = document.getElementById('current');
const show = (size) => {
    select.value = size;
    current.textContent = `Current size: ${size}`;
};
document.addEventListener('DOMContentLoaded', async () => {
    const { size } = await browser.storage.sync.get({ size: 'medium' });
    show(size);
});
select.addEventListener('change', () => browser.storage.sync.set({ size: select.value }));
document.getElementById('reset').addEventListener('click', () => browser.storage.sync.remove('size'));
// Done closes the page's own tab (tabs.getCurrent: the tab this page is in).
document.getElementById('done').addEventListener('click', async () => {
    const tab = await browser.tabs.getCurrent();
    const same = await browser.tabs.get(tab.id);
    console.log(`closing tab ${tab.id} at ${same.index} in window ${same.windowId}`);
    await browser.tabs.remove(tab.id);
});
// The popup asks whether the settings are open (a message from one of the extension's pages
// reaches the others): the page answers with its own tab, and says who asked.
browser.runtime.onMessage.addListener((message, sender) => {
    if (message?.type !== 'editing?') return undefined;
    console.log(`asked from ${new URL(sender.url).pathname}`);
    return browser.tabs.getCurrent().then((tab) => tab.id);
});
// The page says which tabs open, load and close while it is open (tabs' events, as the worker
// would hear them).
browser.tabs.onCreated.addListener((tab) => console.log(`tab ${tab.id} opened in window ${tab.windowId}`));
browser.tabs.onUpdated.addListener((id, change, tab) => {
    if (change.status === 'complete') console.log(`tab ${id} loaded ${new URL(tab.url).hostname}`);
});
browser.tabs.onActivated.addListener(({ tabId }) => console.log(`tab ${tabId} in front`));
browser.tabs.onRemoved.addListener((id, { windowId }) => console.log(`tab ${id} closed in window ${windowId}`));
// The worker confirms each change: the page shows it, and says which page heard it.
browser.runtime.onMessage.addListener((message) => {
    if (message?.type !== 'saved') return undefined;
    document.getElementById('saved').textContent = `Saved: ${message.size}`;
    return Promise.resolve(`the options page at ${location.pathname}`);
});
browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'sync' && changes.size) show(changes.size.newValue ?? 'medium');
});
