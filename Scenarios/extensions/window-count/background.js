// A page asks where it is: its window (sender.tab.windowId), that window's tabs, and which
// window has focus, if one has.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (message !== 'where') return false;
    (async () => {
        const window = await chrome.windows.get(sender.tab.windowId, { populate: true });
        const all = await chrome.windows.getAll();
        const focused = all.find((each) => each.focused);
        const front = await chrome.tabs.query({ active: true, currentWindow: true });
        sendResponse(`window ${window.id} of ${all.length}, ${window.tabs.length} tab(s), focus ${focused ? focused.id : 'none'}, front tab ${front[0]?.id}`);
    })();
    return true;
});
