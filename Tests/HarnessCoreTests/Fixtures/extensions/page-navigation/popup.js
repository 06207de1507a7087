// Says each stage of each tab's load it hears, and the completed loads of b.example's pages.
for (const name of ['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted']) {
    browser.webNavigation[name].addListener((details) => console.log(`${name} ${details.tabId} ${details.frameId} ${details.url}`));
}
browser.webNavigation.onCompleted.addListener((details) => console.log(`b.example loaded ${details.url}`), { url: [{ hostSuffix: 'b.example' }] });
