// Saves the reader's theme with its app, reads it back in a second request, and answers the
// pages with what the app holds: the pages show `gray` until the app's answer comes.
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

async function sync() {
  const saved = await browser.runtime.sendNativeMessage({ type: 'setDefault', key: 'theme', value: 'sepia' });
  console.log('saved', JSON.stringify(saved));
  const read = await browser.runtime.sendNativeMessage({ type: 'getDefault', key: 'theme' });
  console.log('read', JSON.stringify(read));
  if (typeof read?.value !== 'string') return;
  theme = read.value;
  for (const tab of asked) browser.tabs.sendMessage(tab, { type: 'decision', decision: decision() });
}

sync().catch((error) => console.log('failed', error.message));
