// The background's end of each page's port: it greets the page, answers its pings, and closes
// the port when the page says goodbye.
browser.runtime.onConnect.addListener((port) => {
  port.postMessage({ type: 'hello', tab: port.sender.tab?.id ?? null });
  port.onMessage.addListener((message) => {
    if (message?.type === 'ping') port.postMessage({ type: 'pong', count: message.count });
    if (message?.type === 'bye') port.disconnect();
  });
  port.onDisconnect.addListener(() => console.log(`the page of tab ${port.sender.tab?.id} closed its port`));
});
