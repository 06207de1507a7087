// The options page counts Safari's windows (which the runtime lacks) and keeps a draft in
// storage.session (which extension pages have).
try {
    browser.windows.getAll().then((windows) => { document.getElementById('windows').textContent = String(windows.length); });
} catch (error) {
    document.getElementById('windows').textContent = error.message;
}
browser.storage.session.set({ draft: '' });
