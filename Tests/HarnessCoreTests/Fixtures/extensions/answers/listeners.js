// Run as the background and as a content script. Listeners whose promises reject: Safari drops
// the rejection, unreported, and the sender waits until the listener's context goes (then it
// gets nothing); one that returned true still answers later.
browser.runtime.onMessage.addListener((message) => {
  if (message.kind === 'resolve') return Promise.resolve({ ok: true });
  return Promise.reject(new Error('no answer from this listener'));
});
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.kind !== 'held') return undefined;
  setTimeout(() => sendResponse('later'), 5);
  return true;
});
