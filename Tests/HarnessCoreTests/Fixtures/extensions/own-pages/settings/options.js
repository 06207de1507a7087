// An extension page in a tab: the extension pages' APIs, its tab's window as the current one.
const out = document.getElementById('out');
browser.tabs.query({ currentWindow: true }).then((tabs) => {
    out.textContent = `session ${typeof browser.storage.session}, tabs ${tabs.map((tab) => tab.id).join(',')}, at ${location.pathname}`;
});
// Safari's windows as the page reads them: its own, the one last focused, the focused one.
Promise.all([browser.windows.getCurrent({ populate: true }), browser.windows.getLastFocused(), browser.windows.getAll()]).then(([current, last, all]) => {
    const focused = all.find((window) => window.focused)?.id ?? 'none';
    document.getElementById('windows').textContent = `current ${current.id} (${current.tabs.length} tab), last focused ${last.id}, focus ${focused}, ${all.length} windows`;
});
document.getElementById('again').addEventListener('click', () => browser.runtime.openOptionsPage().then(() => console.log('asked')));
