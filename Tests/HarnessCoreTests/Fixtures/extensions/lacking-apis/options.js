// The options page opens a window of Safari's (which the runtime lacks) and keeps a draft in
// storage.session (which extension pages have).
try {
    browser.windows.create({ url: 'https://a.example/' }).then((window) => { document.getElementById('windows').textContent = String(window.id); });
} catch (error) {
    document.getElementById('windows').textContent = error.message;
}
browser.storage.session.set({ draft: '' });
