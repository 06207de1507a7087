// Keeps a history of what it was asked, each entry padded to a mebibyte, and never drops one:
// a cache with no bound. Asked once, it fills the history until the memory runs out.

const history = [];

browser.runtime.onMessage.addListener((message) => {
  if (message.type !== 'getDecision') return;
  for (;;) history.push(new Array(128 * 1024).fill(history.length));
});
