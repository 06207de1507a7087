// An extension page in a tab: the extension pages' APIs, its tab's window as the current one.
const out = document.getElementById('out');
browser.tabs.query({ currentWindow: true }).then((tabs) => {
    out.textContent = `session ${typeof browser.storage.session}, tabs ${tabs.map((tab) => tab.id).join(',')}, at ${location.pathname}`;
});
document.getElementById('again').addEventListener('click', () => browser.runtime.openOptionsPage().then(() => console.log('asked')));
