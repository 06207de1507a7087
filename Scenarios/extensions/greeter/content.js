// Greets the background once, and marks the page with its answer ('nothing' when none came).
browser.runtime.sendMessage('hello').then((answer) => {
  document.documentElement.dataset.answer = answer ?? 'nothing';
});
