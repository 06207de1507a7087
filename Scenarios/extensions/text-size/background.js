// At install: the default size is kept, and the options page opens so that the user can choose.
chrome.runtime.onInstalled.addListener(async ({ reason }) => {
    if (reason !== 'install') return;
    await chrome.storage.sync.set({ size: 'medium' });
    await chrome.runtime.openOptionsPage();
    console.log('installed: the options page is open');
});

// Each change of the size is confirmed to the extension's own pages, which the options page shows.
chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== 'sync' || !changes.size) return;
    chrome.runtime.sendMessage({ type: 'saved', size: changes.size.newValue ?? 'medium' })
        .then((answer) => console.log(`confirmed to ${answer ?? 'no page'}`), () => console.log('no page of its own is open'));
});
