// The first version keeps the theme under its own key, chosen as the extension is installed.
browser.runtime.onInstalled.addListener(({ reason }) => {
  if (reason === 'install') browser.storage.local.set({ theme: 'sepia' });
});
// A page asks for the theme.
browser.runtime.onMessage.addListener((message) => {
  if (message !== 'theme') return undefined;
  return browser.storage.local.get('theme').then(({ theme }) => theme ?? 'none');
});
