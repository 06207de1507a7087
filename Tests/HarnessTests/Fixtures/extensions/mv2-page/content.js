// Asks the background for this site's number, and shows it.
browser.runtime.sendMessage({ type: 'visit', host: location.hostname }).then((answer) => {
  document.documentElement.dataset.site = String(answer.number);
});
