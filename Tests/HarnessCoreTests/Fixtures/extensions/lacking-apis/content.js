// A content script reaching for storage and the window's globals.
const saved = localStorage.getItem('x');
requestAnimationFrame(() => browser.storage.local.set({ saved }));
const text = new TextEncoder().encode('x');
