// An event page (Manifest V2, not persistent) that keeps the distinct headlines of the pages it
// is told of in its own document: the list in background.html. Each heading comes as the page's
// HTML, read as text with DOMParser. Every tab hears how many headlines the list holds. The list
// lives as long as the page does, and Safari unloads an idle event page: its next load starts
// from background.html again.
const list = document.getElementById('headlines');
document.addEventListener('DOMContentLoaded', () => console.log('headline log loaded with', list.children.length, 'headlines'));

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message?.type !== 'headline') return false;
  const text = new DOMParser().parseFromString(message.html, 'text/html').body.textContent.trim();
  const known = [...list.children].some((item) => item.textContent === text);
  if (!known) {
    const item = document.createElement('li');
    item.textContent = text;
    list.append(item);
    console.log('headline', list.children.length, text);
    chrome.tabs.query({}, (tabs) => {
      for (const tab of tabs) if (tab.id !== sender.tab?.id) chrome.tabs.sendMessage(tab.id, { type: 'count', count: list.children.length });
    });
  }
  sendResponse({ count: list.children.length });
  return false;
});
