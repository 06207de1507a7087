// Makes an item when the popup asks, loaded since the popup opened: after the popup's own.
// A choice of pin makes one more item here, as the popup makes one in the same choice.
browser.menus.onClicked.addListener((info, tab) => {
    console.log(`worker heard ${info.menuItemId} on tab ${tab?.id}`);
    if (info.menuItemId === 'pin') browser.menus.create({ id: 'from-worker', title: 'From the worker' });
});
browser.runtime.onMessage.addListener((message) => {
    if (message !== 'more') return undefined;
    browser.menus.create({ id: 'later', title: 'Later' });
    return Promise.resolve('made later');
});
