const port = chrome.runtime.connect({ name: 'first' });
port.onMessage.addListener((message, from) => console.log('heard', message, from === port));
port.onDisconnect.addListener(() => {
  console.log('disconnected', chrome.runtime.lastError?.message ?? 'without an error');
  try { port.postMessage('late'); } catch (error) { console.log('after', error.message); }
});
port.postMessage('hello');
const second = browser.runtime.connect();
second.disconnect();
second.disconnect();
