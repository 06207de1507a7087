// The second version keeps every choice in one 'settings' object. Each load first moves what the
// first version kept ('theme') into it, once; a question waits for that, so no page reads the
// settings half moved.
const ready = browser.storage.local.get(['theme', 'settings']).then(async ({ theme, settings }) => {
  if (theme === undefined) return;
  await browser.storage.local.set({ settings: { ...settings, theme } });
  await browser.storage.local.remove('theme');
  console.log(`moved theme ${theme} into settings`);
});
browser.runtime.onInstalled.addListener(({ reason, previousVersion }) => {
  console.log(`${reason} from ${previousVersion} to ${browser.runtime.getManifest().version}`);
});
browser.runtime.onMessage.addListener((message) => {
  if (message !== 'settings') return undefined;
  return ready.then(() => browser.storage.local.get('settings')).then(({ settings }) => settings ?? {});
});
