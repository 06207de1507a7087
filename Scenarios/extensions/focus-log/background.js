// Logs the window that has focus, or that none does.
browser.windows.onFocusChanged.addListener((windowId) => {
  console.log(windowId === browser.windows.WINDOW_ID_NONE ? 'focus none' : `focus window ${windowId}`);
});
