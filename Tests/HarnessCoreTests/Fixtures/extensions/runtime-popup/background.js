// The popup's messages, what the background sends its pages, and what Safari told it at start.
const dark = matchMedia('(prefers-color-scheme: dark)');
dark.addEventListener('change', (change) => console.log('media', change.matches));
browser.runtime.getPlatformInfo().then((info) => console.log('platform', info.os));
browser.tabs.query({}).then((tabs) => console.log('tabs', JSON.stringify(tabs)));

browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  console.log('from', sender.url ?? 'nowhere', message.type);
  if (message.type === 'popupOpened') {
    browser.runtime.sendMessage({ type: 'showPopup', view: { tab: message.tab, url: 'about:blank', unsupported: true, scopes: [], selectedScope: null, pausedUntil: null } });
    browser.tabs.sendMessage(message.tab, { type: 'hello' }).catch((error) => console.log('refused', error.message));
  }
  if (message.type === 'popupEdited') {
    setTimeout(() => sendResponse({ saved: true, scope: 'docs.example.com' }), 10);
    return true;
  }
  if (message.type === 'popupForgotSite') return Promise.resolve({ saved: false, scope: null });
  if (message.type === 'popupClosed') browser.alarms.create('later', { delayInMinutes: 1 });
  return undefined;
});
browser.alarms.onAlarm.addListener((alarm) => console.log('alarm', alarm.name, alarm.scheduledTime));
browser.runtime.connectNative('com.example.app').onMessage.addListener((message) => console.log('app says', message.type));
