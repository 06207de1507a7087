// With an application id and without: each message a request of the background's.
browser.runtime.sendNativeMessage('com.example.app', { type: 'getSnapshot' })
  .then((reply) => console.log('reply', JSON.stringify(reply)));
browser.runtime.sendNativeMessage({ type: 'getEnabled' })
  .then((reply) => console.log('reply', JSON.stringify(reply)), (error) => console.log('rejected', error.message));
