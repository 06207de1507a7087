// Waits for the page's question to be answered somewhere else, in a loop that nothing in the
// turn can end: the background never yields again.

let answered = false;

browser.runtime.onMessage.addListener((message) => {
  if (message.type !== 'getDecision') return;
  while (!answered) {
    // Nothing here sets `answered`: the callback that would runs only after this turn.
  }
});
