// Marks the page with the theme the background gives. A question answered with nothing (the
// background died before answering) is asked again half a second later, up to three times.
function ask(triesLeft) {
  browser.runtime.sendMessage('theme').then((theme) => {
    if (theme === undefined && triesLeft > 0) {
      setTimeout(() => ask(triesLeft - 1), 500);
      return;
    }
    document.documentElement.dataset.theme = theme ?? 'none';
    console.log(`the first version's page shows ${theme ?? 'none'}`);
  });
}
ask(3);
