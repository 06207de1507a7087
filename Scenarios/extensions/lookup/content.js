// Marks the page while it waits for the background's answer, then with what came back.
const root = document.documentElement;
root.dataset.lookup = 'waiting';
browser.runtime.sendMessage({ type: 'lookup', url: location.href }).then(
  (answer) => { root.dataset.lookup = answer === undefined ? 'nothing' : 'found'; },
  (error) => { root.dataset.lookup = 'error'; console.log('lookup failed', error.message); },
);
