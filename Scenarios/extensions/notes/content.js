// Marks the page with the theme the background gives.
browser.runtime.sendMessage('theme').then((theme) => {
  document.documentElement.dataset.theme = theme;
  console.log(`the first version's page shows ${theme}`);
});
