// Counts the active tab's paragraphs and marks the page with a style sheet; another tab, which
// the popup's opening did not let the extension into, is refused.
document.getElementById('count').addEventListener('click', async () => {
    const tabs = await chrome.tabs.query({});
    const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
    const [{ result }] = await chrome.scripting.executeScript({ target: { tabId: active.id }, func: (selector) => document.querySelectorAll(selector).length, args: ['p'] });
    await chrome.scripting.insertCSS({ target: { tabId: active.id }, css: 'html { outline-style: solid; }' });
    console.log(`counted ${result} in tab ${active.id}`);
    const other = tabs.find((tab) => tab.id !== active.id);
    await chrome.scripting.executeScript({ target: { tabId: other.id }, func: () => 1 }).catch((error) => console.log(`tab ${other.id}: ${error.message}`));
    await chrome.scripting.executeScript({ target: { tabId: 99 }, func: () => 1 }).catch((error) => console.log(`tab 99: ${error.message}`));
});
