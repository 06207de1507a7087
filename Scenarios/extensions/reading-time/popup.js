// Reading time's popup: one button, which asks for the front tab's article to be shortened.

document.getElementById('abridge').addEventListener('click', () => {
  browser.runtime.sendMessage({ type: 'abridge' });
});
