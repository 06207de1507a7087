// Makes its menu items when it is installed, as extensions commonly do, and keeps what the user
// chooses from them in storage.local.
chrome.runtime.onInstalled.addListener(() => {
  chrome.contextMenus.create({ id: 'save', title: 'Save this page', contexts: ['page'] });
  chrome.contextMenus.create({ id: 'pin', title: 'Keep pinned', type: 'checkbox', contexts: ['page'] });
  chrome.contextMenus.create({ id: 'open link', title: 'Save the link', contexts: ['link'] });
});

chrome.contextMenus.onClicked.addListener(async (info, tab) => {
  if (info.menuItemId === 'save') {
    const { saved = [] } = await chrome.storage.local.get('saved');
    await chrome.storage.local.set({ saved: [...saved, info.pageUrl] });
    console.log('saved', info.pageUrl, 'from tab', tab.id);
  } else if (info.menuItemId === 'pin') {
    await chrome.storage.local.set({ pinned: info.checked });
    console.log('pinned', info.checked, 'was', info.wasChecked);
  }
});
