// Says each tab that opens and each load, as tabs.onCreated and tabs.onUpdated tell them.
browser.tabs.onCreated.addListener((tab) => console.log(`created ${tab.id} ${tab.url}`));
browser.tabs.onUpdated.addListener((tabId, change, tab) => {
  console.log(`updated ${tabId} ${change.status}${change.url ? ' ' + change.url : ''} (${tab.status}, index ${tab.index})`);
});
