// The options page's calls on Safari's tabs, each leaving a mark on the page: how many times it
// loaded, and where its last call got to.
const root = document.documentElement;
const loads = Number(sessionStorage.getItem('loads') ?? 0) + 1;
sessionStorage.setItem('loads', String(loads));
root.dataset.loads = String(loads);
const news = async () => (await browser.tabs.query({})).find((tab) => tab.url.startsWith('https://news.'));
document.getElementById('ask').addEventListener('click', async () => {
    root.dataset.step = 'asking';
    const answer = await browser.tabs.sendMessage((await news()).id, 'ping');
    root.dataset.step = answer;
});
document.getElementById('reload').addEventListener('click', () => {
    root.dataset.step = 'reloading';
    browser.tabs.reload();
});
// The page asks its own tab, which answers by asking again: without end.
browser.runtime.onMessage.addListener((count, sender, sendResponse) => {
    browser.tabs.query({ active: true, currentWindow: true }).then(([tab]) => browser.tabs.sendMessage(tab.id, count + 1));
    sendResponse(count);
});
document.getElementById('loop').addEventListener('click', async () => {
    const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
    browser.tabs.sendMessage(tab.id, 0);
});
