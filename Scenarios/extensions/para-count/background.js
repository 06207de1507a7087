// A click on the toolbar item (where it has no popup) counts the paragraphs of the page it is
// over onto the item's badge for that tab, and gives the tab a popup of its own, which the next
// click there opens instead.
browser.browserAction.onClicked.addListener(async (tab) => {
  const [paragraphs] = await browser.tabs.executeScript(tab.id, { code: "document.querySelectorAll('p').length" });
  await browser.browserAction.setBadgeText({ tabId: tab.id, text: String(paragraphs) });
  await browser.browserAction.setPopup({ tabId: tab.id, popup: 'counted.html' });
  console.log('counted', paragraphs, 'paragraphs in tab', tab.id);
});
