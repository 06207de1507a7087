// The command flips the setting in storage.local; every page hears the change itself.
chrome.commands.onCommand.addListener(async (name, tab) => {
  if (name !== 'toggle-dark') return;
  const { dark = false } = await chrome.storage.local.get('dark');
  await chrome.storage.local.set({ dark: !dark });
  console.log('toggled', !dark, 'from tab', tab?.id);
});
