// Talks to its tab's content script on a port, and says how each port closed.
const closed = (port, what) => port.onDisconnect.addListener(() => console.log(`${what} closed: ${browser.runtime.lastError?.message ?? 'by the page'}`));
document.getElementById('talk').addEventListener('click', async () => {
    const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
    const port = browser.tabs.connect(tab.id, { name: 'talk' });
    port.onMessage.addListener((message) => {
        console.log(`the popup heard ${message}`);
        port.postMessage('bye');
    });
    closed(port, `the port to tab ${tab.id}`);
    port.postMessage('hello');
});
document.getElementById('nobody').addEventListener('click', () => closed(browser.tabs.connect(999, { name: 'lost' }), 'the port to tab 999'));
