// The classic mistake: the message listener is added once storage answers, after the load,
// so Safari has no listener saved for the message that woke the background.
const answer = {
  enabled: false, theme: 'gray', reason: 'modeOff', scope: null, mode: 'off', nativeDarkPolicy: 'respect', schedule: '20:00-06:00',
  source: { mode: 'default', theme: 'default', nativeDarkPolicy: 'default' },
};
browser.storage.local.get('cache').then(() => {
  browser.runtime.onMessage.addListener((message, sender, sendResponse) => { sendResponse(answer); });
});
