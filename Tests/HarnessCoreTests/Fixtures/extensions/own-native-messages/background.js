// Asks its app for the reading mode's default in a message of its own design, then answers the
// pages from what came back: `sepia` when the app said so, `gray` otherwise. The tabs that asked
// before the answer came hear the new decision.
let theme = 'gray';
const asked = new Set();

function decision() {
  return {
    enabled: true, theme, reason: 'modeOn', scope: null, mode: 'on', nativeDarkPolicy: 'respect', schedule: '20:00-06:00',
    source: { mode: 'default', theme: 'default', nativeDarkPolicy: 'default' },
  };
}

browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type !== 'getDecision') return;
  asked.add(sender.tab.id);
  sendResponse(decision());
});

browser.runtime.sendNativeMessage('com.example.reading', { type: 'getDefault', key: 'theme' }).then((reply) => {
  console.log('the app says', JSON.stringify(reply));
  if (reply?.theme !== 'sepia') return;
  theme = 'sepia';
  for (const tab of asked) browser.tabs.sendMessage(tab, { type: 'decision', decision: decision() });
});
