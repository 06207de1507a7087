// Reader's popup: whether the active tab's site reads in reading mode, and a button that
// changes it for that site.
const status = document.getElementById('status');
const hostOf = (url) => new URL(url).hostname;

function shown(reading) {
  status.textContent = reading ? 'Reading on' : 'Reading off';
  console.log('the popup shows reading', reading === true);
}

async function activeHost() {
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  return tab === undefined ? '' : hostOf(tab.url);
}

activeHost().then((host) => browser.runtime.sendMessage({ type: 'shouldRead', host })).then((answer) => shown(answer?.reading));

document.getElementById('toggle').addEventListener('click', async () => {
  const answer = await browser.runtime.sendMessage({ type: 'toggleSite', host: await activeHost() });
  shown(answer?.reading);
});
