// Marks the page with the settings' theme. A question answered with nothing (the background
// died before answering) is asked again half a second later, up to three times.
function ask(triesLeft) {
  browser.runtime.sendMessage('settings').then((settings) => {
    if (settings === undefined && triesLeft > 0) {
      setTimeout(() => ask(triesLeft - 1), 500);
      return;
    }
    const theme = settings?.theme ?? 'none';
    document.documentElement.dataset.theme = theme;
    console.log(`the second version's page shows ${theme}`);
  });
}
ask(3);
