// The popup says which of Safari's windows it opened in, how many windows there are, how many
// tabs its own window has (windows.getCurrent with populate), which window was last focused and
// which has focus now.
// It says where focus goes while it is open (windows.onFocusChanged; -1: no window of Safari's).
browser.windows.onFocusChanged.addListener((id) => console.log(`focus moved to ${id}`));
(async () => {
  const current = await browser.windows.getCurrent({ populate: true });
  const all = await browser.windows.getAll();
  const last = await browser.windows.getLastFocused();
  const focused = all.find((window) => window.focused);
  document.getElementById('windows').textContent =
    `window ${current.id} of ${all.length}, ${current.tabs.length} tab(s), last focused ${last.id}, focus ${focused?.id ?? 'none'}`;
})();
