// Reader's content script: the page reads in reading mode (a class on the root element) while
// the background says so for its site.
function show(reading) {
  document.documentElement.classList.toggle('reading-mode', reading === true);
  console.log('applied reading', reading === true);
}

browser.runtime.sendMessage({ type: 'shouldRead' }).then((answer) => show(answer?.reading));

browser.runtime.onMessage.addListener((message) => {
  if (message.type === 'reading') show(message.reading);
});
