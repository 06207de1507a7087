browser.runtime.onConnect.addListener((port) => {
  console.log('connect', port.name, port.sender.tab?.id, port.sender.url);
  port.onMessage.addListener((message, from) => {
    console.log('heard', JSON.stringify(message), from === port);
    if (message === 'bye') {
      port.disconnect();
      try { port.postMessage('late'); } catch (error) { console.log('after', error.message); }
    } else port.postMessage(`echo ${message}`);
  });
  port.onDisconnect.addListener((closed) => console.log('closed', closed === port));
});
