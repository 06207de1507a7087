// Marks the page with the settings' theme.
browser.runtime.sendMessage('settings').then((settings) => {
  document.documentElement.dataset.theme = settings.theme ?? 'none';
  console.log(`the second version's page shows ${settings.theme ?? 'none'}`);
});
