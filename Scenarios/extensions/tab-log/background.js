// Says each tab that opens and each load, as tabs.onCreated and tabs.onUpdated tell them. A page
// asked for with ?companion opens a companion tab behind it, then moves it on, reloads it and
// closes it, saying each step.
browser.tabs.onCreated.addListener((tab) => console.log(`created ${tab.id} ${tab.url}`));
browser.tabs.onUpdated.addListener((tabId, change, tab) => {
  console.log(`updated ${tabId} ${change.status}${change.url ? ' ' + change.url : ''} (${tab.status}, index ${tab.index})`);
  if (change.status === 'complete' && tab.url.endsWith('?companion')) companion(tab);
});

async function companion(opener) {
  const tab = await browser.tabs.create({ url: 'https://docs.example.com/companion', active: false });
  const [front] = await browser.tabs.query({ active: true, currentWindow: true });
  console.log(`companion ${tab.id} ${tab.url} behind ${front.id === opener.id}`);
  const moved = await browser.tabs.update(tab.id, { url: 'https://docs.example.com/moved' });
  console.log(`moved ${moved.id} ${moved.url}`);
  await browser.tabs.reload(tab.id);
  await browser.tabs.remove(tab.id);
  console.log(`closed ${(await browser.tabs.query({})).map((each) => each.id).join(',')}`);
  await browser.tabs.get(tab.id).catch((error) => console.log(error.message));
}
