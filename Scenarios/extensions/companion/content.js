// Says whether the extension opened this page, and on a page that asks for a companion, the
// id of the tab it got.
document.documentElement.dataset.companion = String(location.hash === '#companion');
if (location.search === '?companion') {
  chrome.runtime.sendMessage({ type: 'companion' }).then((answer) => {
    if (answer) document.documentElement.dataset.opened = String(answer.opened);
  });
}
