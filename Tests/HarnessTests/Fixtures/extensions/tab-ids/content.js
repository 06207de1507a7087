// Shows the id the background says this page's tab has, and the one it sends back.
browser.runtime.onMessage.addListener((message) => {
  if (message.type === 'hello') document.documentElement.dataset.hello = String(message.id);
});
browser.runtime.sendMessage({ type: 'which' }).then((answer) => {
  document.documentElement.dataset.tab = answer.kind + '-' + answer.id;
});
