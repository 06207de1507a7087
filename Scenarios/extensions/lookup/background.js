// Looks a page up in what it knows: it knows nothing yet, so its promise rejects. The
// extension's author expects the page to hear `undefined` at once, as Chrome answers a
// rejection with an error; Safari drops the rejection and the page waits.
const known = new Map();

browser.runtime.onMessage.addListener(async (message) => {
  if (message?.type !== 'lookup') return undefined;
  const entry = known.get(message.url);
  if (entry === undefined) throw new Error(`nothing known of ${message.url}`);
  return entry;
});
