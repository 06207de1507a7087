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
