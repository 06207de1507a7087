// Asks its app for the reading mode's default in a message of its own design, then answers the
// pages from what came back: `sepia` when the app said so, `gray` otherwise.
let theme = 'gray';

function decision() {
  return {
    enabled: true, theme, reason: 'modeOn', scope: null, mode: 'on', nativeDarkPolicy: 'respect', schedule: '20:00-06:00',
    source: { mode: 'default', theme: 'default', nativeDarkPolicy: 'default' },
  };
}

browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type === 'getDecision') sendResponse(decision());
});

browser.runtime.sendNativeMessage('com.example.reading', { type: 'getDefault', key: 'theme' }).then((reply) => {
  console.log('the app says', JSON.stringify(reply));
  if (reply?.theme === 'sepia') theme = 'sepia';
});
