// At install: the default size is kept, and the options page opens so that the user can choose.
chrome.runtime.onInstalled.addListener(async ({ reason }) => {
    if (reason !== 'install') return;
    await chrome.storage.sync.set({ size: 'medium' });
    await chrome.runtime.openOptionsPage();
    console.log('installed: the options page is open');
});
