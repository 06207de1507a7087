// Reads its theme from storage.local, then listens for the pages' questions. The listener is
// added once the storage promise settles, after the background has loaded: Safari hears it then,
// but the question that woke the background came before it, found no listener and is lost.

function decision(theme) {
  return {
    enabled: true, theme, reason: 'modeOn', scope: null, mode: 'on', nativeDarkPolicy: 'respect', schedule: '20:00-06:00',
    source: { mode: 'default', theme: 'default', nativeDarkPolicy: 'default' },
  };
}

browser.storage.local.get({ theme: 'gray' }).then(({ theme }) => {
  browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (message.type === 'getDecision') sendResponse(decision(theme));
  });
});
