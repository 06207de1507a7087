// Word Watch's end in the page: it takes the worker's port and posts the number of words the
// page shows at once, then again each time the worker asks. Its console says when the port
// opens and when the worker's end goes.
browser.runtime.onConnect.addListener((port) => {
  if (port.name !== 'words') return;
  let answers = 0;
  const answer = () => {
    const words = (document.body?.textContent ?? '').split(/\s+/).filter(Boolean).length;
    answers += 1;
    port.postMessage({ words, answer: answers });
  };
  console.log(`the worker's port "${port.name}" is open`);
  answer();
  port.onMessage.addListener((message) => {
    if (message?.type === 'count') answer();
  });
  port.onDisconnect.addListener(() => console.log(`the worker's port "${port.name}" closed`));
});
