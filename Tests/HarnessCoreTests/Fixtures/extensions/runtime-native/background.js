// With an application id and without: each message a request of the background's.
browser.runtime.sendNativeMessage('com.example.app', { type: 'getSnapshot' })
  .then((reply) => console.log('reply', JSON.stringify(reply)));
browser.runtime.sendNativeMessage({ type: 'getEnabled' })
  .then((reply) => console.log('reply', JSON.stringify(reply)), (error) => console.log('rejected', error.message));
// The extension's own messages: any JSON value, with a callback too. A rejection sets
// runtime.lastError for the callback, in Safari's words.
browser.runtime.sendNativeMessage({ type: 'getDefault', key: 'mode' })
  .then((reply) => console.log('own', JSON.stringify(reply)));
browser.runtime.sendNativeMessage('ping', (reply) => console.log('callback', JSON.stringify(reply), browser.runtime.lastError?.message));
browser.runtime.sendNativeMessage('com.example.app', [1, 2], (reply) => console.log('callback', JSON.stringify(reply), browser.runtime.lastError?.message));
// A message posted on the native port is a request of its own: its reply arrives on the port,
// and its failure disconnects the port.
const port = browser.runtime.connectNative('com.example.app');
port.onMessage.addListener((message) => console.log('port heard', JSON.stringify(message)));
port.onDisconnect.addListener(() => {
  console.log('port gone');
  try { port.postMessage('again'); } catch (error) { console.log('post after', error.message); }
});
port.postMessage({ type: 'hello' });
port.postMessage('bye');
// A handler that completes with no message gives undefined; one that cancels rejects.
browser.runtime.sendNativeMessage({ type: 'nothing' }).then((reply) => console.log('nothing', typeof reply));
browser.runtime.sendNativeMessage({ type: 'cancel' }).catch((error) => console.log('canceled', error.message));
