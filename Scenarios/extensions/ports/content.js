// A page that keeps a port to the background. It pings when it connects and a minute later,
// and the background answers each ping; at 90 s it posts a tick, which the background does not
// answer. When the background's end goes (Safari unloaded the background), the page connects
// again, which starts a new one. data-port on the root element is "pong-N" after the Nth pong.
(() => {
  const root = document.documentElement;
  let port;
  function connect() {
    port = browser.runtime.connect({ name: 'page' });
    port.onMessage.addListener((message) => {
      if (message.type === 'pong') root.dataset.port = `pong-${message.count}`;
    });
    port.onDisconnect.addListener(() => {
      if (browser.runtime.lastError) root.dataset.port = 'refused';
      else connect();
    });
    port.postMessage({ type: 'ping', count: 1 });
  }
  connect();
  setTimeout(() => port.postMessage({ type: 'ping', count: 2 }), 60_000);
  setTimeout(() => port.postMessage({ type: 'tick' }), 90_000);
})();
