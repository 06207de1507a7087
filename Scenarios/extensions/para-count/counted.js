// The popup counts the paragraphs of the tab it is over again (Manifest V2's tabs.executeScript,
// with no tab: the window's active one, which the toolbar click let the extension into) and
// puts the count on that tab's badge.
document.getElementById('again').addEventListener('click', async () => {
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  const [paragraphs] = await browser.tabs.executeScript({ code: "document.querySelectorAll('p').length" });
  await browser.browserAction.setBadgeText({ tabId: tab.id, text: String(paragraphs) });
  document.getElementById('state').textContent = `Counted ${paragraphs} paragraphs again.`;
});
