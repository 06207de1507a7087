const decision = (theme) => ({
  enabled: true, theme, reason: 'modeOn', scope: null, mode: 'on', nativeDarkPolicy: 'respect', schedule: '20:00-06:00',
  source: { mode: 'default', theme: 'default', nativeDarkPolicy: 'default' },
});

// The decision message: the run's first tab (id 1, or t1 where frames give no numbers) is answered
// at once with sendResponse; any other tab by a promise that a timer resolves, in a later turn.
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type !== 'getDecision') return undefined;
  console.log('asked', sender.tab.id, message.url, message.nativeDark);
  if (sender.tab.id === 1 || sender.tab.id === 't1') {
    sendResponse(decision('sepia'));
    sendResponse(decision('invert'));
    return undefined;
  }
  return new Promise((resolve) => setTimeout(() => resolve(decision('gray')), 100));
});
// A listener that throws is logged; the others still run.
browser.runtime.onMessage.addListener(() => { throw new Error('second listener fails'); });
// A listener whose promise rejects gives no answer, and Safari reports nothing.
browser.runtime.onMessage.addListener(() => Promise.reject(new Error('third listener refuses')));
browser.tabs.onActivated.addListener(({ tabId, windowId }) => console.log('activated', tabId, windowId));
browser.tabs.onRemoved.addListener((tabId) => console.log('removed', tabId));
browser.windows.onFocusChanged.addListener((windowId) => console.log('focus', windowId));
// A page's other messages: from a tab, an answer is that tab's decision; from no tab, nowhere.
browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message.type === 'nativeDarkChanged') { console.log('native dark', sender.tab.id, message.nativeDark); sendResponse(decision('invert')); }
  if (message.type === 'appearanceChanged') { console.log('appearance', message.appearance, sender.tab); sendResponse(decision('dark')); }
  return undefined;
});
